"""archive.md's lines' entries parsed once and kept for the next run: a line the last run parsed is
not parsed again, a line changed or appended since is, and what a run reads is what parsing every
line gives."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.cycle.archive_displays import NAME, ArchiveDisplays
from memory_sleep.forget.scope import derived_caches
from memory_sleep.workspace import archive
from memory_sleep.workspace.archive import displayed_entry, ended_statements, parse_from, records_since
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import Entry, entry_from_display

from .conftest import run_offline

LINES = [
    "[Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17)",
    "Beta lives at beta.internal (2026-10-02)",
    "Gamma — from the wiki — uses Postgres 16",
    "[ ] not an entry's topic (2026-10-03)",
    "",
]


@pytest.fixture(autouse=True)
def _fresh_parse():  # type: ignore[no-untyped-def]
    yield
    parse_from(lambda _: archive.UNKNOWN)  # no other test reads this one's parse


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []

    def counting(line: str) -> Entry | None:
        parsed.append(line)
        return entry_from_display(line)

    monkeypatch.setattr(archive, "entry_from_display", counting)
    return parsed


def _run(folder: Path, lines: list[str]) -> list[object]:
    """A run's reading of `lines`, the parse kept in `folder` before and after it."""
    displays = ArchiveDisplays(folder)
    displays.start()
    found = _read(lines)
    displays.save()
    return found


def _read(lines: list[str]) -> list[object]:
    return [
        None if (found := displayed_entry(line)) is None else (found[0], vars(found[1])) for line in lines
    ]


def _cold(lines: list[str]) -> list[object]:
    parse_from(lambda _: archive.UNKNOWN)
    return _read(lines)


def test_a_line_the_last_run_parsed_is_read_back_as_parsing_it_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _cold(LINES)
    parsed = _parses(monkeypatch)
    assert _run(tmp_path, LINES) == cold and parsed == LINES
    assert (tmp_path / NAME).exists()
    parsed.clear()
    assert _run(tmp_path, [*LINES, *LINES]) == [*cold, *cold] and parsed == []


def test_a_line_changed_since_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _run(tmp_path, LINES)
    changed = [LINES[0].replace("10.9.24.84", "10.9.86.105"), *LINES[1:], "Delta is new (2026-11-01)"]
    cold = _cold(changed)
    parsed = _parses(monkeypatch)
    assert _run(tmp_path, changed) == cold
    assert parsed == [changed[0], changed[-1]]


def test_what_ended_is_read_from_the_kept_parse_as_from_the_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "## 2026-10-28\n- Beta lives at beta.internal (2026-10-02) — from Facts; superseded by x"
        " [superseded 2026-10-28 by memory/2026-10-28.md:4]\n"
    )
    cold = ended_statements(text)
    _run(tmp_path, ["Beta lives at beta.internal (2026-10-02)"])
    parsed = _parses(monkeypatch)
    ArchiveDisplays(tmp_path).start()
    # another file's text (not one appending to the last read): its records are read again
    assert ended_statements(f"# Archive\n\n{text}") == cold and parsed == []


def _ended_anew(text: str) -> list[tuple[Entry, object]]:
    """What ended_statements says of `text`, from every record of it, parsed now."""
    latest: dict[str, tuple[Entry, object]] = {}
    for record in records_since(text, date.min):
        entry = entry_from_display(record.entry)
        if entry is not None:
            latest.pop(entry.key, None)
            latest[entry.key] = (Entry(entry.text, entry.topic, entry.day), record.ended)
    return [(entry, ended) for entry, ended in latest.values() if ended is not None]


