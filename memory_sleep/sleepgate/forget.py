"""One forgetting pass: density, scores, candidates, cluster survivors, the predictor, soft delete."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import numpy as np
import numpy.typing as npt

from memory_sleep.config import ForgettingConfig
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate import clusters, density, predictor, scoring, state
from memory_sleep.sleepgate.restore import restore_entries

log = logging.getLogger("memory_sleep")
REPLAY_MARGIN = 10
CHECKPOINT_SECS = 60.0
Verdict = Literal["kept", "load-bearing", "forgotten"]
Explain = Literal["none", "candidates", "all"]


@dataclass(frozen=True)
class EntryVerdict:
    """One entry's signals, composite score and fate, with the reason in words."""

    id: int
    source: str
    line: int
    recency: float
    frequency: float
    density: float
    neighbours: int
    accesses: int
    retention: float
    verdict: Verdict
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "source": self.source,
            "line": self.line,
            "recency": round(self.recency, 4),
            "frequency": round(self.frequency, 4),
            "density": round(self.density, 4),
            "neighbours": self.neighbours,
            "accesses": self.accesses,
            "retention": round(self.retention, 4),
            "verdict": self.verdict,
            "reason": self.reason,
        }


@dataclass
class PassReport:
    """What a pass did (or, dry, would do); `skipped` says why it did nothing."""

    pass_id: str
    dry_run: bool
    entries: int = 0
    candidates: int = 0
    load_bearing: int = 0
    forgotten: int = 0
    restored: int = 0  # latest words an earlier pass forgot, brought back (`_latest_words`)
    skipped: str | None = None
    density_mode: str = ""
    density_progress: float = 1.0
    queries_replayed: int = 0
    recall_after: float = 1.0
    seconds: dict[str, float] = field(default_factory=dict)
    verdicts: list[EntryVerdict] = field(default_factory=list)
    forgotten_ids: list[int] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The counts sleep-log.json keeps under `forgetting`."""
        return {
            "entries": self.entries,
            "candidates": self.candidates,
            "loadBearing": self.load_bearing,
            "forgotten": self.forgotten,
            **({"restored": self.restored} if self.restored else {}),
            "queriesReplayed": self.queries_replayed,
            "milliseconds": round(1000 * sum(self.seconds.values())),
        }


def new_pass_id(now: float) -> str:
    return "forget-" + datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S%fZ")


def run_pass(
    store: SidecarStore,
    index: VectorIndex,
    config: ForgettingConfig,
    embedder: str,
    now: float,
    dry_run: bool = False,
    rebuild_budget_secs: float | None = None,
    explain: Explain = "candidates",
    pass_id: str | None = None,
) -> PassReport:
    """Score every live entry and soft-delete those below the threshold that no replayed query needs.

    `index` is the live vector index of the store's current generation. Verdicts list the candidates,
    every entry or none (`explain`). Never deletes anything for good: forgotten entries keep their
    text and embedding.
    """
    report = PassReport(pass_id or new_pass_id(now), dry_run, entries=len(index.ids))
    if len(index.ids) == 0:
        # a first run's pass comes before the run indexes its notes: the next pass reads them
        report.skipped = "the sidecar held nothing yet; a run indexes its notes after this pass"
        return _finish(store, report, now)
    if len(index.ids) < config.min_entries:
        report.skipped = (
            f"{len(index.ids)} live entries, fewer than min_entries = {config.min_entries}: "
            "too few to need forgetting (lower min_entries under [memory.forgetting] in memory-sleep.toml "
            "to forget sooner)"
        )
        return _finish(store, report, now)
    groups = density.grouped(store, index, persist=not dry_run)
    counted = _density(store, groups, config, embedder, dry_run, rebuild_budget_secs, report)
    if counted.counts is None:
        report.skipped = (
            f"density index being built ({report.density_progress:.0%} done); "
            "forgetting waits for it. `memory-sleep forget --rebuild-density` finishes it in one go."
        )
        return _finish(store, report, now)
    started = time.perf_counter()
    scores = _scores(store, index, counted.counts, config, now)
    candidates = np.flatnonzero(scores.retention < config.retention_threshold)
    report.candidates = len(candidates)
    report.seconds["scoring"] = time.perf_counter() - started

    started = time.perf_counter()
    survivors = clusters.last_of_clusters(
        groups,
        candidates.tolist(),
        scores.neighbours,
        scores.retention,
        config.density_threshold,
        counted.pairs,
    )
    named = state.latest_words(store)
    latest = _latest_words(index, candidates, named) - survivors  # each load-bearing row counted once
    removable = [int(c) for c in candidates if int(c) not in survivors and int(c) not in latest]
    queries = state.logged_queries(store, config.replay_queries, embedder, index.matrix.shape[1])
    played = predictor.replay(index, queries, REPLAY_MARGIN)
    judgement = predictor.judge(index, played, removable, config.density_threshold, config.tolerance)
    report.queries_replayed = len(queries)
    if queries:
        report.recall_after = float(np.mean(judgement.recall_after))
    report.seconds["prediction"] = time.perf_counter() - started

    forget_rows = np.array([row for row in removable if row not in judgement.load_bearing], dtype=np.intp)
    report.load_bearing = len(survivors) + len(latest) + len(judgement.load_bearing)
    report.forgotten = len(forget_rows)
    report.forgotten_ids = index.ids[forget_rows].tolist()
    if explain != "none":
        listed = np.arange(len(index.ids)) if explain == "all" else candidates
        report.verdicts = _verdicts(
            store, index, scores, listed, candidates, survivors, latest, judgement.load_bearing
        )
    # a latest word an earlier pass forgot (before it was kept as one) comes back, in this pass's
    # record: undoing the pass forgets it again
    back = [row.id for row in named if row.deleted_reason == state.FORGOTTEN]
    report.restored = len(back)
    if not dry_run and back:
        restore_entries(store, now, back, undo_record=report.pass_id)
    if not dry_run and report.forgotten_ids:
        started = time.perf_counter()
        with store.transaction():
            store.soft_delete(report.forgotten_ids, state.FORGOTTEN, now, report.pass_id)
            density.forget_rows(
                store, groups, forget_rows, counted.counts, config.density_threshold, counted.pairs
            )
        report.seconds["density"] += time.perf_counter() - started
    return _finish(store, report, now)


def _latest_words(index: VectorIndex, candidates: npt.NDArray[np.intp], named: list[EntryRow]) -> set[int]:
    """The candidates (index rows) that are the latest word on an entry that ended (`state.latest_words`):
    recall shows them above what they ended, which stays."""
    live = {row.id for row in named if row.deleted_at is None}
    return {int(row) for row in candidates if int(index.ids[row]) in live}


def _scores(
    store: SidecarStore,
    index: VectorIndex,
    counts: npt.NDArray[np.int64],
    config: ForgettingConfig,
    now: float,
) -> scoring.Scores:
    signals = state.entry_signals(store)
    touched, accesses, importance = signals.touched, signals.access_counts, signals.importance
    if len(signals.ids) != len(index.ids) or not np.array_equal(signals.ids, index.ids):
        aligned = np.minimum(np.searchsorted(signals.ids, index.ids), max(len(signals.ids) - 1, 0))
        touched, accesses, importance = touched[aligned], accesses[aligned], importance[aligned]
    return scoring.score(touched, accesses, counts, config, now, importance)


def _verdicts(
    store: SidecarStore,
    index: VectorIndex,
    scores: scoring.Scores,
    listed: npt.NDArray[np.intp],
    candidates: npt.NDArray[np.intp],
    survivors: set[int],
    latest: set[int],
    load_bearing: dict[int, int],
) -> list[EntryVerdict]:
    """Each listed row's signals and fate in words."""
    rows = store.fetch(int(index.ids[row]) for row in listed)
    is_candidate = np.zeros(len(index.ids), dtype=bool)
    is_candidate[candidates] = True
    verdicts = []
    for row in listed.tolist():
        verdict: Verdict
        if row in load_bearing:
            verdict, reason = "load-bearing", f"needed by {load_bearing[row]} replayed queries"
        elif row in survivors:
            verdict, reason = "load-bearing", "last of its near-duplicate cluster"
        elif row in latest:
            verdict, reason = "load-bearing", "the latest word on an entry that ended"
        elif is_candidate[row]:
            verdict, reason = "forgotten", "below the threshold; no replayed query needs it"
        else:
            verdict, reason = "kept", "at or above the threshold"
        entry_id = int(index.ids[row])
        entry = rows.get(entry_id)
        verdicts.append(
            EntryVerdict(
                entry_id,
                entry.source_path if entry else "",
                entry.line_start if entry else 0,
                float(scores.recency[row]),
                float(scores.frequency[row]),
                float(scores.density[row]),
                int(scores.neighbours[row]),
                int(scores.access_counts[row]),
                float(scores.retention[row]),
                verdict,
                reason,
            )
        )
    return verdicts


