"""Contradiction resolution: a newer entry that states an older one's attribute otherwise ends it
(issue 19, item 6).

Each still valid entry is paired with its `[memory.gc.contradiction] neighbours` most similar ones
(sidecar vectors, same scope); the engine judges each (newer, older) pair once where the older is a
MEMORY.md entry, a statement of how things stand (a note item says what happened on its day, which
stays true; its validity follows the MEMORY.md entry it became). `supersedes` marks
the older no longer valid, linked to the newer; `uncertain` is listed for review and never applied;
a related topic (`same_subject_different_fact`) or `unrelated` changes nothing. Without a day on
both entries nothing says which is newer, so a supersede between them is only listed for review.
The engine sees where each was written: a note item's section of its note, a MEMORY.md entry's the
note item's it was written from (`written_from`), for a field ("Port:") names a thing only there.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal

from memory_sleep.engines.base import PairJudgement
from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.alike_memo import asked_once
from memory_sleep.gc.neighbours import (
    entry_view,
    in_time_order,
    nearest,
    with_vectors,
    within_reach,
    written_from,
)
from memory_sleep.models import EntryView
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.text import shorten

JUDGED_KINDS = ("memory", "note")
_NO_CHANGE = ("same_subject_different_fact", "unrelated")
_AS_BEFORE = PairJudgement("unrelated", "judged to change nothing before, shown the same")


class Contradiction:
    name: StrategyName = "contradiction"

    def plan(self, context: GcContext) -> list[GcAction]:
        pairs = candidate_pairs(context)
        if not pairs:
            return []
        items = written_from(context.entries, (row for pair in pairs for row in pair))
        views = [
            (entry_view(newer, "E1", items.get(newer.id)), entry_view(older, "E2", items.get(older.id)))
            for newer, older in pairs
        ]
        return resolved(pairs, _judged(context, views))


def _judged(context: GcContext, views: list[tuple[EntryView, EntryView]]) -> list[PairJudgement]:
    """The engine's judgement of each pair; one it judged to change nothing last pass, shown the same
    way, changes nothing again without asking (its answer depends on what it is shown alone)."""
    engine = f"{context.engine.name} {context.engine.model}"
    return asked_once(
        context.judged,
        engine,
        views,
        context.engine.gardener.judge,
        lambda judgement: judgement.verdict in _NO_CHANGE,
        _AS_BEFORE,
    )


def candidate_pairs(context: GcContext) -> list[tuple[EntryRow, EntryRow]]:
    """(newer, older) pairs of still valid entries, each entry with its most similar ones, each pair once."""
    rows = [
        entry
        for entry in context.entries
        if entry.kind in JUDGED_KINDS and entry.valid_to is None and not entry.discarded
    ]
    kept, matrix = with_vectors(in_time_order(rows), context.sidecar.vectors())
    k = context.config.contradiction.neighbours
    # a pair's older entry is a MEMORY.md entry: only the rows that may have one among their nearest
    targets = [position for position, row in enumerate(kept) if row.kind == "memory"]
    ranked = within_reach(matrix, targets, k)
    pairs: set[tuple[int, int]] = set()
    for position, neighbours in zip(ranked, nearest(matrix, k, ranked, targets), strict=True):
        for other in neighbours:
            newer, older = max(position, other), min(position, other)  # kept is oldest first
            if kept[older].kind == "memory" and kept[newer].text.strip() != kept[older].text.strip():
                pairs.add((newer, older))
    return [(kept[newer], kept[older]) for newer, older in sorted(pairs)]


def resolved(
    pairs: Sequence[tuple[EntryRow, EntryRow]], judgements: Sequence[PairJudgement]
) -> list[GcAction]:
    """A supersede per older entry (by its newest superseder), reviews for the uncertain rest."""
    superseded: dict[int, GcAction] = {}
    reviews: list[GcAction] = []
    for (newer, older), judgement in zip(pairs, judgements, strict=True):
        if judgement.verdict == "supersedes" and _known_newer(newer, older):
            superseded[older.id] = _action("supersede", newer, older, judgement.reason)
        elif judgement.verdict == "uncertain" or judgement.verdict == "supersedes":
            reviews.append(_action("review", newer, older, judgement.reason))
    return [
        *superseded.values(),
        *(review for review in reviews if review.ids[0] not in superseded),
    ]


def _known_newer(newer: EntryRow, older: EntryRow) -> bool:
    """Their days say which is newer, or on one day, their lines in one note do."""
    if newer.day is None or older.day is None:
        return False
    same_note = newer.source_key == older.source_key and newer.line_start > older.line_start
    return newer.day > older.day or (newer.day == older.day and same_note)


def _action(op: Literal["supersede", "review"], newer: EntryRow, older: EntryRow, reason: str) -> GcAction:
    said = f"“{shorten(newer.text, 80)}” over “{shorten(older.text, 80)}”: {reason}"
    return GcAction(
        strategy="contradiction",
        op=op,
        ids=[older.id],
        into=newer.id,
        reason=shorten(said, 300),
        day=date.fromisoformat(newer.day) if newer.day else None,
    )
