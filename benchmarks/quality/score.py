"""Every metric of the quality benchmark, computed once the simulated nights are over."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memory_sleep.text import shorten

from . import archive_audit, hygiene, retention, verdicts
from .outputs import MemoryEntry, Outputs
from .simulate import History, Night
from .truthdata import GroundTruth, TruthText

BRIEFING_LIMIT = 2048
NOISE_LEAKED = 0.02  # issue 15: at most 2 % of the truth's DISCARD items kept
EXAMPLES = 15
DETAIL_LINES = 10


@dataclass(frozen=True)
class Row:
    """One line of the results table; `passed` is None for a number without a target."""

    metric: str
    value: str
    target: str = ""
    passed: bool | None = None


@dataclass
class Scorecard:
    rows: list[Row]
    nightly: list[tuple[str, float, float, float]]
    confusion: list[verdicts.ConfusionRow]
    missed_keeps: list[verdicts.Judged]
    false_keeps: list[verdicts.Judged]
    details: dict[str, list[str]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(row.passed is not False for row in self.rows)


def _share(part: int, whole: int) -> str:
    return f"{part / whole if whole else 1.0:.3f} ({part}/{whole})"


def _at_least(metric: str, value: float, shown: str, target: float) -> Row:
    return Row(metric, shown, f">= {target:.2f}", value >= target)


def nightly_stats(nights: Sequence[Night]) -> list[tuple[str, float, float, float]]:
    columns: list[tuple[str, Callable[[Night], float]]] = [
        ("seconds per night", lambda n: n.seconds),
        ("files changed", lambda n: n.files_changed),
        ("MEMORY.md bytes", lambda n: n.memory_bytes),
        ("briefing bytes", lambda n: n.briefing_bytes),
        ("items kept (NREM)", lambda n: n.kept),
        ("entries archived", lambda n: n.archived),
        ("LLM calls", lambda n: n.llm_calls),
        ("LLM tokens", lambda n: n.tokens),
    ]
    return [
        (name, min(values), statistics.median(values), max(values))
        for name, get in columns
        if (values := [float(get(night)) for night in nights])
    ]


def score(
    source: Path,
    run_dir: Path,
    truth: GroundTruth,
    nights: Sequence[Night],
    history: History,
    stale_after_days: int = 30,
) -> Scorecard:
    text = TruthText(source, truth)
    outputs = Outputs.load(run_dir)
    last_night = nights[-1].today
    rows: list[Row] = []
    details: dict[str, list[str]] = {}

    judged = verdicts.judge_items(run_dir, truth)
    v = verdicts.verdict_scores(judged)
    keep_total = v.truth_keep
    rows.append(_at_least("KEEP recall", v.keep_recall, f"{v.keep_recall:.3f} of {keep_total}", 0.90))
    rows.append(
        _at_least(
            "DISCARD precision", v.discard_precision, f"{v.discard_precision:.3f} of {v.tool_discarded}", 0.90
        )
    )
    leaked = v.leaked / v.truth_discard if v.truth_discard else 0.0
    rows.append(
        Row("noise leaked", f"{leaked:.1%} ({v.leaked}/{v.truth_discard})", "<= 2%", leaked <= NOISE_LEAKED)
    )
    rows.append(Row("KEEP recall, raw NREM", f"{v.raw_keep_recall:.3f}"))
    rows.append(Row("DISCARD precision, raw NREM", f"{v.raw_discard_precision:.3f}"))
    rows.append(Row("category agreement (both KEEP)", f"{v.category_agreement:.3f}"))
    rows.append(Row("truth items with no parser item", str(v.unmatched), "0", v.unmatched == 0))

    kept = retention.fact_retention(outputs, truth, text)
    rows.append(
        _at_least(
            "fact retention: final values",
            kept.value_share,
            _share(kept.values_found, kept.values_total),
            0.95,
        )
    )
    rows.append(
        _at_least(
            "fact retention: decisions, lessons, people",
            kept.item_share,
            _share(kept.items_found, kept.items_total),
            0.95,
        )
    )
    details["Facts whose final value is nowhere in memory"] = [
        f"`{key}`: {value}" for key, value in kept.missing_values[:DETAIL_LINES]
    ]
    details["Kept decisions, lessons, people not findable"] = [
        f"{item['file']}:{item['line']} ({item['category']}) {item['text']}"
        for item in kept.missing_items[:DETAIL_LINES]
    ]

    outcomes = retention.contradictions(outputs, truth, text, history, stale_after_days, last_night)
    shares = retention.contradiction_shares(outcomes)
    total = len(outcomes)
    rows.append(
        _at_least(
            "contradictions resolved",
            shares["resolved"],
            _share(sum(o.resolved for o in outcomes), total),
            0.95,
        )
    )
    rows.append(Row("contradictions: final value current", f"{shares['final_current']:.3f}"))
    rows.append(
        Row(
            "contradictions: final value in MEMORY.md itself (strict)",
            _share(sum(o.final_in_memory for o in outcomes), total),
        )
    )
    rows.append(Row("contradictions: no older value current", f"{shares['no_stale_current']:.3f}"))
    rows.append(Row("contradictions: older values archived", f"{shares['archived']:.3f}"))
    details["Contradictions whose final value DESIGN's rules moved to the archive"] = [
        f"`{o.key}` final {o.final!r}: {o.left_by_rule}" for o in outcomes if o.resolved and o.left_by_rule
    ][:DETAIL_LINES]
    details["Contradictions not resolved"] = [
        f"`{o.key}` final {o.final!r}: "
        + ", ".join(
            part
            for part in (
                "" if o.final_current else "final value not current",
                f"still current: {', '.join(o.stale_current)}" if o.stale_current else "",
                f"not archived: {', '.join(o.unarchived)}" if o.unarchived else "",
            )
            if part
        )
        for o in outcomes
        if not o.resolved
    ][:DETAIL_LINES]

    audit = archive_audit.audit_archive(outputs.archive, truth, text)
    rows.append(
        Row(
            "supersedes/updates that replaced the same fact",
            _share(audit.replaced - len(audit.wrong_replaced), audit.replaced),
        )
    )
    rows.append(
        Row(
            "done-removals that closed the right action",
            _share(audit.closed - len(audit.wrong_closed), audit.closed),
        )
    )
    details["Archive removals by reason"] = [
        f"{count} {reason}" for reason, count in audit.reasons.most_common()
    ]
    details["Entries replaced by a different fact"] = [
        f"`{key}` replaced by an item about {other}: {shorten(record.entry, 100)} ({record.reason})"
        for record, key, other in audit.wrong_replaced[:DETAIL_LINES]
    ]
    details["Actions closed by an item about another action"] = [
        f"{key} closed by {other}: {shorten(record.entry, 100)} ({record.reason})"
        for record, key, other in audit.wrong_closed[:DETAIL_LINES]
    ]

    statements = retention.StatementIndex(truth, text)
    duplicates = hygiene.near_duplicate_rate(
        outputs.entries,
        _what_it_states(statements, truth, last_night),
        lambda entry: statements.people_in(entry.current),
    )
    worded = hygiene.near_duplicate_rate(outputs.entries)
    rows.append(
        Row(
            "near-duplicate rate in MEMORY.md",
            f"{duplicates.rate:.1%} ({duplicates.duplicated}/{duplicates.entries})",
            "<= 2%",
            duplicates.rate <= 0.02,
        )
    )
    rows.append(
        Row(
            "near-duplicate rate by wording alone",
            f"{worded.rate:.1%} ({worded.duplicated}/{worded.entries})",
        )
    )
    details["Near-duplicate pairs"] = [
        f"{section}: {a!r} ~ {b!r}" for section, a, b in duplicates.pairs[:DETAIL_LINES]
    ]
    details["Pairs alike in wording that the truth tells apart"] = [
        f"{section}: {a!r} ~ {b!r}"
        for section, a, b in [pair for pair in worded.pairs if pair not in duplicates.pairs][:DETAIL_LINES]
    ]

    stale = hygiene.finished_project_entries(outputs, truth, history)
    rows.append(Row("finished-project entries archived", _share(stale.handled, stale.total)))
    details["Finished-project entries still in MEMORY.md"] = [
        f"{e.section}: [{e.topic}] {e.text}" for e in stale.still_present[:DETAIL_LINES]
    ]
    if stale.summaries_left:
        details["Finished-project entries still in MEMORY.md"].append(
            f"(### summaries still under ## Projects: {', '.join(stale.summaries_left)})"
        )
    closed = hygiene.closed_actions(outputs, truth, history, last_night)
    rows.append(Row("closed actions out of MEMORY.md, archived", _share(closed.handled, closed.total)))
    details["Closed actions still listed or not archived"] = [
        f"{a['key']} (closed {a['closed']['date'] if a['closed'] else '?'}): {a['text']}"
        + (" [not archived]" if a in closed.not_archived else "")
        for a in [*closed.still_listed, *closed.not_archived][:DETAIL_LINES]
    ]
    briefed = hygiene.briefing_actions(outputs, truth, last_night)
    rows.append(
        Row(
            "open actions due ±7 days in briefing",
            _share(len(briefed.due) - len(briefed.missing), len(briefed.due)),
        )
    )
    details["Open actions due soon missing from the briefing"] = [
        f"{a['key']} due {a['deadline']}: {a['text']}" for a in briefed.missing[:DETAIL_LINES]
    ]

    memory_bytes = len(outputs.memory.encode("utf-8"))
    weekly_bytes = sum(len(t.encode("utf-8")) for t in outputs.weekly.values())
    briefing_max = max(n.briefing_bytes for n in nights)
    over = sum(n.briefing_bytes > BRIEFING_LIMIT for n in nights)
    rows.append(
        Row("MEMORY.md bytes, end / max", f"{memory_bytes:,} / {max(n.memory_bytes for n in nights):,}")
    )
    rows.append(
        Row(
            "briefing bytes, end / max",
            f"{len(outputs.briefing.encode('utf-8')):,} / {briefing_max:,} ({over} nights over)",
            f"<= {BRIEFING_LIMIT} every night",
            over == 0,
        )
    )
    raw_bytes = sum((source / file).stat().st_size for file in truth["files"])
    rows.append(
        Row(
            "compression, notes : (MEMORY.md + weekly)",
            f"{raw_bytes / max(memory_bytes + weekly_bytes, 1):.1f} : 1 ({raw_bytes:,} B : {memory_bytes + weekly_bytes:,} B)",
        )
    )

    leaks = hygiene.secret_leaks(run_dir, truth)
    leaked = len({kind for kind, _ in leaks})
    rows.append(
        Row(
            "planted secrets found outside the notes",
            f"{len(leaks)} (of {len(truth['secrets'])} planted; {leaked} kinds)",
            "0",
            not leaks,
        )
    )
    details["Secrets found"] = [f"{kind} in {file}" for kind, file in leaks[:DETAIL_LINES]]
    relearned = hygiene.pasted_briefing_relearned(outputs, truth)
    rows.append(Row("pasted briefing phrases re-learned", str(len(relearned)), "0", not relearned))
    details["Pasted briefing phrases re-learned"] = [f"{phrase!r} in {file}" for phrase, file in relearned]

    seconds = [n.seconds for n in nights]
    rows.append(
        Row("seconds per night, median / max", f"{statistics.median(seconds):.2f} / {max(seconds):.2f}")
    )
    calls = [n.llm_calls for n in nights]
    tokens = [n.tokens for n in nights]
    rows.append(
        Row(
            "LLM calls / tokens per night, median (max)",
            f"{statistics.median(calls):g} ({max(calls)}) / {statistics.median(tokens):g} ({max(tokens)})",
        )
    )
    return Scorecard(
        rows=rows,
        nightly=nightly_stats(nights),
        confusion=verdicts.confusion(judged),
        missed_keeps=verdicts.missed_keeps(judged, EXAMPLES),
        false_keeps=verdicts.false_keeps(judged, EXAMPLES),
        details={title: lines for title, lines in details.items() if lines},
    )


def _what_it_states(
    statements: retention.StatementIndex, truth: GroundTruth, last_night: date
) -> Callable[[MemoryEntry], str | None]:
    """What an entry of MEMORY.md states by the truth, when it knows: the action, the keyed fact, or
    the one note item it restates (two kept items are two things to keep, however alike)."""
    actions = hygiene.ActionIndex(truth["actions"])

    def about(entry: MemoryEntry) -> str | None:
        if entry.section == hygiene.ACTION_SECTION:
            key = actions.assign(entry.current, entry.day or last_night)
            return f"action {key}" if key else None
        item = statements.restated_item(entry.current)
        return f"item {item}" if item else None

    return about
