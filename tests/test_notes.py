"""Daily notes: which files are notes, and how a note splits into items with stable ids."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.models import NoteItem
from memory_sleep.workspace.layout import NoteFile, Workspace, discover
from memory_sleep.workspace.note_read import NoteReadError
from memory_sleep.workspace.notes import parse_note_text, read_note

NOTE = NoteFile(
    path=Path("/nonexistent/memory/2026-11-12.md"), name="2026-11-12.md", day=date(2026, 11, 12), topic=None
)


def spans(text: str, note: NoteFile = NOTE) -> list[tuple[int, int, str, str]]:
    """(first line, last line, kind, text) of every item of a note."""
    return [(i.line_start, i.line_end, i.kind, i.text) for i in parse_note_text(note, text).items]


def items(text: str, note: NoteFile = NOTE) -> list[NoteItem]:
    return parse_note_text(note, text).items


# ---- splitting --------------------------------------------------------------------------------


def test_bullet_with_children_is_one_item() -> None:
    text = "- Decided to use Postgres 16\n  - because of JSONB\n    - and pgvector\n- second bullet\n"
    assert spans(text) == [
        (1, 3, "bullet", "- Decided to use Postgres 16\n  - because of JSONB\n    - and pgvector"),
        (4, 4, "bullet", "- second bullet"),
    ]


def test_ordered_list_items_are_items() -> None:
    assert spans("1. first\n2. second\n   more of second\n") == [
        (1, 1, "bullet", "1. first"),
        (2, 3, "bullet", "2. second\n   more of second"),
    ]


@pytest.mark.parametrize(
    "stamp_lines",
    [
        ["14:32 deployed v2", "14:40 rolled back", "9:05 retried"],
        ["[09:15] heartbeat ok", "[09:45] heartbeat ok", "[10:15:30] heartbeat ok"],
        ["**09:15** standup done", "**09:30** review started", "**10:00** review finished"],
        ["**Owner:** Dana", "**Status:** green", "**Next step**: ship"],
        ["14:32 deployed v2", "**Owner:** Dana", "[09:15] heartbeat ok"],
        ["Owner: Priya", "Harbor status: on track", "Lumen status: at risk (timestamp bug)"],
        ["负责人：Priya", "Harbor 状态：正常"],
    ],
    ids=["bare time", "bracketed time", "bold time", "bold key", "mixed", "plain keys", "full-width keys"],
)
def test_each_timestamped_or_key_line_is_its_own_item(stamp_lines: list[str]) -> None:
    text = "\n".join(stamp_lines) + "\n"
    assert spans(text) == [(n, n, "line", line) for n, line in enumerate(stamp_lines, start=1)]


def test_an_item_says_what_follows_the_stamps_leading_it() -> None:
    """A line that only says when, leading an item, is read apart: the item's text is what it says, the
    stamp is kept beside it, and the two are the item as written. A stamp alone is what it says."""
    text = "- **时间：** 2026-03-22 08:19\n  **指令：** 群聊的事先放一放\n\n[14:02]\n"
    first, alone = items(text)
    assert (first.stamp, first.text) == ("- **时间：** 2026-03-22 08:19\n", "  **指令：** 群聊的事先放一放")
    assert first.written == "- **时间：** 2026-03-22 08:19\n  **指令：** 群聊的事先放一放"
    assert (alone.stamp, alone.text, alone.line_start) == ("", "[14:02]", 4)


@pytest.mark.parametrize(
    "text",
    [
        "Note: we moved the nightly job to 04:00 because the\nbackup window overlapped it",
        "Fatal Exception: NSInternalInconsistencyException\nInvalid update: invalid number of items\n"
        "0  CoreFoundation   0x00000001a2b3c4d0 __exceptionPreprocess + 164",
    ],
    ids=["wrapped sentence", "pasted log"],
)
def test_a_paragraph_with_a_line_that_is_no_field_stays_one_item(text: str) -> None:
    """Only a paragraph of "Key: value" lines alone is cut into its fields: a wrapped sentence holding a
    colon, or a pasted crash log whose first lines look like keys, stays one item."""
    assert spans(text + "\n") == [(1, text.count("\n") + 1, "line", text)]


def test_wrapped_paragraph_lines_form_one_item_and_stamped_lines_split_from_it() -> None:
    text = (
        "We talked about the migration plan and\n"
        "the rollout order for next week\n"
        "14:32 deployed v2\n"
        "more prose that wraps onto\n"
        "a second line\n"
    )
    assert spans(text) == [
        (1, 2, "line", "We talked about the migration plan and\nthe rollout order for next week"),
        (3, 3, "line", "14:32 deployed v2"),
        (4, 5, "line", "more prose that wraps onto\na second line"),
    ]


def test_fenced_code_and_table_are_one_item_each() -> None:
    text = (
        "```python\n## not heading\n- not bullet\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    )
    assert spans(text) == [
        (1, 5, "code", "```python\n## not heading\n- not bullet\nx = 1\n```"),
        (7, 10, "table", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"),
    ]


def test_headings_are_not_items_but_give_the_path() -> None:
    text = "# Tuesday\n\n## Work\n- a\n### Atlas\n- b\n## Home\n- c\n# Wednesday\n- d\n"
    found = items(text)
    assert [(i.text, i.headings) for i in found] == [
        ("- a", ("Tuesday", "Work")),
        ("- b", ("Tuesday", "Work", "Atlas")),
        ("- c", ("Tuesday", "Home")),
        ("- d", ("Wednesday",)),
    ]


def test_a_thematic_break_ends_the_section_above_it() -> None:
    """A signature after "---" under the last section ("*agent log | 2026-04-10*" below a list of
    TODOs) is a footer: it was read as one more open action, and the first of the briefing."""
    text = "## Work\n### Next steps\n- [ ] ship it\n\n---\n\n*agent log | 2026-04-10*\n### Later\n- b\n"
    assert [(i.text, i.headings) for i in items(text)] == [
        ("- [ ] ship it", ("Work", "Next steps")),
        ("*agent log | 2026-04-10*", ()),
        ("- b", ("Work", "Later")),
    ]


def test_heading_inside_code_fence_does_not_change_the_path() -> None:
    text = "## Work\n```\n## not a heading\n```\n- a\n"
    assert [i.headings for i in items(text)] == [("Work",), ("Work",)]


def test_line_numbers_count_front_matter_lines() -> None:
    text = "---\nproject: Atlas\ntags: [a, b]\n---\n# Day\n\n- first bullet\n\n14:00 stamped\n"
    parsed = parse_note_text(NOTE, text)
    assert parsed.front_matter == {"project": "Atlas", "tags": ["a", "b"]}
    assert parsed.warning is None
    assert [(i.line_start, i.line_end, i.text, i.project_hint) for i in parsed.items] == [
        (7, 7, "- first bullet", "Atlas"),
        (9, 9, "14:00 stamped", "Atlas"),
    ]
    assert parsed.items[0].source == "memory/2026-11-12.md:7"


def test_line_numbers_with_crlf_front_matter_and_lone_cr() -> None:
    text = "---\r\nproject: Atlas\r\n---\r\n- a\r\n\r\n- b\r- c\r"
    assert spans(text) == [(4, 4, "bullet", "- a"), (6, 6, "bullet", "- b"), (7, 7, "bullet", "- c")]


def test_form_feed_and_line_separator_do_not_shift_line_numbers() -> None:
    text = "- a\u2028b\n- c\n\npara\x0cmore\n\n- d\n"
    assert spans(text) == [
        (1, 1, "bullet", "- a\u2028b"),
        (2, 2, "bullet", "- c"),
        (4, 4, "line", "para\x0cmore"),
        (6, 6, "bullet", "- d"),
    ]


def test_literal_backslash_n_becomes_a_line_break_inside_one_item() -> None:
    text = "- deployed v2\\nrolled back at 14:40\\nroot cause: DNS\n- next\n"
    assert spans(text) == [
        (1, 1, "bullet", "- deployed v2\nrolled back at 14:40\nroot cause: DNS"),
        (2, 2, "bullet", "- next"),
    ]


def test_escaped_backslash_n_and_code_keep_the_literal() -> None:
    assert spans("- path C:\\\\new\\\\dir\n```\nprint('a\\nb')\n```\n") == [
        (1, 1, "bullet", "- path C:\\\\new\\\\dir"),
        (2, 4, "code", "```\nprint('a\\nb')\n```"),
    ]


def test_project_hint_comes_from_front_matter_then_file_topic() -> None:
    topic_note = NoteFile(
        path=Path("/nonexistent/memory/2026-11-12-beacon-release.md"),
        name="2026-11-12-beacon-release.md",
        day=date(2026, 11, 12),
        topic="beacon-release",
    )
    assert [i.project_hint for i in items("- a\n", topic_note)] == ["beacon-release"]
    assert [i.project_hint for i in items("---\nproject: Atlas\n---\n- a\n", topic_note)] == ["Atlas"]
    assert [i.project_hint for i in items("---\nproject: 7\n---\n- a\n", topic_note)] == ["beacon-release"]
    assert [(i.file, i.day) for i in items("- a\n", topic_note)] == [
        ("memory/2026-11-12-beacon-release.md", date(2026, 11, 12))
    ]


def test_blank_and_empty_notes_have_no_items() -> None:
    assert items("") == []
    assert items("\n\n   \n") == []
    assert items("---\nproject: Atlas\n---\n") == []
    assert items("# Only a heading\n## And another\n") == []


# ---- front matter -----------------------------------------------------------------------------


def test_broken_front_matter_warns_and_every_line_is_read() -> None:
    parsed = parse_note_text(NOTE, "---\nproject: [unclosed\n---\n- a bullet\n")
    assert parsed.front_matter == {}
    assert parsed.warning is not None
    assert parsed.warning.startswith(
        "memory/2026-11-12.md: lines 1-3, between --- lines, look like front matter but are not valid YAML ("
    )
    assert parsed.warning.endswith(
        ", line 3); they were read as note text. If they are front matter, fix the YAML; if the first --- "
        "is a horizontal rule, start the note with another line (a heading, say) to silence this."
    )
    assert [(i.line_start, i.text) for i in parsed.items][-1] == (4, "- a bullet")


def test_a_note_opening_with_a_rule_has_every_line_read() -> None:
    """Real notes open with a `---` rule and use another further down: what lies between looks like
    front matter; it is no YAML, so it is read as the note's text (it was skipped: 47 lines of a real
    note's status update and task table went unread), and the warning says how to silence it."""
    text = "---\n\n## Status (08:35)\n\n**Time:** 08:19\n- a task paused\n\n---\n- the rest\n"
    parsed = parse_note_text(NOTE, text)
    assert parsed.warning is not None and "lines 1-8, between --- lines" in parsed.warning
    assert "(did not find expected alphabetic or numeric character, line 5)" in parsed.warning
    assert [(i.line_start, i.text) for i in parsed.items] == [
        (5, "**Time:** 08:19"),
        (6, "- a task paused"),
        (9, "- the rest"),
    ]
    fixed = parse_note_text(NOTE, "# 2026-11-12\n" + text)
    assert fixed.warning is None
    assert [i.text for i in fixed.items] == [i.text for i in parsed.items]


