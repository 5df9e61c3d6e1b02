"""Which folders the verbs accept: never a folder that is not a workspace (nothing is created there),
never a MEMORY.md that is a folder, and a read-only workspace is read, with advice that loses nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli import main

NOT_A_WORKSPACE = "not a memory-sleep workspace (no MEMORY.md, no memory/ folder); nothing was written."
DATA_LOSING_ADVICE = "Move the file away"


def everything(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder`, folders included, with the bytes of each file."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in folder.rglob("*")
    }


@pytest.fixture
def code_folder(tmp_path: Path) -> Path:
    """A folder of code, the kind a mistyped path or a `cd` to the wrong place hands the CLI."""
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("print('hello')\n")
    (folder / "README.md").write_text("# project\n")
    return folder


VERBS = [
    ["run"],
    ["run", "--dry-run"],
    ["index"],
    ["recall", "billing", "{folder}"],
    ["recall", "billing", "{folder}", "--dry-run"],
    ["forget"],
    ["stats"],
    ["status"],
    ["undo"],
    ["cron", "install"],
    ["cron", "show"],
    ["mcp"],
]


@pytest.mark.parametrize("verb", VERBS, ids=" ".join)
def test_no_verb_turns_a_folder_of_code_into_a_workspace(code_folder: Path, verb: list[str]) -> None:
    before = everything(code_folder)
    words = [word.format(folder=code_folder) for word in verb]
    arguments = words if "{folder}" in " ".join(verb) else [*words, str(code_folder)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 1, result.output
    assert f"Error: {code_folder}: {NOT_A_WORKSPACE}" in result.output
    assert f"`memory-sleep init {code_folder}`" in result.output
    assert everything(code_folder) == before


def test_a_bare_run_from_the_wrong_folder_is_refused(
    code_folder: Path, monkeypatch: pytest.MonkeyPatch, no_real_crontab: Path
) -> None:
    monkeypatch.chdir(code_folder / "src")
    before = everything(code_folder)
    result = CliRunner().invoke(main, ["run"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {code_folder / 'src'}: {NOT_A_WORKSPACE} Pass the folder that holds MEMORY.md, or "
        f"`memory-sleep init {code_folder / 'src'}` to make this one a workspace.\n"
    )
    assert everything(code_folder) == before
    cron_line = CliRunner().invoke(main, ["cron", "install"])
    assert cron_line.exit_code == 1 and not no_real_crontab.exists()


def test_doctor_says_a_folder_is_no_workspace_and_stops(code_folder: Path) -> None:
    before = everything(code_folder)
    result = CliRunner().invoke(main, ["doctor", str(code_folder), "--json"])
    assert result.exit_code == 1
    checks = json.loads(result.output)["checks"]
    assert [(check["area"], check["level"]) for check in checks] == [("config", "ok"), ("layout", "fail")]
    assert NOT_A_WORKSPACE in checks[1]["message"]
    assert everything(code_folder) == before


def test_init_makes_the_folder_a_workspace_that_runs(code_folder: Path) -> None:
    assert CliRunner().invoke(main, ["init", str(code_folder)]).exit_code == 0
    result = CliRunner().invoke(main, ["run", str(code_folder), "--today", "2026-11-25"])
    assert result.exit_code == 0, result.output


def test_a_memory_md_folder_fails_doctor_and_index_keeps_its_entries(fixture_workspace: Path) -> None:
    assert CliRunner().invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-25"]).exit_code == 0
    memory = fixture_workspace / "MEMORY.md"
    memory.rename(fixture_workspace / "saved.md")
    memory.mkdir()
    (fixture_workspace / "saved.md").rename(memory / "MEMORY.md")
    problem = f"{memory}: is a folder, where memory-sleep keeps a file of that name. Nothing was changed."

    doctor = CliRunner().invoke(main, ["doctor", str(fixture_workspace)])
    assert doctor.exit_code == 1
    assert f"  FAIL  layout    {problem}" in doctor.output and "ok    layout" not in doctor.output
    index = CliRunner().invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-26"])
    assert index.exit_code == 1 and f"Error: {problem}" in index.output

    db = sqlite3.connect(fixture_workspace / "memory" / ".sleep" / "sidecar.db")
    live, deleted = db.execute(
        "SELECT count(*) - count(deleted_at), count(deleted_at) FROM entries WHERE kind = 'memory'"
    ).fetchone()
    db.close()
    assert live > 10 and deleted == 0
