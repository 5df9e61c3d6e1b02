"""A MEMORY.md emptied or cut since the last run stops the next one, which names the copy to restore."""

from __future__ import annotations

import re
import sqlite3
import subprocess
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.doctor import diagnose
from memory_sleep.cli.main import main
from memory_sleep.errors import GuardError
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import run_offline, snapshot_tree

NEXT_DAY = date(2026, 11, 26)


def _entries(folder: Path) -> list[str]:
    document = MemoryDocument.parse((folder / "MEMORY.md").read_text(encoding="utf-8"))
    return [entry.display() for _, entry in document.entries()]


def _sidecar_rows(folder: Path) -> list[list[tuple[object, ...]]]:
    """The sidecar's entries and SleepGate's passes: what a refused run leaves as it found them (its
    due SleepGate pass is rolled back; the database file's pages and the vector cache may differ)."""
    with sqlite3.connect(folder / "memory" / ".sleep" / "sidecar.db") as db:
        return [
            db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("entries", "forgetting_passes", "meta")
        ]


def _restore_command(message: str) -> str:
    found = re.search(r"`(cp [^`]+)`", message)
    assert found, message
    return found.group(1)


def test_an_emptied_memory_is_refused_and_the_command_it_names_restores_the_last_run(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    written = (fixture_workspace / "MEMORY.md").read_bytes()
    left = len(_entries(fixture_workspace))
    (fixture_workspace / "MEMORY.md").write_bytes(b"")
    before = snapshot_tree(fixture_workspace), _sidecar_rows(fixture_workspace)
    with pytest.raises(GuardError) as refused:
        run_offline(fixture_workspace, today=NEXT_DAY)
    message = str(refused.value)
    assert f"MEMORY.md is empty, but the last run left {left} entries and 3 project summaries" in message
    assert "Nothing was changed" in message and "--accept-memory-reset" in message
    assert (snapshot_tree(fixture_workspace), _sidecar_rows(fixture_workspace)) == before
    subprocess.run(_restore_command(message), shell=True, check=True)
    assert (fixture_workspace / "MEMORY.md").read_bytes() == written
    run_offline(fixture_workspace, today=NEXT_DAY)
    assert len(_entries(fixture_workspace)) >= left - 2


def test_a_memory_cut_to_a_few_entries_is_refused(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    text = (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    (fixture_workspace / "MEMORY.md").write_text(text[: len(text) // 5], encoding="utf-8")
    with pytest.raises(GuardError, match=r"MEMORY\.md holds \d+ entr(y|ies), but the last run left"):
        run_offline(fixture_workspace, today=NEXT_DAY)


def test_a_person_deleting_a_few_entries_is_editing_and_the_run_goes_on(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    lines = (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8").splitlines(keepends=True)
    dated = [i for i, line in enumerate(lines) if line.startswith("- ") and line.rstrip().endswith(")")]
    for index in reversed(dated[:4]):
        del lines[index]
    (fixture_workspace / "MEMORY.md").write_text("".join(lines), encoding="utf-8")
    run_offline(fixture_workspace, today=NEXT_DAY)


def test_accept_memory_reset_goes_on_from_the_emptied_file_and_doctor_reports_it(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    (fixture_workspace / "MEMORY.md").write_bytes(b"")
    checks = diagnose(Workspace.open(fixture_workspace)).checks
    loss = [c for c in checks if c.area == "MEMORY.md"]
    assert (
        loss
        and loss[0].level == "fail"
        and loss[0].message.startswith("MEMORY.md is empty, but the last run")
    )
    assert loss[0].fix and "cp " in loss[0].fix and "--accept-memory-reset" in loss[0].fix
    refused = CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-26"])
    assert refused.exit_code == 1 and "Refused: MEMORY.md is empty" in refused.output
    accepted = CliRunner().invoke(
        main, ["run", str(fixture_workspace), "--today", "2026-11-26", "--accept-memory-reset"]
    )
    assert accepted.exit_code == 0, accepted.output
    assert not [c for c in diagnose(Workspace.open(fixture_workspace)).checks if c.area == "MEMORY.md"]
