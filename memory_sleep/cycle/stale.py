"""The end of REM: archive entries of finished projects and entries nobody used."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import pairwise
from typing import NamedTuple

from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.models import EntryJudgement
from memory_sleep.text import names_day_after
from memory_sleep.workspace.archive import stale_reason
from memory_sleep.workspace.memory_doc import Entry
from memory_sleep.workspace.state import EntryRecord

_KEEP_FOR_FINISHED = frozenset({"Lessons", "People"})
PAUSE_DAYS = 7  # more days than this with no note, after a note, is a pause: memory does not age in it


class _Candidate(NamedTuple):
    rank: int
    written: date
    section: str
    entry: Entry
    reason: str


@dataclass
class StaleResult:
    edits: list[Edit] = field(default_factory=list)
    deferred: int = 0


def stale_horizon(note_days: Collection[date], today: date, stale_after_days: int) -> date:
    """The day before which what nobody used is stale: `stale_after_days` ago, not counting the days
    of a pause (more than PAUSE_DAYS with no note between two notes, or since the last note), so an
    agent back from a pause, or a first run on notes months old, does not find its memory aged by
    the days nobody worked. Days before the first note count: nothing says the work stopped then."""
    points = [*sorted({day for day in note_days if day < today}), today]
    paused = {
        before + timedelta(days=n)
        for before, after in pairwise(points)
        if (after - before).days - 1 > PAUSE_DAYS
        for n in range(1, (after - before).days)
    }
    horizon, counted = today, 0
    while counted < stale_after_days:
        counted += horizon not in paused
        horizon -= timedelta(days=1)
    return horizon


def remove_stale(
    editor: DocumentEditor,
    entry_records: dict[str, EntryRecord],
    finished_projects: set[str],
    judgements: dict[str, EntryJudgement],
    today: date,
    horizon: date,
    budget: int,
) -> StaleResult:
    """Archive edits for up to `budget` entries: those about finished business first (a finished
    project, but for what it says happens after today: "delete the bucket on or after 2026-12-16";
    or what the engine judged `ended`), then those nobody used since `horizon`."""
    result = StaleResult()
    candidates: list[_Candidate] = []
    for ref, section, entry in editor.entries():
        record = entry_records.get(entry.key)
        written = entry.day or (record.first_seen if record else today)
        last_used = max(written, record.last_referenced) if record else written
        judged = judgements.get(ref)
        if (
            entry.topic in finished_projects
            and section not in _KEEP_FOR_FINISHED
            and not names_day_after(entry.text, today)
        ):
            candidates.append(_Candidate(1, written, section, entry, f"project {entry.topic} finished"))
        elif judged is not None and judged.kind == "ended":
            candidates.append(_Candidate(1, written, section, entry, judged.reason or "finished"))
        elif last_used < horizon:
            candidates.append(_Candidate(2, written, section, entry, stale_reason(last_used)))
    candidates.sort(key=lambda c: (c.rank, c.written))
    for position, candidate in enumerate(candidates):
        if position >= budget:
            result.deferred = len(candidates) - budget
            break
        finished = candidate.rank == 1  # finished business, not mere disuse
        result.edits.append(
            editor.archive(candidate.entry, candidate.reason, ends="finished" if finished else None)
        )
    return result
