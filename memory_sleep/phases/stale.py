"""The end of REM: archive finished actions, entries of finished projects and entries nobody used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple
from datetime import date, timedelta

from ..archive import ArchiveRecord
from ..memory_doc import Entry, MemoryDocument
from ..models import KeptItem
from ..state import EntryRecord
from ..text import similarity, tokens

_DONE_SIMILARITY = 0.6
_KEEP_FOR_FINISHED = frozenset({"Lessons", "People"})


class _Candidate(NamedTuple):
    rank: int
    written: date
    section: str
    entry: Entry
    reason: str


@dataclass
class StaleResult:
    archived: list[ArchiveRecord] = field(default_factory=list)
    deferred: int = 0


def remove_stale(
    document: MemoryDocument,
    entry_records: dict[str, EntryRecord],
    completions: Sequence[KeptItem],
    finished_projects: set[str],
    today: date,
    stale_after_days: int,
    budget: int,
) -> StaleResult:
    """Move up to `budget` entries to the archive: done actions first, then finished projects, then old ones."""
    result = StaleResult()
    candidates: list[_Candidate] = []
    done_words = [(kept, tokens(kept.item.text)) for kept in completions]
    horizon = today - timedelta(days=stale_after_days)
    for section, entry in document.entries():
        record = entry_records.get(entry.key)
        written = entry.day or (record.first_seen if record else today)
        last_used = max(written, record.last_referenced) if record else written
        words = tokens(entry.text)
        if section.title == "Action items":
            closing = next(
                (
                    k
                    for k, w in done_words
                    if k.item.day >= written
                    and similarity(words, w) >= _DONE_SIMILARITY
                    and (not entry.topic or not k.topic or k.topic == entry.topic)
                ),
                None,
            )
            if closing is not None:
                candidates.append(
                    _Candidate(0, written, section.title, entry, f"done ({closing.item.source})")
                )
                continue
        if entry.topic in finished_projects and section.title not in _KEEP_FOR_FINISHED:
            candidates.append(_Candidate(1, written, section.title, entry, f"project {entry.topic} finished"))
        elif last_used < horizon:
            reason = f"stale: no reference since {last_used.isoformat()}"
            candidates.append(_Candidate(2, written, section.title, entry, reason))
    candidates.sort(key=lambda c: (c.rank, c.written))
    for position, candidate in enumerate(candidates):
        if position >= budget:
            result.deferred = len(candidates) - budget
            break
        record = ArchiveRecord(today, candidate.section, candidate.entry.display(), candidate.reason)
        result.archived.append(record)
        document.remove_entry(candidate.entry)
    return result