def _density(
    store: SidecarStore,
    index: density.Groups,
    config: ForgettingConfig,
    embedder: str,
    dry_run: bool,
    budget: float | None,
    report: PassReport,
) -> density.DensityResult:
    """Counts brought up to date, or a rebuild advanced within `budget` seconds (None: to the end),
    saved every CHECKPOINT_SECS so that an interrupted rebuild loses at most that much work."""
    threshold = config.density_threshold
    built = density.is_built(store, threshold, embedder)
    deadline = None if budget is None else time.monotonic() + budget
    report.seconds["density"] = 0.0
    while True:
        if built:
            result = density.update(store, index, threshold)
        elif dry_run:  # nothing saved, so no slices: one go within the budget
            result = density.rebuild(store, index, threshold, embedder, budget, persist=False)
        else:
            left = CHECKPOINT_SECS if deadline is None else min(CHECKPOINT_SECS, deadline - time.monotonic())
            result = density.rebuild(store, index, threshold, embedder, max(left, 0.0))
        report.seconds["density"] += result.seconds
        if not dry_run:
            with store.transaction():
                density.save(store, result, threshold, embedder)
        out_of_time = deadline is not None and time.monotonic() >= deadline
        if result.mode != "building" or dry_run or out_of_time:
            break
    report.density_mode = result.mode
    report.density_progress = result.progress
    return result


def _finish(store: SidecarStore, report: PassReport, now: float) -> PassReport:
    total = sum(report.seconds.values())
    log.debug(
        "sleepgate pass %s%s: %d entries, %d candidates, %d load-bearing, %d forgotten in %.2fs "
        "(density %s %.2fs, scoring %.2fs, prediction %.2fs; %d queries replayed)%s",
        report.pass_id,
        " (dry run)" if report.dry_run else "",
        report.entries,
        report.candidates,
        report.load_bearing,
        report.forgotten,
        total,
        report.density_mode or "-",
        report.seconds.get("density", 0.0),
        report.seconds.get("scoring", 0.0),
        report.seconds.get("prediction", 0.0),
        report.queries_replayed,
        f"; skipped: {report.skipped}" if report.skipped else "",
    )
    if not report.dry_run:
        with store.transaction():
            state.record_pass(store, report.pass_id, now, total, report.counts(), report.skipped)
    return report
