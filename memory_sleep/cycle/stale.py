"""The end of REM: archive entries of finished projects and entries nobody used."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import NamedTuple

from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.models import EntryJudgement
from memory_sleep.workspace.archive import stale_reason
from memory_sleep.workspace.memory_doc import Entry
from memory_sleep.workspace.state import EntryRecord

_KEEP_FOR_FINISHED = frozenset({"Lessons", "People"})


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


def remove_stale(
    editor: DocumentEditor,
    entry_records: dict[str, EntryRecord],
    finished_projects: set[str],
    judgements: dict[str, EntryJudgement],
    today: date,
    stale_after_days: int,
    budget: int,
) -> StaleResult:
    """Archive edits for up to `budget` entries: those about finished business first (a finished
    project, or what the engine judged `ended`), then those nobody used lately."""
    result = StaleResult()
    candidates: list[_Candidate] = []
    horizon = today - timedelta(days=stale_after_days)
    for ref, section, entry in editor.entries():
        record = entry_records.get(entry.key)
        written = entry.day or (record.first_seen if record else today)
        last_used = max(written, record.last_referenced) if record else written
        judged = judgements.get(ref)
        if entry.topic in finished_projects and section not in _KEEP_FOR_FINISHED:
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