def test_dashes_without_closing_are_not_front_matter() -> None:
    parsed = parse_note_text(NOTE, "---\n- a bullet\n")
    assert parsed.front_matter == {}
    assert parsed.warning is None
    assert [(i.line_start, i.text) for i in parsed.items] == [(2, "- a bullet")]


# ---- ids --------------------------------------------------------------------------------------

DAY_NOTE = "# Day\n- Decided to use Postgres 16\n14:32 deployed v2\n\n**Owner:** Dana\n"


def test_ids_are_stable_for_the_same_content() -> None:
    first = [i.id for i in items(DAY_NOTE)]
    assert first == [i.id for i in items(DAY_NOTE)]
    assert len(set(first)) == 3
    # headings and blank lines around an item are not part of its identity
    moved = "# Other heading\n\n- Decided to use Postgres 16\n\n14:32 deployed v2\n\n**Owner:** Dana\n"
    assert [i.id for i in items(moved)] == first


def test_id_value_does_not_drift() -> None:
    # ids are persisted in the workspace state; a new hashing scheme would re-process every note
    assert [i.id for i in items("- Decided to use Postgres 16\n")] == ["c38119dc877e"]


def test_editing_another_line_keeps_an_items_id() -> None:
    before = {i.text: i.id for i in items(DAY_NOTE)}
    after = {
        i.text: i.id for i in items(DAY_NOTE.replace("14:32 deployed v2", "14:33 deployed v3") + "- new\n")
    }
    assert after["- Decided to use Postgres 16"] == before["- Decided to use Postgres 16"]
    assert after["**Owner:** Dana"] == before["**Owner:** Dana"]
    assert after["14:33 deployed v3"] != before["14:32 deployed v2"]


