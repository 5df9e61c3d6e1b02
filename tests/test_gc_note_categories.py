"""GC's reading of the note-state files, kept between passes: a file is parsed again only when its
bytes changed, and the kept reading is what parsing the file gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_sleep.gc.note_categories import NoteCategories
from memory_sleep.workspace.state import ItemRecord, NoteState, StateStore, dump

NAME = "2026-11-01.md"


def _write(store: StateStore, **lines: ItemRecord) -> None:
    state = NoteState(sha256="0" * 64, size=1, mtime_ns=1, items=lines)
    store.note_file(NAME).parent.mkdir(parents=True, exist_ok=True)
    store.note_file(NAME).write_bytes(dump(state))


def _fact(line: int) -> ItemRecord:
    return ItemRecord(line=line, verdict="KEEP", category="fact")


def test_an_unchanged_state_file_is_not_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = StateStore(tmp_path)
    _write(store, a=_fact(3), b=ItemRecord(line=5, verdict="DISCARD", discard_reason="routine"))
    first = NoteCategories(store, None)
    assert first.of(NAME) == {3: "fact", 5: "routine"}

    def unread(name: str) -> None:
        raise AssertionError(f"{name} parsed again")

    monkeypatch.setattr(store, "load_note", unread)
    assert NoteCategories(store, first.dumped()).of(NAME) == {3: "fact", 5: "routine"}


def test_a_changed_state_file_is_read_again(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    _write(store, a=_fact(3))
    kept = NoteCategories(store, None)
    kept.of(NAME)
    _write(store, a=ItemRecord(line=3, verdict="KEEP", category="lesson"), b=_fact(9))
    assert NoteCategories(store, kept.dumped()).of(NAME) == {3: "lesson", 9: "fact"}
    store.note_file(NAME).unlink()
    assert NoteCategories(store, kept.dumped()).of(NAME) == {}


@pytest.mark.parametrize("cached", ["", "{", '{"version": 0, "notes": {}}', '{"version": 1, "notes": 3}'])
def test_a_kept_reading_that_is_not_this_version_is_ignored(tmp_path: Path, cached: str) -> None:
    store = StateStore(tmp_path)
    _write(store, a=_fact(3))
    assert NoteCategories(store, cached).of(NAME) == {3: "fact"}
