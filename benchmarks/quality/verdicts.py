"""NREM scored item by item: each truth item matched to the parser item the tool classified, and judged.

The tool's *effective* verdict is what it did with the item: an NREM KEEP whose REM operation is
`noop` only repeated memory and counts as DISCARD (DESIGN.md: "unless it only repeats what memory
already holds"); a DISCARD that closed an open action item changed memory and counts as KEEP. What
closed one is read from archive.md (`[done DAY by memory/FILE:LINE]`), not from the state's
`closes_action`, which says only that NREM read the item as reporting something done: "lunch break ✅"
reports done and closes nothing. The raw NREM verdict is reported beside it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.workspace.layout import NoteFile, Workspace, discover
from memory_sleep.workspace.note_read import NoteReadError
from memory_sleep.workspace.notes import read_note
from memory_sleep.workspace.state import ItemRecord, NoteState, StateStore

from .truthdata import GroundTruth, ItemTruth

KEEP_CATEGORIES = ("decision", "fact", "lesson", "action", "relationship", "status")
DISCARD_CATEGORIES = ("routine", "heartbeat", "narration", "debug", "resolved", "duplicate")
# how much a missed KEEP hurts: a lost decision or lesson is worse than a lost status line
MISS_WEIGHT = {"decision": 6, "lesson": 5, "relationship": 4, "fact": 4, "action": 3, "status": 2}
# how much a kept DISCARD hurts: one that overwrote a real entry is worse than one merely added
OPERATION_WEIGHT = {"supersede": 3, "update": 2, "add": 2, "pending": 1, "closes": 1}
_CLOSED_BY = re.compile(
    r"\[done \d{4}-\d{2}-\d{2} by ([^\]]+)\]"
)  # archive.md: an action closed by a note line


@dataclass(frozen=True)
class Judged:
    """A truth item and what the tool did with it (`record` None: no parser item covers the line)."""

    truth: ItemTruth
    record: ItemRecord | None
    closed: bool = False  # archive.md records an action done by this item

    @property
    def truth_keep(self) -> bool:
        return self.truth["verdict"] == "KEEP"

    @property
    def nrem_keep(self) -> bool:
        return self.record is not None and self.record.verdict == "KEEP"

    @property
    def effective_keep(self) -> bool:
        record = self.record
        if record is None:
            return False
        return (record.verdict == "KEEP" and record.operation != "noop") or self.closed

    @property
    def label(self) -> str:
        """The tool's decision in a few words: "KEEP fact → add", "DISCARD routine", "unmatched"."""
        record = self.record
        if record is None:
            return "unmatched"
        if record.verdict == "KEEP":
            return f"KEEP {record.category} → {record.operation or 'pending'}"
        closes = " (closes an action)" if self.closed else ""
        return f"DISCARD {record.discard_reason or 'other'}{closes}"


def judge_items(run_dir: Path, truth: GroundTruth, config: Config | None = None) -> list[Judged]:
    """Each truth item with the state record of the parser item at its line, or whose span holds it."""
    config = config or Config()
    workspace = Workspace.open(run_dir)
    notes = {note.relative: note for note in discover(workspace).notes}
    store = StateStore(workspace.state_dir)
    archive = workspace.archive.read_text(encoding="utf-8") if workspace.archive.exists() else ""
    closers = set(_CLOSED_BY.findall(archive))
    by_file: dict[str, list[ItemTruth]] = defaultdict(list)
    for item in truth["items"]:
        by_file[item["file"]].append(item)
    judged: list[Judged] = []
    for file, items in by_file.items():
        note = notes.get(file)
        state = store.load_note(note.name) if note else None
        if note is None or state is None:
            judged.extend(Judged(item, None) for item in items)
            continue
        judged.extend(
            Judged(item, record, record is not None and f"{file}:{record.line}" in closers)
            for item, record in _match(note, state, items, config)
        )
    return judged


def _match(
    note: NoteFile, state: NoteState, items: Sequence[ItemTruth], config: Config
) -> list[tuple[ItemTruth, ItemRecord | None]]:
    by_line = {record.line: record for record in state.items.values()}
    spans: list[tuple[int, int, str]] = []
    if any(item["line"] not in by_line for item in items):
        try:
            spans = [(i.line_start, i.line_end, i.id) for i in read_note(note, config.max_note_bytes).items]
        except NoteReadError:
            spans = []
    matched: list[tuple[ItemTruth, ItemRecord | None]] = []
    for item in items:
        record = by_line.get(item["line"])
        if record is None:
            record = next(
                (state.items.get(key) for start, end, key in spans if start <= item["line"] <= end), None
            )
        matched.append((item, record))
    return matched


