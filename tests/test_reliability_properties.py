"""Laws, on generated input: MEMORY.md parse then render is the identity and what the tool adds can be
read back; a run then undo is the identity; a second run changes nothing; a plan applied twice equals it
applied once. The first cases are the crashes and losses benchmarks/fuzz_parsers.py found."""

from __future__ import annotations

import tempfile
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_sleep.cli.main import main
from memory_sleep.config import Config, SidecarConfig
from memory_sleep.models import ProjectFields
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument
from memory_sleep.workspace.notes import read_note
from memory_sleep.workspace.writer import SafeWriter

from .conftest import run_offline, snapshot_tree

NO_SIDECAR = Config(sidecar=SidecarConfig(enabled=False))
TODAY = date(2026, 11, 25)
NESTED_10 = "".join("  " * depth + "- n\n" for depth in range(10))

FOUND_BY_FUZZING = {
    "unclosed fence": "```\n",
    "unclosed fence without newline": "```",
    "unclosed fence in a section": "## Facts\n```\n",
    "unclosed tilde fence with crlf": "## Facts\r\n~~~\r\n",
    "unclosed longer fence": "## Projects\n````\n```\n",
    "unclosed comment": "<!-- x\n",
    "unclosed comment then lone cr": "<!--\n\r",
    "lone carriage returns before a heading": "\r\r## Projects\n",
    "a carriage return and spaces before a heading": "\r  ## Projects\n",
    "html block without blank line": "## Facts\n<div>\n",
    "html block then lone cr": "## Facts\n<div>\n\r",
    "html block going on after a lone cr": "## Facts\n<div>\n\r0\n\n",
    "html block with a form feed": "## Facts\n<div>\n0\x0c\n\n",
    "indented underlined heading after the section": "Facts\n-----\n  Facts\n-----\n",
    "ten nested levels": NESTED_10,
    "ten nested levels in projects": "## Projects\n" + NESTED_10,
    "setext heading after an empty section": "## Facts\nFacts\n-----\n",
    "indented text after an empty bullet": "## Facts\n- \n\n  0",
    "indented dash after an empty bullet": "## Facts\n- \n\n  -",
    "a line after an empty bullet": "## Facts\n- \n(2026-11-03)",
    "indented heading": "  ## Projects\n",
    "an HTML block before the section's trailing blank": "Facts\n-----\n<div>\n\n",
}


def _edit_and_reread(text: str) -> None:
    """Parse is the identity; an added entry and project can be read back; the result is stable."""
    document = MemoryDocument.parse(text)
    assert document.render() == text
    facts_sections = max(1, [section.title for section in document.sections].count("Facts"))
    document.add_entry("Facts", Entry(text="fuzz entry", topic="Fuzz", day=date(2026, 11, 24)))
    document.project("Fuzz").set_fields(
        ProjectFields(status="active", contacts="—", last_event="x (2026-11-24)", next="y"), document.newline
    )
    rendered = document.render()
    assert rendered.startswith("\ufeff") == text.startswith("\ufeff")
    reread = MemoryDocument.parse(rendered)
    assert reread.render() == rendered
    assert "fuzz entry" in [entry.text for _, entry in reread.entries()]
    assert reread.projects()["Fuzz"].fields()["Status"] == "active"
    assert [section.title for section in reread.sections].count("Facts") == facts_sections


@pytest.mark.parametrize("text", FOUND_BY_FUZZING.values(), ids=FOUND_BY_FUZZING.keys())
def test_what_the_tool_adds_after_any_content_can_be_read_back(text: str) -> None:
    _edit_and_reread(text)


