"""Secrets pasted into a daily note are reported (run -v, status, doctor), never printed, and taken out of
the note only on request (`memory-sleep redact`), with a snapshot that `memory-sleep undo` reverts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.cycle.candidates import HybridCandidates
from memory_sleep.cycle.nrem import run_nrem
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.models import Classification, NoteItem
from memory_sleep.workspace.layout import Workspace, discover

ANTHROPIC = "sk-ant-api03-" + "Xq7LmP2vR9tK4wZ8" * 3
OPENAI = "sk-proj-" + "Ab3De5Gh7Jk9Mn1P" * 2
PASTED = f"- {ANTHROPIC}\n- Staging deploy needs OPENAI_API_KEY={OPENAI} set in the env\n"


def _paste(folder: Path) -> tuple[Path, int]:
    """Append the two secrets to the last fixture note; returns it and the line of the first."""
    note = folder / "memory" / "2026-11-24.md"
    text = note.read_text()
    note.write_text(text + PASTED)
    return note, text.count("\n") + 1


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _assert_no_secret(output: str) -> None:
    assert ANTHROPIC not in output and OPENAI not in output
    assert ANTHROPIC[:20] not in output and OPENAI[:16] not in output


def test_run_status_and_doctor_name_the_note_line_and_kind(fixture_workspace: Path) -> None:
    _, line = _paste(fixture_workspace)
    code, run = _cli("run", str(fixture_workspace), "--today", "2026-11-24", "--engine", "offline", "-v")
    assert code == 0, run
    where = f"line {line} (anthropic key), line {line + 1} (openai key)"
    assert f"memory/2026-11-24.md: secret in plain text at {where}" in run
    _, status = _cli("status", str(fixture_workspace), "--today", "2026-11-24")
    assert f"secrets in notes: memory/2026-11-24.md {where}" in status
    _, doctor = _cli("doctor", str(fixture_workspace), "--json")
    checks = [c for c in json.loads(doctor)["checks"] if c["area"] == "secrets"]
    assert [c["level"] for c in checks] == ["warn"] and where in checks[0]["message"]
    assert "memory-sleep redact" in checks[0]["fix"]
    for output in (run, status, doctor):
        _assert_no_secret(output)


def test_redact_dry_run_changes_nothing_then_redact_and_undo(fixture_workspace: Path) -> None:
    note, line = _paste(fixture_workspace)
    before = note.read_bytes()
    code, dry = _cli("redact", str(fixture_workspace), "--dry-run")
    assert code == 0 and note.read_bytes() == before
    assert dry.splitlines() == [
        f"memory/2026-11-24.md:{line}: would redact anthropic key",
        f"memory/2026-11-24.md:{line + 1}: would redact openai key",
    ]
    code, done = _cli("redact", str(note))
    assert code == 0, done
    assert "Redacted 2 secrets in 1 note" in done
    text = note.read_text()
    assert text.endswith(
        "- [redacted anthropic key]\n- Staging deploy needs OPENAI_API_KEY=[redacted openai key] set in the env\n"
    )
    assert _cli("redact", str(fixture_workspace))[1] == "No secrets in plain text in 22 notes.\n"
    _, status = _cli("status", str(fixture_workspace), "--today", "2026-11-24")
    assert "secrets in notes: none" in status
    code, planned = _cli("undo", str(fixture_workspace), "--dry-run")
    assert code == 0 and planned.startswith("would undo `memory-sleep redact` ")
    code, undone = _cli("undo", str(fixture_workspace))
    assert code == 0 and undone.startswith("Undid `memory-sleep redact` ")
    assert "restored memory/2026-11-24.md" in undone
    assert note.read_bytes() == before
    for output in (dry, done, undone):
        _assert_no_secret(output)


def test_redact_refuses_a_file_that_is_not_a_daily_note(fixture_workspace: Path) -> None:
    code, output = _cli("redact", str(fixture_workspace / "memory" / "scratch-todo.txt"))
    assert code == 1 and "not a daily note" in output


class _KeepsEverything:
    def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
        return [Classification(item_id=i.id, verdict="KEEP", category="fact") for i in items]


def test_a_line_that_is_only_a_secret_is_not_kept_whatever_the_engine(fixture_workspace: Path) -> None:
    _, line = _paste(fixture_workspace)
    notes = [
        (n, None) for n in discover(Workspace.open(fixture_workspace)).notes if n.name == "2026-11-24.md"
    ]
    result = run_nrem(
        notes,
        _KeepsEverything(),
        ClassifyContext(projects=[], memory=[]),
        2_000_000,
        50,
        HybridCandidates(None),
    )
    verdicts = {item.line_start: (verdict.verdict, item.text) for item, verdict in result.classified}
    assert verdicts[line] == ("DISCARD", f"- [redacted anthropic key, see memory/2026-11-24.md:{line}]")
    assert verdicts[line + 1][0] == "KEEP" and OPENAI not in verdicts[line + 1][1]
