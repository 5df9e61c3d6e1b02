"""The end of REM: archive finished actions, entries of finished projects and entries nobody used."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import NamedTuple

from .. import absences, matching
from ..archive import ArchiveRecord
from ..memory_doc import Entry, MemoryDocument
from ..models import KeptItem
from ..state import EntryRecord
from ..text import similarity, tokens

_DONE_SIMILARITY = 0.25
_STEM = re.compile(r"(?:ed|ing|es|s)$")
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


def close_done_actions(
    document: MemoryDocument, completions: Sequence[KeptItem], today: date
) -> list[ArchiveRecord]:
    """Archive the open action entries that later notes report done (each note closes its best match)."""
    records = []
    closed = _closed_actions(document, completions)
    for section, entry in list(document.entries()):
        source = closed.get(id(entry))
        if source is not None:
            records.append(ArchiveRecord(today, section.title, entry.display(), f"done ({source})"))
            document.remove_entry(entry)
    return records


def remove_stale(
    document: MemoryDocument,
    entry_records: dict[str, EntryRecord],
    finished_projects: set[str],
    today: date,
    stale_after_days: int,
    budget: int,
) -> StaleResult:
    """Archive up to `budget` entries: those about finished business first (a finished project, an
    absence that is over), then those nobody used lately."""
    result = StaleResult()
    candidates: list[_Candidate] = []
    horizon = today - timedelta(days=stale_after_days)
    for section, entry in document.entries():
        record = entry_records.get(entry.key)
        written = entry.day or (record.first_seen if record else today)
        last_used = max(written, record.last_referenced) if record else written
        if entry.topic in finished_projects and section.title not in _KEEP_FOR_FINISHED:
            candidates.append(_Candidate(1, written, section.title, entry, f"project {entry.topic} finished"))
        elif (away := absences.ended_before(entry.text, today)) is not None:
            reason = f"finished: the absence it announces ended {away.end.isoformat()}"
            candidates.append(_Candidate(1, written, section.title, entry, reason))
        elif last_used < horizon:
            reason = f"stale: no reference since {last_used.isoformat()}"
            candidates.append(_Candidate(2, written, section.title, entry, reason))
    candidates.sort(key=lambda c: (c.rank, c.written))
    for position, candidate in enumerate(candidates):
        if position >= budget:
            result.deferred = len(candidates) - budget
            break
        removed = ArchiveRecord(today, candidate.section, candidate.entry.display(), candidate.reason)
        result.archived.append(removed)
        document.remove_entry(candidate.entry)
    return result


def _closed_actions(document: MemoryDocument, completions: Sequence[KeptItem]) -> dict[int, str]:
    """Open action entries that a completion note reports done: each note closes its best match."""
    actions = [
        (entry, _informative(tokens(entry.text)))
        for section, entry in document.entries()
        if section.title == "Action items"
    ]
    closed: dict[int, str] = {}
    for kept in completions:
        words = _informative(tokens(kept.item.text))
        best, best_score = None, 0.0
        for entry, entry_words in actions:
            if id(entry) in closed or (entry.day and kept.item.day < entry.day):
                continue
            if entry.topic and kept.topic and entry.topic != kept.topic:
                continue
            if matching.values_conflict(entry.text, kept.item.text, matching.IDENTITY_KINDS):
                continue  # "migrate off build-box-10" is not "migrate off aws-euc1-06"
            shared = len(words & entry_words)
            score = similarity(words, entry_words)
            if shared >= 2 and score >= _DONE_SIMILARITY and score > best_score:
                best, best_score = entry, score
        if best is not None:
            closed[id(best)] = kept.item.source
    return closed


def _informative(words: frozenset[str]) -> frozenset[str]:
    """Words long enough to carry meaning, crudely stemmed so that "renew" matches "renewed"."""
    return frozenset(_STEM.sub("", word) for word in words if len(word) >= 4 and not word.isdigit())