def test_ids_depend_on_the_note() -> None:
    other = NoteFile(
        path=Path("/nonexistent/memory/2026-11-13.md"),
        name="2026-11-13.md",
        day=date(2026, 11, 13),
        topic=None,
    )
    assert items("- same\n")[0].id != items("- same\n", other)[0].id


def test_identical_heartbeat_lines_get_different_ids() -> None:
    text = "- HEARTBEAT_OK\n- HEARTBEAT_OK\n\nheartbeat ok\n\nheartbeat ok\n"
    found = items(text)
    assert [(i.line_start, i.text) for i in found] == [
        (1, "- HEARTBEAT_OK"),
        (2, "- HEARTBEAT_OK"),
        (4, "heartbeat ok"),
        (6, "heartbeat ok"),
    ]
    assert len({i.id for i in found}) == 4


# ---- reading files ----------------------------------------------------------------------------


def note_file(tmp_path: Path, name: str, data: bytes) -> NoteFile:
    folder = tmp_path / "memory"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return NoteFile(path=path, name=name, day=date(2026, 11, 12), topic=None)


def test_read_note_strips_a_bom(tmp_path: Path) -> None:
    note = note_file(tmp_path, "2026-11-12.md", "\ufeff- a\r\n- b\r\n".encode())
    assert [(i.line_start, i.text) for i in read_note(note, 1000).items] == [(1, "- a"), (2, "- b")]


