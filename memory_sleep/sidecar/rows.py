"""The rows the sidecar store reads and writes, and embeddings as SQLite BLOBs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
Endings = Mapping[int, tuple[str, str, str | None]]  # entry id: (valid_to, status, ended_by)
# every entry that has a status, as stored: id, valid_to, status, ended_by, whether GC's own supersede
STORED_ENDINGS = (
    "SELECT id, valid_to, status, ended_by, ended_by IS NOT NULL AND ended_by LIKE '%(gc:%' FROM entries"
)
# how `gc_link` ends for the GC strategies that merge entries into another ("entry 2436 (gc:compaction)")
GC_MOVED = ("(gc:compaction)", "(gc:summarization)")
# store meta: the first day the workspace's notes speak for (the oldest note the index has seen)
CONTEXT_JOIN = " · "  # how a row's context joins its parts: a note's headings, a topic, a list's lead-in
FIRST_DAY_KEY = "first_note_day"
# why the index soft-deletes a row: its item left its file, or the file is gone
INDEX_REASONS = ("item-removed", "source-removed")
ENTRY_COLUMNS = (
    "id, source_key, source_path, kind, line_start, line_end, context, text, content_hash, day, scope,"
    " importance, created_at, updated_at, last_accessed_at, access_count, expires_at, deleted_at,"
    " deleted_reason, deleted_pass, valid_to, status, ended_by, discarded"
)


@dataclass(frozen=True)
class EntryRow:
    """One indexed entry as stored (the embedding is read separately, in bulk)."""

    id: int
    source_key: str
    source_path: str
    kind: str
    line_start: int
    line_end: int
    context: str
    text: str
    content_hash: str
    day: str | None
    scope: str
    importance: float
    created_at: float
    updated_at: float
    last_accessed_at: float | None
    access_count: int
    expires_at: float | None
    deleted_at: float | None
    deleted_reason: str | None
    deleted_pass: str | None
    valid_to: str | None = None  # the day it stopped being true; it became true on `day`
    status: str | None = None  # superseded, done, finished, expired
    ended_by: str | None = None  # what ended it: a note line or an entry
    discarded: int = 0  # the run discarded it as noise (routine, debug output)

    def ended_on(self, day: str) -> bool:
        """Whether it had stopped being true by `day` (ISO)."""
        return self.valid_to is not None and self.valid_to <= day

    @classmethod
    def read(cls, row: Sequence[Any]) -> EntryRow:
        """The entry a row of ENTRY_COLUMNS holds: what `EntryRow(*row)` makes, without the frozen
        dataclass's __init__, which sets a field at a time through object.__setattr__ (reading a
        year's live entries took twice as long)."""
        entry = object.__new__(cls)
        entry.__dict__.update(zip(_ENTRY_FIELDS, row, strict=True))
        return entry


_ENTRY_FIELDS = tuple(field.name for field in fields(EntryRow))


class DatedMatch(NamedTuple):
    """A full-text match dated in a span: what reading what it states asks of it (recall reads
    hundreds a question, and fetches whole only the few that restate a result)."""

    id: int
    day: str
    text: str
    kind: str
    context: str
    source_path: str


@dataclass(frozen=True)
class SourceRow:
    key: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    content_hash: str