def test_a_second_run_over_an_unclosed_fence_adds_no_second_section(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\nPasted by hand:\n```\nkubectl get pods\n")
    (tmp_path / "memory" / "2026-11-24.md").write_text("- Decided: billing moves to Stripe in January.\n")
    run_offline(tmp_path, config=NO_SIDECAR)
    first = (tmp_path / "MEMORY.md").read_text()
    assert first.startswith("# MEMORY.md\n\nPasted by hand:\n```\nkubectl get pods\n```\n")
    (tmp_path / "memory" / "2026-11-25.md").write_text("- Decided: invoices keep integer cents.\n")
    run_offline(tmp_path, config=NO_SIDECAR)
    second = (tmp_path / "MEMORY.md").read_text()
    assert second.count("## Decisions") == 1 and second.count("```") == 2
    entries = [entry.text for _, entry in MemoryDocument.parse(second).entries()]
    assert any("Stripe" in text for text in entries) and any("integer cents" in text for text in entries)


def test_a_run_over_a_fence_that_swallows_sections_closes_it_before_them(tmp_path: Path) -> None:
    """New users' trials: a stray ``` under "## Action items" hid the open actions from the briefing; the
    run said nothing (session 54), then, warning, added a second "## Action items" after the sections it
    could not read (session 55). The run closes the block where doctor says to, says so, and reads the
    sections; undo takes it back."""
    (tmp_path / "memory").mkdir()
    memory = tmp_path / "MEMORY.md"
    before = (
        "# MEMORY.md\n\n## Action items\n```\n- TODO: upgrade Postgres by 2026-11-28 (2026-11-20)\n\n"
        "## Lessons\n- never migrate on a Friday (2026-11-20)\n"
    )
    memory.write_text(before)
    (tmp_path / "memory" / "2026-11-24.md").write_text(
        "- Decided: billing moves to Stripe in January.\n- Lesson: never deploy without a rollback plan.\n"
    )
    report = run_offline(tmp_path, config=NO_SIDECAR)
    assert report.record.warnings == [
        "MEMORY.md: the code block opened at line 4 was never closed, so the 1 section after it read as code: this"
        ' run closed it before "## Lessons" (`memory-sleep undo` takes that back).'
    ]
    after = memory.read_text()
    assert "(2026-11-20)\n\n```\n## Lessons\n- never migrate on a Friday (2026-11-20)\n" in after
    assert after.count("## Lessons") == 1 and after.count("```") == 2
    document = MemoryDocument.parse(after)
    assert document.open_block is None
    lessons = document.find_section("Lessons")
    assert lessons is not None and [entry.text for entry in lessons.entries()] == [
        "never migrate on a Friday",
        "Lesson: never deploy without a rollback plan",
    ]
    assert CliRunner().invoke(main, ["undo", str(tmp_path)]).exit_code == 0
    assert memory.read_text() == before


def test_a_note_is_read_past_ten_levels_of_nesting_and_past_a_line_of_brackets(tmp_path: Path) -> None:
    path = tmp_path / "2026-11-24.md"
    path.write_text(NESTED_10 + "\n" + "[" * 100_000 + "\n\n- Decided: the item after it is still read.\n")
    note = NoteFile(path=path, name=path.name, day=date(2026, 11, 24), topic=None)
    texts = [item.text for item in read_note(note, 2_000_000).items]
    assert texts[-1] == "- Decided: the item after it is still read."


_PIECES = st.sampled_from(
    ["\n", "\r\n", "\r", "  ", "- ", "1. ", "## Facts\n", "## Projects\n", "### Atlas\n", "- Status: x\n", "```\n",
     "~~~\n", "<!--", "-->", "<div>\n", "> ", "Facts\n-----\n", "(2026-11-03)", "[Atlas] ", "\ufeff", "\x0c", "| a |\n"]
)  # fmt: skip
_TEXT = st.lists(
    st.one_of(_PIECES, st.text(max_size=8), st.integers(0, 30).map(lambda d: "  " * d + "- n\n")), max_size=30
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXT.map("".join))
def test_generated_memory_md_round_trips_and_takes_edits_readably(text: str) -> None:
    _edit_and_reread(text)


_ENTRY = st.sampled_from(
    [
        "Atlas uses Postgres 16",
        "Beacon ships on Fridays",
        "Raj Patel reviews billing PRs",
        "Invoices use cents",
    ]
)
_NOTE_LINE = st.one_of(
    st.sampled_from(
        [
            "- Decided: Atlas moves to Postgres 17.",
            "- Decided: Beacon ships on Thursdays from now on.",
            "- TODO by 2026-11-27: write the Atlas runbook.",
            "- done: the Atlas runbook is written.",
            "- Lesson: always compare invoice totals in cents.",
            "- 09:00 HEARTBEAT_OK",
            "- Met Dana Whitfield, finance controller for Atlas.",
            "## Atlas",
            "Some narration about the day.",
            "- 决定：数据库使用 Postgres 16。",
        ]
    ),
    st.text(max_size=30).map(lambda text: "- " + text),
)
_WORKSPACE = st.fixed_dictionaries(
    {
        "memory": st.lists(st.tuples(st.sampled_from(["Decisions", "Facts", "People"]), _ENTRY), max_size=6),
        "notes": st.dictionaries(
            st.integers(0, 12), st.lists(_NOTE_LINE, min_size=1, max_size=6).map("\n".join), max_size=3
        ),
        "crlf": st.booleans(),
    }
)


def _write_workspace(root: Path, spec: dict) -> None:  # type: ignore[type-arg]
    (root / "memory").mkdir()
    lines = ["# MEMORY.md", "", "Written by hand.", ""]
    for section in ("Decisions", "Facts", "People"):
        entries = [text for title, text in spec["memory"] if title == section]
        if entries:
            # dated inside stale_after_days: a sweep of stale entries is throttled by max_removal_share
            # and so spreads over several runs by design, which a second-run law would flag
            lines += [f"## {section}", *(f"- {text} (2026-11-20)" for text in entries), ""]
    newline = "\r\n" if spec["crlf"] else "\n"
    (root / "MEMORY.md").write_bytes(newline.join(lines).encode())
    for days_ago, text in spec["notes"].items():
        (root / "memory" / f"{(TODAY - timedelta(days=days_ago)).isoformat()}.md").write_text(text + "\n")


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_WORKSPACE)
def test_run_then_undo_is_the_identity_and_a_second_run_changes_nothing(spec: dict) -> None:  # type: ignore[type-arg]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _write_workspace(root, spec)
        before = snapshot_tree(root)
        first = run_offline(root, today=TODAY, config=NO_SIDECAR)
        after = snapshot_tree(root, skip_state=False)
        second = run_offline(root, today=TODAY, config=NO_SIDECAR)
        assert second.changes == [] and snapshot_tree(root, skip_state=False) == after
        if first.changes:
            SafeWriter(root, root / "memory" / ".sleep" / "snapshots").undo()
        assert snapshot_tree(root) == before


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_WORKSPACE)
def test_a_plan_applied_twice_equals_it_applied_once(spec: dict) -> None:  # type: ignore[type-arg]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _write_workspace(root, spec)
        plan = run_offline(root, today=TODAY, config=NO_SIDECAR, dry_run=True)
        writer = SafeWriter(root, root / "memory" / ".sleep" / "snapshots")
        writer.apply("run-1", plan.changes)
        once = snapshot_tree(root, skip_state=False)
        assert writer.apply("run-2", plan.changes) is None
        assert snapshot_tree(root, skip_state=False) == once
        assert run_offline(root, today=TODAY, config=NO_SIDECAR, dry_run=True).changes == []


def test_a_memory_whose_every_entry_is_stale_does_not_refuse_every_run(tmp_path: Path) -> None:
    """Found by the run/undo law: the stale sweep's budget allowed removing the only entry, the guard then
    refused the run for emptying MEMORY.md, and so every nightly run failed without reading a note."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Decisions\n- Atlas uses Postgres 16 (2026-10-01)\n"
    )
    (tmp_path / "memory" / "2026-11-24.md").write_text("- 09:00 HEARTBEAT_OK\n")
    report = run_offline(tmp_path, today=TODAY, config=NO_SIDECAR)
    assert "1 stale entries left for a later run (max_removal_share 25%)." in report.record.warnings
    assert "- Atlas uses Postgres 16 (2026-10-01)" in (tmp_path / "MEMORY.md").read_text()