def test_what_ended_follows_the_file_appended_to_undone_or_edited_by_hand() -> None:
    """Each text is read as it is: one appending to the last read reads only what it appends, and one
    that does not (an undone run, a line edited by hand) is read whole, never from the last read."""
    first = (
        "## 2026-10-28\n- Beta lives at beta.internal (2026-10-02) — from Facts; superseded by x"
        " [superseded 2026-10-28 by memory/2026-10-28.md:4]\n"
    )
    appended = (
        f"{first}\n## 2026-10-29\n- Beta lives at beta.internal (2026-10-02) — from Facts;"
        " MEMORY.md over memory_max_bytes (16,384)\n- Gamma ships on Fridays (2026-10-03) — from Facts;"
        " done [done 2026-10-29 by memory/2026-10-29.md:2]\n"
    )
    edited = appended.replace("Gamma ships on Fridays", "Gamma ships on Mondays")
    for text in (first, appended, edited, first, appended.replace("[done", "[finished")):
        assert ended_statements(text) == _ended_anew(text)
    # the run's own records after the file's: Beta, archived for room since, is no longer ended
    assert ended_statements(first, list(records_since(appended, date(2026, 10, 29)))) == _ended_anew(appended)


def test_a_run_reads_what_ended_from_its_own_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """What ended is kept between the reads of one run, not from one run to the next."""
    text = (
        "## 2026-10-28\n- Beta lives at beta.internal (2026-10-02) — from Facts; superseded by x"
        " [superseded 2026-10-28 by memory/2026-10-28.md:4]\n"
    )
    assert [old.text for old, _ in ended_statements(text)] == ["Beta lives at beta.internal"]
    monkeypatch.setattr(archive, "entry_from_display", lambda _: Entry("other text", None, None))
    parse_from(lambda _: archive.UNKNOWN)
    assert [old.text for old, _ in ended_statements(text)] == ["other text"]


def test_a_night_that_reads_the_same_lines_writes_nothing(tmp_path: Path) -> None:
    _run(tmp_path, LINES)
    (tmp_path / NAME).touch()
    touched = (tmp_path / NAME).stat().st_mtime_ns
    _run(tmp_path, LINES)
    assert (tmp_path / NAME).stat().st_mtime_ns == touched
    _run(tmp_path, LINES[1:])  # only the last run's lines are kept: the file never grows past a run's
    assert len(json.loads((tmp_path / NAME).read_text())["lines"]) == len(LINES) - 1


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        json.dumps({"version": 0, "lines": {}}).encode(),
        json.dumps({"version": 1, "lines": {"x": [1, 2]}}).encode(),
        json.dumps({"version": 1, "lines": []}).encode(),
    ],
)
def test_a_damaged_file_or_another_version_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    cold = _cold(LINES)
    (tmp_path / NAME).write_bytes(content)
    parsed = _parses(monkeypatch)
    assert _run(tmp_path, LINES) == cold and parsed == LINES


def test_a_text_its_line_does_not_hold_as_it_is_is_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry's text is kept as where it starts in its line; one that is not in it is kept whole."""
    line = "Epsilon runs on port 9000"
    with monkeypatch.context() as patched:
        patched.setattr(archive, "entry_from_display", lambda _: Entry("other text", None, None))
        _run(tmp_path, [line])
    ArchiveDisplays(tmp_path).start()
    again = displayed_entry(line)
    assert again is not None and again[1].text == "other text"


def test_a_run_keeps_the_parse_and_forget_drops_it(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\n## Facts\n- Alpha runs on port 8080 (2026-10-30)\n")
    (tmp_path / "memory" / "archive.md").write_text(
        "# Archive\n\n## 2026-10-28\n- Beta runs on port 7070 (2026-10-02) — from Facts;"
        " MEMORY.md over memory_max_bytes (16,384)\n"
    )
    (tmp_path / "memory" / "2026-11-01.md").write_text("# 2026-11-01\n\n- Gamma runs on port 6060\n")
    run_offline(tmp_path, today=date(2026, 11, 2), dry_run=True)
    state = Workspace.open(tmp_path).state_dir
    assert not (state / NAME).exists()  # a dry run writes nothing
    run_offline(tmp_path, today=date(2026, 11, 2))
    assert (state / NAME).exists()
    assert state / NAME in derived_caches(Workspace.open(tmp_path))