def test_binary_note_is_refused_naming_the_file(tmp_path: Path) -> None:
    note = note_file(tmp_path, "2026-11-12.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(NoteReadError) as caught:
        read_note(note, 1000)
    assert str(caught.value) == (
        "memory/2026-11-12.md: binary data, not a text note; skipped. Move it out of memory/."
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_note_is_refused_as_utf16_not_as_binary(tmp_path: Path, encoding: str) -> None:
    bom = b"\xfe\xff" if encoding.endswith("be") else b""  # "utf-16" writes the machine's BOM itself
    note = note_file(tmp_path, "2026-11-12.md", bom + "- decided: use Postgres\n".encode(encoding))
    with pytest.raises(NoteReadError) as caught:
        read_note(note, 1000)
    assert str(caught.value) == "memory/2026-11-12.md: UTF-16 text, not UTF-8; skipped. Re-save it as UTF-8."


def test_invalid_utf8_note_is_refused_naming_the_file_and_byte(tmp_path: Path) -> None:
    note = note_file(tmp_path, "2026-11-12.md", b"- caf\xe9\n")
    with pytest.raises(NoteReadError) as caught:
        read_note(note, 1000)
    assert str(caught.value) == (
        "memory/2026-11-12.md: not valid UTF-8 (line 1, byte 5); skipped. Re-save it as UTF-8."
    )


def test_note_over_max_bytes_is_refused_naming_the_file(tmp_path: Path) -> None:
    note = note_file(tmp_path, "2026-11-12.md", b"- a\n" * 300)
    assert len(read_note(note, 1200).items) == 300
    with pytest.raises(NoteReadError) as caught:
        read_note(note, 1199)
    assert str(caught.value) == (
        "memory/2026-11-12.md: 1,200 bytes, over max_note_bytes (1,199); skipped. "
        "Split the file, or raise max_note_bytes in memory-sleep.toml."
    )


def test_a_note_that_cannot_be_read_says_why_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One error type for every note that cannot be read: the run, the index and the doctor all word
    it from its file, reason and fix (root reads everything, so the refusal is simulated)."""
    note = note_file(tmp_path, "2026-11-12.md", b"- a\n")
    real = Path.read_bytes

    def refused(path: Path) -> bytes:
        if path == note.path:
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", refused)
    with pytest.raises(NoteReadError) as caught:
        read_note(note, 1000)
    error = caught.value
    assert (error.relative, error.reason) == ("memory/2026-11-12.md", "cannot be read (Permission denied)")
    assert error.fix == f"Make it readable by you (`chmod u+r {note.path.absolute()}`, or run as its owner)."
    assert (
        error.said("not indexed")
        == f"memory/2026-11-12.md: cannot be read (Permission denied); not indexed. {error.fix}"
    )
    assert str(error) == error.said("skipped")


# ---- discover() -------------------------------------------------------------------------------


def make_workspace(tmp_path: Path, names: list[str]) -> Workspace:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    for name in names:
        path = root / "memory" / name
        if name.endswith("/"):
            path.mkdir()
        else:
            path.write_text("- a\n")
    return Workspace.open(root)


def test_discover_sorts_daily_notes_and_reports_strays(tmp_path: Path) -> None:
    workspace = make_workspace(
        tmp_path,
        [
            "2026-11-12.md",
            "2026-11-12-beacon-release.md",
            "2026-11-03.md",
            "notes.txt",
            "2026-11-12.txt",
            "2026-1-12.md",
            ".DS_Store",
            "2026-11-14.md/",
            "briefing.md",
            "archive.md",
            "sleep-log.json",
            "weekly/",
            ".sleep/",
            "archive/",
        ],
    )
    found = discover(workspace)
    assert [(n.name, n.day, n.topic) for n in found.notes] == [
        ("2026-11-03.md", date(2026, 11, 3), None),
        ("2026-11-12-beacon-release.md", date(2026, 11, 12), "beacon-release"),
        ("2026-11-12.md", date(2026, 11, 12), None),
    ]
    assert found.notes[1].path == workspace.notes_dir / "2026-11-12-beacon-release.md"
    assert found.notes[1].relative == "memory/2026-11-12-beacon-release.md"
    assert found.strays == [
        "memory/.DS_Store",
        "memory/2026-1-12.md",
        "memory/2026-11-12.txt",
        "memory/notes.txt",
    ]
    # a folder named like a note was a stray that doctor took for a misnamed note ("rename it to
    # memory/2026-11-14.md: that note exists, merge it"), and a run warned it was "not named" like one
    assert [str(problem) for problem in found.problems] == [
        "memory/2026-11-14.md: a folder, named like a daily note; not read. Daily notes are files: rename "
        "it, and save what it holds as memory/2026-11-14.md."
    ]


def test_discover_reads_a_topic_note_named_with_an_underscore(tmp_path: Path) -> None:
    """Real agents write `2026-02-15_AGNI_CONTEXT_SYNC.md` as often as `2026-02-15-topic.md`."""
    found = discover(make_workspace(tmp_path, ["2026-02-15_AGNI_CONTEXT_SYNC.md", "2026-02-15.md"]))
    assert [(n.name, n.day, n.topic) for n in found.notes] == [
        ("2026-02-15.md", date(2026, 2, 15), None),
        ("2026-02-15_AGNI_CONTEXT_SYNC.md", date(2026, 2, 15), "AGNI_CONTEXT_SYNC"),
    ]
    assert found.strays == []


def test_discover_reports_an_impossible_date(tmp_path: Path) -> None:
    found = discover(make_workspace(tmp_path, ["2026-02-30.md", "2026-02-28.md"]))
    assert [n.name for n in found.notes] == ["2026-02-28.md"]
    assert [str(problem) for problem in found.problems] == [
        "memory/2026-02-30.md: 2026-02-30 is not a calendar date; skipped. Rename it to the day it covers."
    ]
    assert found.strays == []


def test_discover_skips_a_link_pointing_outside_the_workspace(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path, ["2026-11-12.md"])
    outside = tmp_path / "secret.md"
    outside.write_text("- private\n")
    os.symlink(outside, workspace.notes_dir / "2026-11-13.md")
    os.symlink(workspace.notes_dir / "2026-11-12.md", workspace.notes_dir / "2026-11-14.md")
    os.symlink(workspace.notes_dir / "gone.md", workspace.notes_dir / "2026-11-15.md")
    found = discover(workspace)
    assert [n.name for n in found.notes] == ["2026-11-12.md", "2026-11-14.md"]
    assert [str(problem) for problem in found.problems] == [
        f"memory/2026-11-13.md: a link to {outside.resolve()}, outside the workspace; skipped. "
        "Copy the note into memory/ instead.",
        f"memory/2026-11-15.md: a link to {workspace.notes_dir / 'gone.md'}, which does not exist; not read. "
        "Point it at the note, or remove it.",
    ]


def test_discover_without_memory_folder_finds_nothing(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("")
    found = discover(Workspace.open(tmp_path))
    assert (found.notes, found.strays, found.problems) == ([], [], [])


@pytest.mark.parametrize("label", ["**Remaining:**", "**剩余手动**:", "**优势：**", "Next steps:"])
def test_a_label_introduces_the_list_below_it_with_the_colon_inside_or_after_the_bold(label: str) -> None:
    found = items(f"{label}\n- create the channel\n- scan the code\n")
    assert [item.lead for item in found[1:]] == [label.strip("*:：")] * 2


@pytest.mark.parametrize("label", ["TODO", "Next steps", "**Open items**", "待办"])
def test_a_section_name_alone_on_its_line_introduces_the_list_below_it(label: str) -> None:
    """ "TODO" over a list, with no colon, says what its items are as "TODO:" does; any other line
    without a colon leads nothing ("Groceries" over a list is its first item's paragraph)."""
    found = items(f"{label}\n- create the channel\n- scan the code\n\nGroceries\n- milk\n")
    assert [item.lead for item in found[1:3]] == [label.strip("*")] * 2
    assert found[-1].lead is None
