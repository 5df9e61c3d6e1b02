"""The index pass reads only the lines appended to archive.md since the last pass, and gets exactly the
items a whole read gives: after appends, a hand edit, an undo, a file that does not end a line, and
with the kept state missing, of another path or version, or unreadable."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import cast

import pytest

from memory_sleep.sidecar import archive_read, sources
from memory_sleep.sidecar.archive_read import STATE_KEY, ArchiveRead, read_archive, source_item
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.sources import SourceFile, SourceItem, read_items
from memory_sleep.workspace.archive import ARCHIVE_HEADER
from tests.sidecar_helpers import open_at
from tests.validity_helpers import run_nights

KEY = "sk-ant-api03-" + "A" * 90  # a secret: redacted with the line it stands on
FIRST = (
    f"{ARCHIVE_HEADER}\n## 2026-11-12\n"
    "- Orion uses MySQL for the main database (2026-11-10) — from Decisions; replaced"
    " [superseded 2026-11-12 by memory/2026-11-12.md:3]\n"
    "- Atlas ships on Fridays — from Decisions; MEMORY.md over memory_max_bytes (4,000)\n"
    f"- Orion deploy key is {KEY} — from Facts; replaced [superseded 2026-11-12]\n"
)
# under the last heading above it, then a heading of its own, and a repeat of an item above
APPENDED = (
    "- Orion staging IP is 10.0.0.5 (2026-11-11) — from Facts; replaced [superseded 2026-11-12]\n"
    "\n## 2026-11-14\n"
    "- Atlas ships on Fridays — from Decisions; MEMORY.md over memory_max_bytes (4,000)\n"
    "- Lisbon offsite venue to book (2026-11-10) — from Todo; done [done 2026-11-14]\n"
)
SOURCE = SourceFile("archive.md", Path("memory/archive.md"), "memory/archive.md", "archive")


class _Meta:
    """The sidecar's meta table, which is all read_archive reads."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def meta(self, key: str) -> str | None:
        return self.values.get(key)


def _read(meta: _Meta, text: str, source: SourceFile = SOURCE) -> list[SourceItem]:
    items, state = read_archive(cast(SidecarStore, meta), source, text)
    if state is not None:
        meta.values[STATE_KEY] = state
    return [source_item(item) for item in items]


def _full(text: str, source: SourceFile = SOURCE) -> list[tuple[object, ...]]:
    return _shown(read_items(source, text))


def _shown(items: list[SourceItem]) -> list[tuple[object, ...]]:
    return [(item, item.content_hash) for item in items]


def test_appended_lines_are_read_alone_and_the_items_are_the_whole_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    meta = _Meta()
    assert _shown(_read(meta, FIRST)) == _full(FIRST)
    redacted: Counter[str] = Counter()
    real = sources.redact

    def counted(text: str, where: str | None) -> str:
        redacted[str(where)] += 1
        return real(text, where)

    monkeypatch.setattr(sources, "redact", counted)
    grown = FIRST + APPENDED
    items = _read(meta, grown)
    assert set(redacted) == {"memory/archive.md:9", "memory/archive.md:12", "memory/archive.md:13"}
    assert _shown(items) == _full(grown)
    assert any(KEY not in item.text and "Orion deploy key" in item.text for item in items)
    assert [item.day for item in items if "staging" in item.text or "Lisbon" in item.text] == [
        sources.date(2026, 11, 11),
        sources.date(2026, 11, 10),
    ]


@pytest.mark.parametrize(
    "change",
    [
        "hand edit",
        "undo",
        "no final newline",
        "state missing",
        "state unreadable",
        "state of another version",
        "another path",
    ],
)
def test_every_change_reads_what_a_whole_read_gives(change: str) -> None:
    meta = _Meta()
    _read(meta, FIRST + APPENDED)
    text, source = FIRST + APPENDED + APPENDED.replace("Lisbon", "Porto"), SOURCE
    if change == "hand edit":
        text = text.replace("Orion uses MySQL", "Orion uses MariaDB")
    elif change == "undo":
        text = FIRST
    elif change == "no final newline":
        text = text.rstrip("\n")
    elif change == "state missing":
        meta.values.clear()
    elif change == "state unreadable":
        meta.values[STATE_KEY] = "{not json"
    elif change == "state of another version":
        kept = ArchiveRead.model_validate_json(meta.values[STATE_KEY])
        meta.values[STATE_KEY] = kept.model_copy(
            update={"version": archive_read.VERSION + 1}
        ).model_dump_json()
    else:
        source = SourceFile("archive.md", Path("notes/archive.md"), "notes/archive.md", "archive")
    assert _shown(_read(meta, text, source)) == _full(text, source)
    assert _shown(_read(meta, text + APPENDED, source)) == _full(text + APPENDED, source)


def test_the_index_keeps_the_archive_rows_a_fresh_index_makes(tmp_path: Path) -> None:
    """Night after night the archive is read from the kept state; its rows are those of a sidecar built
    afresh from the same files."""
    folder = run_nights(tmp_path / "nights")
    fresh = tmp_path / "fresh"
    shutil.copytree(folder, fresh, ignore=shutil.ignore_patterns("sidecar*"))
    rows = []
    for each in (folder, fresh):
        with open_at(each) as sidecar:
            sidecar.index()
            assert sidecar.store.meta(STATE_KEY) is not None
            rows.append(
                sorted(
                    sidecar.store.db.execute(
                        "SELECT line_start, context, text, day, content_hash FROM entries"
                        " WHERE kind = 'archive' AND deleted_at IS NULL"
                    )
                )
            )
    assert rows[0] and rows[0] == rows[1]


def test_an_archive_not_ending_a_line_leaves_no_copy_of_the_last_read(tmp_path: Path) -> None:
    """Nothing to start from next time: the kept items of the last read go (a scrubbed line with them)."""
    folder = run_nights(tmp_path)
    archive = folder / "memory" / "archive.md"
    with open_at(folder) as sidecar:
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is not None
        archive.write_text(FIRST.rstrip("\n"), encoding="utf-8")
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is None
        archive.write_text(FIRST, encoding="utf-8")
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is not None


def test_a_kept_item_whose_row_was_erased_comes_back_as_a_whole_read_brings_it(tmp_path: Path) -> None:
    """A kept item is made an item again only when the index needs a row for it: its row erased for
    good (a purge), the next pass over the grown archive adds it back as reading the file whole does."""
    folder = run_nights(tmp_path / "nights")
    found = []
    for whole in (False, True):
        copy = shutil.copytree(folder, tmp_path / f"whole-{whole}")
        with open_at(copy) as sidecar:
            sidecar.index()
            store = sidecar.store
            first = "SELECT id, text FROM entries WHERE kind = 'archive' AND deleted_at IS NULL ORDER BY id"
            erased, text = next(iter(store.db.execute(first)))
            store.hard_delete([erased], [])
            if whole:
                with store.transaction():
                    store.delete_meta(STATE_KEY)
            with (copy / "memory" / "archive.md").open("a", encoding="utf-8") as archive:
                archive.write(APPENDED)
            sidecar.index()
            assert store.meta(STATE_KEY) is not None
            found.append(
                sorted(
                    store.db.execute(
                        "SELECT line_start, context, text, day, content_hash, deleted_at IS NULL, importance"
                        " FROM entries WHERE kind = 'archive'"
                    )
                )
            )
            assert text in {row[2] for row in found[-1]}
    assert found[0] == found[1]
