"""A long note is parsed a chunk of lines at a time; its items are those of the note parsed whole."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from memory_sleep.workspace import notes
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.notes import parse_note_text

NOTE = NoteFile(
    path=Path("/nonexistent/memory/2026-11-12.md"), name="2026-11-12.md", day=date(2026, 11, 12), topic=None
)
# a list whose items take lazy lines, a fence with blank lines, a table, headings, a line that is a
# table when read on its own but an item of the list above it
PARTS = [
    "# 2026-11-12",
    "",
    "## Log",
    "",
    "- Build: ok",
    "10:00:01 HEARTBEAT_OK",
    "- disk on db-01: 40% used",
    "  nested line",
    "- a | b",
    "|---|---|",
    "Decided: keep the cron.",
    "",
    "```",
    "code",
    "",
    "more code",
    "```",
    "",
    "### Table",
    "| x | y |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "1. first",
    "2. second",
    "   continued",
    "",
    "Intro:",
    "- after the lead-in",
]


def _fields(text: str) -> list[tuple[object, ...]]:
    return [
        (i.id, i.line_start, i.line_end, i.kind, i.text, i.headings, i.lead)
        for i in parse_note_text(NOTE, text).items
    ]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8])
def test_items_at_chunk_boundaries_keep_lines_and_headings(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    text = "\n".join(PARTS * 3) + "\n"
    monkeypatch.setattr(notes, "CHUNK_LINES", 10_000)
    whole = _fields(text)
    monkeypatch.setattr(notes, "CHUNK_LINES", chunk)
    assert _fields(text) == whole
    assert ("- a | b", "bullet") in {(f[4], f[3]) for f in whole}  # not the head of a table
    assert any(f[3] == "table" and f[5] == ("2026-11-12", "Log", "Table") for f in whole)


def test_a_long_note_is_never_parsed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    longest = 0
    parse = MarkdownIt.parse

    def spy(self: MarkdownIt, src: str, env: object = None) -> object:
        nonlocal longest
        longest = max(longest, src.count("\n") + 1)
        return parse(self, src, env)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "parse", spy)
    lines = ["# Day", "", "## Log", ""]
    lines += [f"- Build: #{n} green" if n % 3 else f"10:{n % 60:02d}:00 HEARTBEAT_OK" for n in range(9_000)]
    found = parse_note_text(NOTE, "\n".join(lines) + "\n").items
    assert longest < 9_000
    assert len(found) == 9_000
    assert (found[-1].line_start, found[-1].headings) == (9_004, ("Day", "Log"))
