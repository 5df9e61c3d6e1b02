"""Concurrency: one run at a time per workspace (wait or a clear refusal), a stale lock from a killed
process, recall while a run indexes, and two workspaces side by side."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memory_sleep.sidecar import open_sidecar

from .conftest import run_offline, snapshot_tree
from .reliability_support import cli, comparable_tree, copy_fixture, run_command

# holds the workspace lock like a run in progress: says "locked", then waits for a line on stdin
HOLDER = """
import sys
from pathlib import Path
from memory_sleep.workspace.lock import workspace_lock
with workspace_lock(Path(sys.argv[1]) / "memory" / ".sleep", 0):
    print("locked", flush=True)
    sys.stdin.readline()
"""


def _hold_lock(folder: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.communicate("\n", timeout=30)


@pytest.fixture(scope="module")
def clean_result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = copy_fixture(tmp_path_factory.mktemp("clean") / "workspace")
    run_offline(folder)
    return comparable_tree(folder)


def test_a_second_run_exits_1_naming_the_holder_and_changes_nothing(fixture_workspace: Path) -> None:
    before = snapshot_tree(fixture_workspace)
    holder = _hold_lock(fixture_workspace)
    try:
        done = cli(*run_command(fixture_workspace, "--wait", "0"))
    finally:
        _release(holder)
    assert done.returncode == 1
    lock = fixture_workspace / "memory" / ".sleep" / "lock"
    assert done.stderr.startswith(f"Error: Another memory-sleep run holds {lock} (pid {holder.pid} on "), (
        done.stderr
    )
    assert done.stderr.rstrip().endswith(
        "Wait for it to finish and rerun (`run` and `index` take --wait SECONDS; "
        "lock_timeout_secs in memory-sleep.toml sets how long every command waits)."
    ), done.stderr
    assert snapshot_tree(fixture_workspace) == before


def test_index_waits_for_the_run_holding_the_workspace_or_stops(fixture_workspace: Path) -> None:
    """`index` rewrites the sidecar a run is rewriting: it takes the run's lock; a dry run reads only."""
    before = snapshot_tree(fixture_workspace)
    holder = _hold_lock(fixture_workspace)
    try:
        refused = cli("index", str(fixture_workspace))
        waited = cli("index", str(fixture_workspace), "--wait", "0.2")
        unchanged = snapshot_tree(fixture_workspace)
        dry = cli("index", str(fixture_workspace), "--dry-run")
    finally:
        _release(holder)
    assert refused.returncode == 1 and refused.stderr.startswith("Error: Another memory-sleep run holds "), (
        refused.stderr
    )
    assert waited.returncode == 1 and dry.returncode == 0, (waited.stderr, dry.stderr)
    assert unchanged == before
    assert cli("index", str(fixture_workspace), "--wait", "5").returncode == 0


@pytest.mark.slow
def test_a_second_run_with_wait_runs_once_the_first_ends(
    fixture_workspace: Path, clean_result: dict[str, bytes]
) -> None:
    holder = _hold_lock(fixture_workspace)
    threading.Timer(1.5, _release, [holder]).start()
    started = time.monotonic()
    done = cli(*run_command(fixture_workspace, "--wait", "60"))
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started > 1.4
    assert comparable_tree(fixture_workspace) == clean_result


@pytest.mark.slow
def test_two_runs_started_together_do_the_work_once(
    fixture_workspace: Path, clean_result: dict[str, bytes]
) -> None:
    command = [
        sys.executable,
        "-m",
        "memory_sleep",
        *run_command(fixture_workspace, "--wait", "120", quiet=False),
    ]
    runs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert sorted("Nothing to do" in out for out, _ in outputs) == [False, True], outputs
    assert comparable_tree(fixture_workspace) == clean_result


@pytest.mark.slow
def test_a_stale_lock_from_a_killed_run_is_recovered(
    fixture_workspace: Path, clean_result: dict[str, bytes]
) -> None:
    holder = _hold_lock(fixture_workspace)
    holder.send_signal(signal.SIGKILL)
    holder.communicate(timeout=30)
    assert (fixture_workspace / "memory" / ".sleep" / "lock.holder").exists()  # left behind by the dead run
    done = cli(*run_command(fixture_workspace, "--wait", "0"))
    assert done.returncode == 0, done.stderr
    assert comparable_tree(fixture_workspace) == clean_result
    assert not (fixture_workspace / "memory" / ".sleep" / "lock.holder").exists()


@pytest.mark.slow
def test_recall_works_while_a_run_writes_and_indexes(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)  # the sidecar holds the workspace
    (fixture_workspace / "memory" / "2026-11-25.md").write_text(
        "".join(f"- Decided: service {n} moves to Postgres 17 on host db-{n}.\n" for n in range(300))
    )
    command = [sys.executable, "-m", "memory_sleep", *run_command(fixture_workspace, "--today", "2026-11-26")]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answered = 0
    with open_sidecar(fixture_workspace) as sidecar:
        while run.poll() is None:
            assert sidecar.recall("Postgres", k=3)
            answered += 1
    _, err = run.communicate()
    assert run.returncode == 0, err
    assert answered > 0
    with open_sidecar(fixture_workspace) as sidecar:
        assert any("Postgres 17" in hit.text for hit in sidecar.search("service moves to Postgres 17", k=5))
        assert sidecar.stats()["queries_logged"] == answered


def test_recall_waits_out_an_open_index_transaction_and_search_does_not(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    with open_sidecar(fixture_workspace) as indexer, open_sidecar(fixture_workspace) as reader:
        indexer.store.db.execute("BEGIN IMMEDIATE")
        indexer.store.db.execute("UPDATE entries SET importance = importance")
        threading.Timer(0.5, indexer.store.db.execute, ["COMMIT"]).start()
        started = time.monotonic()
        assert reader.search("Postgres", k=3)  # WAL: readers never wait for the writer
        assert time.monotonic() - started < 0.4
        assert reader.recall("Postgres", k=3)  # logging the query waits for the commit, then succeeds
        assert time.monotonic() - started >= 0.45


@pytest.mark.slow
def test_two_workspaces_run_in_parallel_independently(tmp_path: Path, clean_result: dict[str, bytes]) -> None:
    folders = [copy_fixture(tmp_path / name) for name in ("first", "second")]
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "memory_sleep", *run_command(folder)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in folders
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    for folder in folders:
        assert comparable_tree(folder) == clean_result
