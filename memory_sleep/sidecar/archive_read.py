"""archive.md read again each night only where the file grew, and its rows met only where it grew.

archive.md is append-only and every run appends to it, so the index pass reads it every night; read
whole, and its items matched against every row of it, a year of history cost more than the rest of the
pass. What the last pass read is kept in the sidecar's meta (`archive_items`): the length and digest
of the text, its lines and last heading's day, the content hash of the file as the index last stored
it, and how many rows the file had after that pass. When the file still starts with that text, the
index stored that pass, and the file's rows are as many as then (none erased for good), the rows of
the text read are those that pass left: each of its items holds one row that is not deleted as
removed, and no other row of the file is live. Only the lines after it are read (from the heading
day above them), and only the rows holding their items' content are read: an item whose content a
row holds (not deleted as removed) repeats one read before and is dropped as a whole read drops it;
the others are synced as a whole read syncs them. Anything else (edited by hand, undone, another
path, erased rows, a state of another version or unreadable) is read whole, as the first pass did.
"""

from __future__ import annotations

import hashlib
from datetime import date

from pydantic import ValidationError

from memory_sleep.models import Strict
from memory_sleep.sidecar.boundary import SidecarStore, in_namespace
from memory_sleep.sidecar.rows import ENTRY_COLUMNS, INDEX_REASONS, EntryRow, SourceRow
from memory_sleep.sidecar.sources import SourceFile, SourceItem, record_items, unique_items
from memory_sleep.workspace.archive import records_in

STATE_KEY = "archive_items"
VERSION = 2  # of what is kept of the text read: a state of another version is dropped
_AT_ONCE = 500


class ArchiveRead(Strict):
    """The text last read (its length, digest, lines and last heading's day), the file's content hash
    as the index stored it then, and its rows after that pass."""

    version: int = VERSION
    path: str
    chars: int
    digest: str
    lines: int
    day: str | None
    stored: str
    rows: int


class Appended:
    """The items of the lines appended since the last pass that no row of the text read holds, the
    rows of the file holding their content, and the state to keep once they are synced."""

    def __init__(self, items: list[SourceItem], rows: list[EntryRow], kept: ArchiveRead) -> None:
        self.items, self.rows, self.kept = items, rows, kept

    def state(self, inserted: int) -> str:
        return self.kept.model_copy(update={"rows": self.kept.rows + inserted}).model_dump_json()


def appended(
    store: SidecarStore, source: SourceFile, text: str, stored: SourceRow | None, row: SourceRow
) -> Appended | None:
    """What the lines appended to archive.md's `text` since the last pass add, when that pass's state
    holds (None: read the file whole). `stored` is the file as the index stored it last, `row` as this
    pass stores it."""
    last = _last_read(store, source, text, stored)
    if last is None or not text.endswith("\n"):
        return None
    lines = text.splitlines()
    records, day = records_in(lines[last.lines :], last.lines + 1, date_or_none(last.day))
    items = unique_items(source, record_items(records), {})
    rows = _rows_holding(store, source.key, list(items))
    read_before = {found.content_hash for found in rows if not _removed(found)}
    kept = _read_state(source, text, len(lines), day, row, last.rows)
    return Appended(
        [item for content, item in items.items() if content not in read_before],
        [found for found in rows if found.content_hash not in read_before],
        kept,
    )


def whole_read(source: SourceFile, text: str, row: SourceRow, rows: int) -> str | None:
    """The state to keep after reading `text` whole, its file then having `rows` rows (None when
    `text` does not end a line: it is read whole next time too)."""
    if not text.endswith("\n"):
        return None
    lines = text.splitlines()
    _, day = records_in(lines)
    return _read_state(source, text, len(lines), day, row, rows).model_dump_json()


def _read_state(
    source: SourceFile, text: str, lines: int, day: date | None, row: SourceRow, rows: int
) -> ArchiveRead:
    """What a pass keeps of archive.md read up to the end of `text` (`lines` lines): its size, digest,
    line count, last day, the stored row's hash and the file's row count."""
    return ArchiveRead(
        path=source.relative,
        chars=len(text),
        digest=_digest(text),
        lines=lines,
        day=day.isoformat() if day else None,
        stored=row.content_hash,
        rows=rows,
    )


def _last_read(
    store: SidecarStore, source: SourceFile, text: str, stored: SourceRow | None
) -> ArchiveRead | None:
    """The kept state, when `text` starts with the text it was read from, the index stored that pass
    and the file has as many rows as it left."""
    raw = store.meta(STATE_KEY)
    if raw is None:
        return None
    try:
        last = ArchiveRead.model_validate_json(raw)
    except ValidationError:
        return None
    if (
        last.version != VERSION
        or last.path != source.relative
        or stored is None
        or stored.content_hash != last.stored
        or _digest(text[: last.chars]) != last.digest
        or row_count(store, source.key) != last.rows
    ):
        return None
    return last


def row_count(store: SidecarStore, key: str) -> int:
    """How many rows (live or deleted) the file has."""
    where, params = in_namespace(store)
    found = store.db.execute(f"SELECT count(*) FROM entries WHERE source_key = ?{where}", (key, *params))
    return int(found.fetchone()[0])


def _rows_holding(store: SidecarStore, key: str, contents: list[str]) -> list[EntryRow]:
    """The file's rows holding any of `contents`, in id order."""
    where, params = in_namespace(store)
    found: list[EntryRow] = []
    for start in range(0, len(contents), _AT_ONCE):
        chunk = contents[start : start + _AT_ONCE]
        found.extend(
            EntryRow.read(values)
            for values in store.db.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE source_key = ?{where}"
                f" AND content_hash IN ({','.join('?' * len(chunk))})",
                (key, *params, *chunk),
            )
        )
    return sorted(found, key=lambda found_row: found_row.id)


def _removed(row: EntryRow) -> bool:
    """Deleted by the index as no longer in its file (not by GC or a user: those rows keep their item)."""
    return row.deleted_at is not None and row.deleted_reason in INDEX_REASONS


def date_or_none(day: str | None) -> date | None:
    return date.fromisoformat(day) if day else None


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