@dataclass(frozen=True)
class NewEntry:
    """What the indexer writes for one entry; `tokens` feed the full-text index."""

    source_key: str
    source_path: str
    kind: str
    line_start: int
    line_end: int
    context: str
    text: str
    content_hash: str
    day: str | None
    scope: str
    importance: float
    expires_at: float | None
    tokens: str
    discarded: bool = False

    @property
    def values_key(self) -> int:
        """What SleepGate tells copies of one statement by, beside its embedding (sidecar/statement.py)."""
        from memory_sleep.sidecar.statement import values_key  # statement.py reads EntryRow from here

        return values_key(self.text, self.kind)

    def columns(self, now: float) -> tuple[object, ...]:
        """Its values in both stores' column order, source_key to values_key (written `now`)."""
        return (
            self.source_key,
            self.source_path,
            self.kind,
            self.line_start,
            self.line_end,
            self.context,
            self.text,
            self.content_hash,
            self.day,
            self.scope,
            self.importance,
            now,
            now,
            self.expires_at,
            self.values_key,
        )

    def rewritten(self, now: float) -> tuple[object, ...]:
        """Its values for both stores' rewrite, in their SET order, source_path to values_key."""
        return (
            self.source_path,
            self.line_start,
            self.line_end,
            self.context,
            self.text,
            self.content_hash,
            self.day,
            self.scope,
            self.expires_at,
            now,
            self.values_key,
        )


def to_blob(vector: npt.NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes], dim: int) -> Vectors:
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(np.float32)


def day_timestamp(day: date) -> float:
    """Noon UTC of a day, as Unix seconds."""
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp()


def gc_link(into: int, strategy: str) -> str:
    """`ended_by` of an entry GC replaced: the entry that replaced it, and by which strategy (indexing
    re-derives every other ending from the files, and keeps these: STORED_ENDINGS, GC_MOVED)."""
    return f"entry {into} (gc:{strategy})"


def text_link(into: int, text: str) -> str:
    """The ending of a MEMORY.md entry GC archived for another (its archive record's evidence): that
    entry and its text then, which says whether the row still holds it ("entry 2206: its text")."""
    return f"entry {into}: {' '.join(text.split())}"


_LINK = re.compile(r"entry (\d+)(?: \(gc:|: (?P<text>.*))", re.S)


def linked_entry(ended_by: str) -> tuple[int, str | None] | None:
    """The entry id a `gc_link` or `text_link` names, with the text the latter says; None for an
    ending that names a line ("memory/2026-11-14.md:3")."""
    found = _LINK.match(ended_by)
    return (int(found.group(1)), found.group("text")) if found else None


def places(rows: Iterable[EntryRow]) -> list[str]:
    """Where rows stand, as recall shows them: ['MEMORY.md:21', 'memory/weekly/2026-W47.md:9']."""
    return [f"{row.source_path}:{row.line_start}" for row in rows]


def merge_link(row: EntryRow) -> str | None:
    """`ended_by` of the entries GC merged into `row`, when GC wrote it (a compaction's statement, a
    summary: gc/apply.py names its source_path "gc:STRATEGY"); None for an entry of the files."""
    strategy = row.source_path.removeprefix("gc:")
    return gc_link(row.id, strategy) if strategy != row.source_path else None


def validity_writes(
    stored: Iterable[tuple[int, str, str, str | None, object]], endings: Endings
) -> tuple[list[tuple[int]], list[tuple[str, str, str | None, int]]]:
    """What turns the `stored` endings (STORED_ENDINGS' rows) into `endings` and leaves GC's own
    supersedes outside them as they are: the ids valid again, and the endings not stored as they are.
    An entry GC merged into another keeps its link whatever the files say of it since: it names where
    its statement lives on, which recall follows (a line superseded by one GC compacted away, then
    the merged entry, whose project finished since). A night changes a few endings of thousands;
    rewriting only those keeps its write flat."""
    cleared = []
    kept: dict[int, tuple[str, str, str | None]] = {}
    moved = set()
    for entry_id, valid_to, status, ended_by, by_gc in stored:
        kept[entry_id] = (valid_to, status, ended_by)
        if by_gc and ended_by is not None and ended_by.endswith(GC_MOVED):
            moved.add(entry_id)
        elif entry_id not in endings and not by_gc:
            cleared.append((entry_id,))
    changed = [
        (*ending, entry_id)
        for entry_id, ending in endings.items()
        if entry_id not in moved and kept.get(entry_id) != ending
    ]
    return cleared, changed
