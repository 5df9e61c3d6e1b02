"""One writer: every file memory-sleep writes goes through writer.py (atomic_write with fsync, or the
SafeWriter for a run's files), sleep-log.json is written once per run, and crash tests use a seam."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.engines.cache import ResponseCache
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.workspace.atomic import sha256
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.writer import SafeWriter

from .conftest import REPO, run_offline, snapshot_tree

PACKAGE = REPO / "memory_sleep"
# besides: the lock file itself (filelock creates it) and SQLite's files, which SQLite writes
WRITES_ALLOWED = {"writer.py": "the one writer", "atomic.py": "its temp file, fsync and rename"}
WRITING_CALLS = {"replace", "rename", "write_text", "write_bytes", "mkstemp", "move", "copyfile", "copy2"}


def _writes(tree: ast.AST) -> list[str]:
    """Calls in `tree` that write or move a file by themselves."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        owner = function.value if isinstance(function, ast.Attribute) else None
        if name == "replace" and not (isinstance(owner, ast.Name) and owner.id == "os"):
            continue  # str.replace
        modes = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)]
        modes += [
            k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)
        ]
        opens_for_writing = name in ("open", "fdopen") and any(set(str(m)) & set("wax+") for m in modes)
        if name in WRITING_CALLS or opens_for_writing:
            found.append(f"{name} (line {node.lineno})")
    return found


def test_no_module_but_the_writer_writes_a_file() -> None:
    outside = {
        path.relative_to(PACKAGE).as_posix(): calls
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name not in WRITES_ALLOWED or path.parent != PACKAGE / "workspace"
        if (calls := _writes(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert outside == {}


def test_the_caches_are_written_with_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda descriptor: synced.append(descriptor) or real_fsync(descriptor))
    index = VectorIndex(
        np.array([1, 2], dtype=np.int64),
        np.zeros(2, dtype=np.int32),
        ["default"],
        np.eye(2, 4, dtype=np.float32),
        generation=3,
    )
    index.save(tmp_path / "vectors")
    assert len(synced) >= 2  # the rows and the matrix
    assert not [p for p in (tmp_path / "vectors").iterdir() if p.name.endswith(".tmp")]
    synced.clear()
    cache = ResponseCache(tmp_path / "llm-cache")
    cache.put("ab" + "0" * 62, Config())
    assert synced
    assert cache.get("ab" + "0" * 62, Config()) == Config()


def test_the_writer_reads_no_crash_variable_from_the_environment(tmp_path: Path) -> None:
    # crash tests kill the process through tests/crash_launcher.py; production code knows no such hook
    script = (
        "import sys; from pathlib import Path; from memory_sleep.workspace.writer import FileChange, SafeWriter\n"
        "root = Path(sys.argv[1])\n"
        "SafeWriter(root, root / 'snapshots').apply('run-1', [FileChange('a.md', b'a'), FileChange('b.md', b'b')])\n"
    )
    environment = {**os.environ, "MEMORY_SLEEP_CRASH_AFTER_WRITES": "1"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=environment, timeout=60)
    assert done.returncode == 0
    assert (tmp_path / "b.md").read_bytes() == b"b"


def _manifests(folder: Path) -> list:  # type: ignore[type-arg]
    space = Workspace.open(folder)
    return SafeWriter(space.root, space.state_dir / "snapshots").manifests()


def _written_by_the_writer(folder: Path, relative: str) -> bool:
    """The file is as the last run that wrote it left it: nothing rewrote it after its snapshot."""
    last = [f for m in _manifests(folder) for f in m.files if f.path == relative][-1]
    return last.after_sha256 == sha256((folder / relative).read_bytes())


def test_a_run_writes_sleep_log_once_with_the_forgetting_counts(fixture_workspace: Path) -> None:
    config = Config.model_validate(
        {"memory": {"forgetting": {"min_entries": 0, "interval_secs": 0, "retention_threshold": 0.9}}}
    )
    run_offline(fixture_workspace, config=config)
    (fixture_workspace / "memory" / "2026-11-26.md").write_text("- Decided: the demo moves to Friday.\n")
    report = run_offline(fixture_workspace, today=date(2026, 11, 26), config=config)
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert report.record.forgetting["entries"] > 0
    assert log["forgetting"] == report.record.forgetting
    assert _written_by_the_writer(fixture_workspace, "memory/sleep-log.json")


NO_SIDECAR = Config.model_validate({"sidecar": {"enabled": False}})


def _failed_run(folder: Path) -> None:
    (folder / "memory-sleep.toml").write_text("lookback_days = 0\n")
    done = CliRunner().invoke(main, ["run", str(folder), "--today", "2026-11-25", "--engine", "offline"])
    assert done.exit_code == 1
    (folder / "memory-sleep.toml").unlink()


def test_a_failed_runs_record_goes_through_the_writer_and_undo_takes_it_back_with_the_run(
    fixture_workspace: Path,
) -> None:
    original = snapshot_tree(fixture_workspace)
    run_offline(fixture_workspace, config=NO_SIDECAR)
    _failed_run(fixture_workspace)
    _failed_run(fixture_workspace)
    assert [m.action for m in _manifests(fixture_workspace)] == ["run", "failed-run", "failed-run"]
    assert _written_by_the_writer(fixture_workspace, "memory/sleep-log.json")
    dry = CliRunner().invoke(main, ["undo", str(fixture_workspace), "--dry-run"])
    # the first run created the log, the failed runs changed it: undone, it is removed, once
    assert dry.output.count("would remove memory/sleep-log.json (the run created it)") == 1
    assert "would restore MEMORY.md" in dry.output and "sleep-log.json" not in dry.output.replace(
        "would remove memory/sleep-log.json (the run created it)", ""
    )
    done = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert done.exit_code == 0, done.output
    assert snapshot_tree(fixture_workspace) == original
    assert [m.status for m in _manifests(fixture_workspace)] == ["undone"] * 3


def test_undo_after_a_run_that_found_nothing_to_do_says_which_run_it_takes_back(
    fixture_workspace: Path,
) -> None:
    """A run that finds nothing to do leaves no record, so `undo` after it takes back the run before:
    both the dry run and the undo name that run and when it was made, as the last that changed anything."""
    args = [str(fixture_workspace), "--today", "2026-11-25", "--engine", "offline"]
    assert CliRunner().invoke(main, ["run", *args]).exit_code == 0
    again = CliRunner().invoke(main, ["run", *args])
    assert again.exit_code == 0 and "Nothing to do" in again.output
    (manifest,) = _manifests(fixture_workspace)
    made = manifest.created.isoformat(timespec="seconds")
    said = f"run {manifest.run_id}, made {made} (the last run that changed anything)"
    dry = CliRunner().invoke(main, ["undo", str(fixture_workspace), "--dry-run"])
    assert dry.output.splitlines()[0] == f"would undo {said}"
    done = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert done.exit_code == 0 and done.output.startswith(f"Undid {said}: "), done.output


def test_an_edit_after_a_failed_run_blocks_the_whole_undo(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace, config=NO_SIDECAR)
    _failed_run(fixture_workspace)
    memory = fixture_workspace / "MEMORY.md"
    memory.write_text(memory.read_text() + "\nA hand edit.\n")
    before = snapshot_tree(fixture_workspace)
    done = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert done.exit_code == 1 and "Changed since run" in done.output and "MEMORY.md" in done.output
    assert snapshot_tree(fixture_workspace) == before  # the failed run's record was not undone either
    assert [m.status for m in _manifests(fixture_workspace)] == ["done", "done"]
