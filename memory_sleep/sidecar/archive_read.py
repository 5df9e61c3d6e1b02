"""archive.md's items, read again each night only where the file grew.

archive.md is append-only and every run appends to it, so the index pass reads it every night; read
whole, a year of history cost more than the rest of the pass. The items of the text last read (secrets
redacted, repeats dropped, each with its content hash) are kept in the sidecar's meta
(`archive_items`), with a digest of that text. When the file still starts with that text, only the
lines after it are read, from the heading day above them; otherwise (edited by hand, undone, another
path, a state of another version or unreadable) the file is read whole, as the first pass did. The
kept items stay as they were kept (`KeptLine`) until the index needs one as a new row: a year of
archive is not made items again each night.
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import NamedTuple

from pydantic import ValidationError

from memory_sleep.models import Strict
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.sources import SourceFile, SourceItem, record_items, unique_items
from memory_sleep.workspace.archive import records_in

STATE_KEY = "archive_items"
VERSION = 1  # of how items are read from archive.md: a state of another version is dropped


class ArchiveRead(Strict):
    """The items of the text last read: its length, digest, lines and last heading's day."""

    version: int = VERSION
    path: str
    chars: int
    digest: str
    lines: int
    day: str | None
    items: list[tuple[int, str, str, str | None, str]]  # line, context, text, day, content hash


class KeptLine(NamedTuple):
    """An item of the text last read, as it was kept; `source_item` makes it the item it stands for."""

    line_start: int
    context: str
    text: str
    day: str | None
    content_hash: str

    @property
    def line_end(self) -> int:
        return self.line_start


ArchiveItem = SourceItem | KeptLine


def source_item(item: ArchiveItem) -> SourceItem:
    """The item `read_items` gives for it."""
    return _item(*item) if isinstance(item, KeptLine) else item


def read_archive(store: SidecarStore, source: SourceFile, text: str) -> tuple[list[ArchiveItem], str | None]:
    """The items of archive.md's `text`, as `read_items` gives them (those of the text last read as
    kept: `source_item` for each), and the state to keep for the next pass (None when `text` does not
    end a line: it is then read whole next time)."""
    last = _last_read(store, source, text)
    lines = text.splitlines()
    if last is None:
        last = ArchiveRead(path=source.relative, chars=0, digest=_digest(""), lines=0, day=None, items=[])
    unique: dict[str, ArchiveItem] = {kept[4]: KeptLine(*kept) for kept in last.items}
    records, day = records_in(lines[last.lines :], last.lines + 1, date_or_none(last.day))
    for content, item in unique_items(source, record_items(records), {}).items():
        unique.setdefault(content, item)  # the first of identical items stands for all
    items = list(unique.values())
    if not text.endswith("\n"):
        return items, None
    state = ArchiveRead.model_construct(  # made here, not read: validating a year's items cost ~0.03 s
        path=source.relative,
        chars=len(text),
        digest=_digest(text),
        lines=len(lines),
        day=day.isoformat() if day else None,
        items=[_kept(item) for item in items],
    )
    return items, state.model_dump_json()


def _last_read(store: SidecarStore, source: SourceFile, text: str) -> ArchiveRead | None:
    """The kept state, when `text` starts with the text it was read from."""
    raw = store.meta(STATE_KEY)
    if raw is None:
        return None
    try:
        last = ArchiveRead.model_validate_json(raw)
    except ValidationError:
        return None
    if last.version != VERSION or last.path != source.relative or _digest(text[: last.chars]) != last.digest:
        return None
    return last


def _kept(item: ArchiveItem) -> tuple[int, str, str, str | None, str]:
    if isinstance(item, KeptLine):
        return item  # kept as it was
    day = item.day.isoformat() if item.day else None
    return (item.line_start, item.context, item.text, day, item.content_hash)


def _item(line: int, context: str, text: str, day: str | None, content_hash: str) -> SourceItem:
    item = SourceItem("archive", line, line, context, text, date_or_none(day))
    item.__dict__["content_hash"] = content_hash  # as its cached property computed it when first read
    return item


def date_or_none(day: str | None) -> date | None:
    return date.fromisoformat(day) if day else None


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
