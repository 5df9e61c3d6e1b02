"""One forgetting pass: density, scores, candidates, cluster survivors, the predictor, soft delete."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..config import ForgettingConfig
from ..sidecar.store import Store
from ..sidecar.vectors import VectorIndex
from . import clusters, density, predictor, scoring, state

log = logging.getLogger("memory_sleep")
REASON = "forgotten"
REPLAY_MARGIN = 10
Verdict = Literal["kept", "load-bearing", "forgotten"]


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
    skipped: str | None = None
    density_mode: str = ""
    density_progress: float = 1.0
    queries_replayed: int = 0
    recall_before: float = 1.0
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
            "queriesReplayed": self.queries_replayed,
            "milliseconds": round(1000 * sum(self.seconds.values())),
        }


def new_pass_id(now: float) -> str:
    return "forget-" + datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S%fZ")


def run_pass(
    store: Store,
    index: VectorIndex,
    config: ForgettingConfig,
    embedder: str,
    now: float,
    folder: Path | None = None,
    dry_run: bool = False,
    rebuild_budget_secs: float | None = None,
    explain_all: bool = False,
) -> PassReport:
    """Score every live entry and soft-delete those below the threshold that no replayed query needs.

    `index` is the live vector index of the store's current generation; `folder` holds the density
    build checkpoint. Verdicts list the candidates (every entry with `explain_all`). Never deletes anything for good: forgotten entries keep their text and embedding.
    """
    report = PassReport(new_pass_id(now), dry_run, entries=len(index.ids))
    if len(index.ids) < config.min_entries:
        report.skipped = (
            f"{len(index.ids)} live entries, fewer than min_entries = {config.min_entries}: "
            "too few to need forgetting"
        )
        return _finish(store, report, now)
    report.seconds["density"] = 0.0
    counts = _density(store, index, config, embedder, folder, dry_run, rebuild_budget_secs, report)
    if counts is None:
        report.skipped = (
            f"density index being built ({report.density_progress:.0%} done); "
            "forgetting waits for it. `memory-sleep forget --rebuild-density` finishes it in one go."
        )
        return _finish(store, report, now)
    started = time.perf_counter()
    signals = state.entry_signals(store)
    if len(signals.ids) != len(index.ids) or not np.array_equal(signals.ids, index.ids):
        aligned = np.searchsorted(signals.ids, index.ids)
        aligned = np.minimum(aligned, max(len(signals.ids) - 1, 0))
        touched, accesses = signals.touched[aligned], signals.access_counts[aligned]
    else:
        touched, accesses = signals.touched, signals.access_counts
    recent = scoring.recency(touched, now, config.half_life_days)
    frequent = scoring.frequency(accesses, config.frequency_saturation)
    dense = scoring.density(counts)
    retention = scoring.retention(recent, frequent, dense, config.weights)
    candidates = np.flatnonzero(retention < config.retention_threshold)
    report.candidates = len(candidates)
    report.seconds["scoring"] = time.perf_counter() - started

    started = time.perf_counter()
    survivors = clusters.last_of_clusters(
        index, candidates.tolist(), counts, retention, config.density_threshold
    )
    removable = [int(c) for c in candidates if int(c) not in survivors]
    queries = state.logged_queries(store, config.replay_queries, embedder, index.matrix.shape[1])
    played = predictor.replay(index, queries, REPLAY_MARGIN)
    judgement = predictor.judge(index, played, removable, config.density_threshold, config.tolerance)
    report.queries_replayed = len(queries)
    if queries:
        report.recall_after = float(np.mean(judgement.recall_after))
    report.seconds["prediction"] = time.perf_counter() - started

    saved = survivors | set(judgement.load_bearing)
    forget_rows = [row for row in removable if row not in judgement.load_bearing]
    report.load_bearing = len(saved)
    report.forgotten = len(forget_rows)
    report.forgotten_ids = [int(index.ids[row]) for row in forget_rows]
    listed = np.arange(len(index.ids)) if explain_all else candidates
    rows = store.fetch(int(index.ids[row]) for row in listed)
    is_candidate = np.zeros(len(index.ids), dtype=bool)
    is_candidate[candidates] = True
    for row in listed.tolist():
        entry_id = int(index.ids[row])
        if row in saved:
            verdict: Verdict = "load-bearing"
            reason = (
                f"needed by {judgement.load_bearing[row]} replayed queries"
                if row in judgement.load_bearing
                else "last of its near-duplicate cluster"
            )
        elif is_candidate[row]:
            verdict, reason = "forgotten", "below the threshold; no replayed query needs it"
        else:
            verdict, reason = "kept", "at or above the threshold"
        entry = rows.get(entry_id)
        report.verdicts.append(
            EntryVerdict(
                entry_id,
                entry.source_path if entry else "",
                entry.line_start if entry else 0,
                float(recent[row]),
                float(frequent[row]),
                float(dense[row]),
                int(counts[row]),
                int(accesses[row]),
                float(retention[row]),
                verdict,
                reason,
            )
        )
    if not dry_run and report.forgotten_ids:
        started = time.perf_counter()
        with store.transaction():
            store.soft_delete(report.forgotten_ids, REASON, now, report.pass_id)
            rows_gone = np.array(forget_rows, dtype=np.intp)
            density.forget_rows(store, index, rows_gone, counts.copy(), config.density_threshold)
        report.seconds["density"] += time.perf_counter() - started
    return _finish(store, report, now)


def _density(
    store: Store,
    index: VectorIndex,
    config: ForgettingConfig,
    embedder: str,
    folder: Path | None,
    dry_run: bool,
    budget: float | None,
    report: PassReport,
) -> npt.NDArray[np.int64] | None:
    threshold = config.density_threshold
    if density.is_built(store, threshold, embedder):
        result = density.update(store, index, threshold)
        replace = False
    else:
        result = density.rebuild(store, index, threshold, embedder, None if dry_run else folder, budget)
        replace = True
    report.density_mode = result.mode
    report.density_progress = result.progress
    report.seconds["density"] = result.seconds
    if result.counts is None:
        return None
    if not dry_run:
        with store.transaction():
            density.save(store, result, threshold, embedder, replace_all=replace)
    return result.counts


def _finish(store: Store, report: PassReport, now: float) -> PassReport:
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