@dataclass(frozen=True)
class VerdictScores:
    keep_recall: float
    discard_precision: float
    raw_keep_recall: float
    raw_discard_precision: float
    category_agreement: float
    truth_keep: int
    tool_discarded: int
    unmatched: int
    truth_discard: int
    leaked: int  # truth DISCARD items the run did not discard: kept (promoted or left) or never parsed


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def verdict_scores(judged: Sequence[Judged]) -> VerdictScores:
    keep = [j for j in judged if j.truth_keep]
    discarded = [j for j in judged if j.record is not None and not j.effective_keep]
    raw_discarded = [j for j in judged if j.record is not None and not j.nrem_keep]
    both_keep = [j for j in keep if j.nrem_keep and j.record is not None]
    truth_discard = len(judged) - len(keep)
    return VerdictScores(
        keep_recall=_ratio(sum(j.effective_keep for j in keep), len(keep)),
        discard_precision=_ratio(sum(not j.truth_keep for j in discarded), len(discarded)),
        raw_keep_recall=_ratio(sum(j.nrem_keep for j in keep), len(keep)),
        raw_discard_precision=_ratio(sum(not j.truth_keep for j in raw_discarded), len(raw_discarded)),
        category_agreement=_ratio(
            sum(j.record is not None and j.record.category == j.truth["category"] for j in both_keep),
            len(both_keep),
        ),
        truth_keep=len(keep),
        tool_discarded=len(discarded),
        unmatched=sum(j.record is None for j in judged),
        truth_discard=truth_discard,
        leaked=truth_discard - sum(not j.truth_keep for j in discarded),
    )


@dataclass(frozen=True)
class ConfusionRow:
    category: str
    verdict: str
    items: int
    kept: int
    nrem_kept: int
    noop: int
    discarded: int
    unmatched: int
    top_labels: list[tuple[str, int]]


def confusion(judged: Sequence[Judged]) -> list[ConfusionRow]:
    """Per truth category: how many items the tool kept (effective and raw), no-op'd, discarded."""
    groups: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        groups[j.truth["category"]].append(j)
    rows = []
    for category in (*KEEP_CATEGORIES, *DISCARD_CATEGORIES):
        members = groups.get(category, [])
        if not members:
            continue
        rows.append(
            ConfusionRow(
                category=category,
                verdict=members[0].truth["verdict"],
                items=len(members),
                kept=sum(j.effective_keep for j in members),
                nrem_kept=sum(j.nrem_keep for j in members),
                noop=sum(j.record is not None and j.record.operation == "noop" for j in members),
                discarded=sum(j.record is not None and not j.effective_keep for j in members),
                unmatched=sum(j.record is None for j in members),
                top_labels=Counter(j.label for j in members).most_common(4),
            )
        )
    return rows


def missed_keeps(judged: Sequence[Judged], limit: int = 15) -> list[Judged]:
    """Truth KEEP items the tool did not keep, spread over the commonest (category, decision) patterns."""
    errors = [j for j in judged if j.truth_keep and not j.effective_keep]
    return _spread(errors, lambda j: MISS_WEIGHT.get(j.truth["category"], 1), limit)


def false_keeps(judged: Sequence[Judged], limit: int = 15) -> list[Judged]:
    """Truth DISCARD items the tool kept, those that changed MEMORY.md the most first."""
    errors = [j for j in judged if not j.truth_keep and j.effective_keep]

    def weight(j: Judged) -> int:
        record = j.record
        assert record is not None
        if record.verdict != "KEEP":
            return OPERATION_WEIGHT["closes"]
        return OPERATION_WEIGHT.get(record.operation or "pending", 1)

    return _spread(errors, weight, limit)


def _spread(errors: Sequence[Judged], weight: Callable[[Judged], int], limit: int) -> list[Judged]:
    """Round-robin over error patterns (truth category, tool label), heaviest patterns first; within
    a pattern, examples spaced evenly through the run rather than all from one note."""
    patterns: dict[tuple[str, str], list[Judged]] = defaultdict(list)
    for j in errors:
        patterns[(j.truth["category"], j.label)].append(j)
    order = sorted(patterns.items(), key=lambda pair: (-weight(pair[1][0]) * len(pair[1]), pair[0]))
    queues = [_spaced(members, limit) for _, members in order]
    chosen: list[Judged] = []
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def _spaced(members: list[Judged], count: int) -> list[Judged]:
    if len(members) <= count:
        return list(members)
    step = len(members) / count
    return [members[int(index * step)] for index in range(count)]
