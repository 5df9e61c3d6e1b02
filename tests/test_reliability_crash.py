"""Crash safety: a real `memory-sleep run` process killed at every write, at random times and inside the
sidecar's SQLite transaction. Each time every file is its old or its new version, the next run completes
with the clean run's result, and `undo` gives back the workspace as it was before, byte for byte."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.cycle.undo import recover_runs
from memory_sleep.sidecar import open_sidecar
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.writer import SafeWriter

from .conftest import run_offline, snapshot_tree
from .reliability_support import (
    TEMPORARY,
    changed_count,
    cli,
    comparable_tree,
    copy_fixture,
    mixed_files,
    run_command,
)

pytestmark = pytest.mark.slow  # crash at every write point, SIGKILL loops
WORKERS = 2
NO_SIDECAR = Config(sidecar=SidecarConfig(enabled=False))

# `python -m memory_sleep ARGS`, SIGKILLed by itself when the OPENING-th sidecar connection it opens
# (1: the forgetting pass, before the markdown is written; 2: indexing, after it) is about to run
# statement KILL_AT (counted from its first BEGIN; "COMMIT" means just before its first commit)
SQLITE_KILLER = """
import os, runpy, signal, sys
from memory_sleep.sidecar.store import Store

opening, kill_at = int(sys.argv[1]), sys.argv[2]
opened, seen = [], []

def trace(statement):
    if seen or statement.startswith("BEGIN"):
        seen.append(statement)
        if (kill_at == "COMMIT" and statement.startswith("COMMIT")) or str(len(seen)) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

real_open = Store.open

def traced_open(*args, **kwargs):
    store = real_open(*args, **kwargs)
    opened.append(store)
    if len(opened) == opening:
        store.db.set_trace_callback(trace)
    return store

Store.open = staticmethod(traced_open)
sys.argv = ["memory-sleep", *sys.argv[3:]]
runpy.run_module("memory_sleep", run_name="__main__")
"""


@dataclass(frozen=True)
class Reference:
    old: dict[str, bytes]  # compared files before the run
    old_user: dict[str, bytes]  # every file outside memory/.sleep before the run, exact bytes
    new: dict[str, bytes]  # compared files after a clean run
    writes: int  # files a clean run writes
    seconds: float  # how long a clean run's process takes
    live_entries: int  # sidecar entries after a clean run


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    folder = copy_fixture(tmp_path_factory.mktemp("reference") / "workspace")
    old, old_user = comparable_tree(folder), snapshot_tree(folder)
    started = time.monotonic()
    done = cli(*run_command(folder))
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    manifests = _writer(folder).manifests()
    live = _live_entries(folder)
    return Reference(old, old_user, comparable_tree(folder), len(manifests[-1].files), seconds, live)


def _writer(folder: Path) -> SafeWriter:
    space = Workspace.open(folder)
    return SafeWriter(space.root, space.state_dir / "snapshots")


def _in_parallel(
    jobs: list[tuple[Path, object]],
    start: Callable[[Path, object], subprocess.CompletedProcess[str]],
    check: Callable[[Path, object, subprocess.CompletedProcess[str]], None],
) -> None:
    """Run `start` on fresh workspace copies, two processes at a time; `check` each as it ends."""

    def one(job: tuple[Path, object]) -> tuple[Path, object, subprocess.CompletedProcess[str]]:
        folder, point = job
        copy_fixture(folder)
        return folder, point, start(folder, point)

    with ThreadPoolExecutor(WORKERS) as pool:
        for folder, point, done in pool.map(one, jobs):
            check(folder, point, done)


def _assert_recovers(folder: Path, reference: Reference, config: Config = NO_SIDECAR) -> list[str]:
    """The next run completes with the clean run's result; undo then restores the old workspace."""
    report = run_offline(folder, config=config)
    assert comparable_tree(folder) == reference.new
    assert not [p for p in folder.rglob(".*.tmp") if TEMPORARY.match(p.name)]  # leftovers swept
    _writer(folder).undo()
    assert snapshot_tree(folder) == reference.old_user
    return report.rolled_back


def test_killed_before_each_write_leaves_old_or_new_files_and_recovers(
    tmp_path: Path, reference: Reference
) -> None:
    assert reference.writes > 20  # MEMORY.md, weekly, briefing, archive, state, sleep-log
    full_checks = {0, 1, reference.writes // 2, reference.writes - 1, reference.writes}

    def check(folder: Path, point: object, done: subprocess.CompletedProcess[str]) -> None:
        n = int(point)  # type: ignore[call-overload]
        complete = n == reference.writes
        assert done.returncode == (0 if complete else 137), (n, done.stderr)
        now = comparable_tree(folder)
        assert mixed_files(now, reference.old, reference.new) == [], n
        assert changed_count(now, reference.old) == n, n
        assert not list(folder.rglob("*.tmp")), n
        if n in full_checks:
            assert len(_assert_recovers(folder, reference)) == (0 if complete else 1), n
        else:  # recovery puts back the old files exactly, so the next run is the clean run (checked above)
            space = Workspace.open(folder)  # the run's forgetting pass is rolled back with its files
            assert len(recover_runs(space, Config(), _writer(folder))) == 1, n
            assert comparable_tree(folder) == reference.old, n

    _in_parallel(
        [(tmp_path / f"crash-{n}", n) for n in range(reference.writes + 1)],
        lambda folder, n: cli(*run_command(folder), crash_before_write=int(n)),  # type: ignore[call-overload]
        check,
    )


def test_recovery_and_undo_through_the_command_line(tmp_path: Path, reference: Reference) -> None:
    folder = copy_fixture(tmp_path / "workspace")
    assert cli(*run_command(folder), crash_before_write=5).returncode == 137
    done = cli(*run_command(folder, quiet=False))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Recovered: rolled back run "), done.stdout
    assert comparable_tree(folder) == reference.new
    undone = cli("undo", str(folder))
    assert undone.returncode == 0 and undone.stdout.startswith("Undid run "), undone.stderr
    assert snapshot_tree(folder) == reference.old_user


def test_sigkill_at_random_times_leaves_old_or_new_files_and_recovers(
    tmp_path: Path, reference: Reference
) -> None:
    chooser = random.Random(8)
    delays = sorted(chooser.uniform(0.3, 1.1) * reference.seconds for _ in range(5))

    def kill_after(folder: Path, delay: object) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memory_sleep", *run_command(folder)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(float(delay))  # type: ignore[arg-type]
        process.send_signal(signal.SIGKILL)
        out, err = process.communicate(timeout=60)
        return subprocess.CompletedProcess(command, process.returncode, out, err)

    def check(folder: Path, delay: object, done: subprocess.CompletedProcess[str]) -> None:
        assert done.returncode in (0, -signal.SIGKILL), (delay, done.stderr)
        assert mixed_files(comparable_tree(folder), reference.old, reference.new) == [], delay
        _assert_recovers(folder, reference, Config())
        assert _live_entries(folder) == reference.live_entries

    _in_parallel([(tmp_path / f"kill-{i}", d) for i, d in enumerate(delays)], kill_after, check)


@pytest.mark.parametrize(
    ("opening", "kill_at"), [(1, "1"), (1, "COMMIT"), (2, "1"), (2, "300"), (2, "5000"), (2, "COMMIT")]
)
def test_sigkill_inside_the_sidecar_transaction_loses_nothing(
    tmp_path: Path, reference: Reference, opening: int, kill_at: str
) -> None:
    folder = copy_fixture(tmp_path / "workspace")
    command = [sys.executable, "-c", SQLITE_KILLER, str(opening), kill_at, *run_command(folder)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    # the forgetting pass runs before the markdown is written, indexing after it; the database rolled
    # the transaction back
    assert comparable_tree(folder) == (reference.old if opening == 1 else reference.new)
    with open_sidecar(folder) as sidecar:
        assert sidecar.store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert sidecar.stats()["live"] == 0
    _assert_recovers(folder, reference, Config())
    assert _live_entries(folder) == reference.live_entries
    with open_sidecar(folder) as sidecar:
        assert sidecar.search("Postgres", k=3)


def test_an_undo_killed_half_way_is_finished_by_the_next_undo(tmp_path: Path, reference: Reference) -> None:
    folder = copy_fixture(tmp_path / "workspace")
    run_offline(folder, config=NO_SIDECAR)
    half = reference.writes // 2
    assert cli("undo", str(folder), crash_before_write=half).returncode == 137
    now = comparable_tree(folder)
    assert mixed_files(now, reference.old, reference.new) == []
    assert changed_count(now, reference.new) == half
    undone = cli("undo", str(folder))
    assert undone.returncode == 0, undone.stderr
    assert snapshot_tree(folder) == reference.old_user


def test_a_run_after_an_undo_killed_half_way_starts_from_the_old_files(
    tmp_path: Path, reference: Reference
) -> None:
    folder = copy_fixture(tmp_path / "workspace")
    run_offline(folder, config=NO_SIDECAR)
    assert cli("undo", str(folder), crash_before_write=reference.writes // 2).returncode == 137
    # half-undone files must not be taken as the state to build on: that would drop the items whose
    # entries were undone while the state still says they were integrated
    report = run_offline(folder, config=NO_SIDECAR)
    assert len(report.rolled_back) == 1
    assert comparable_tree(folder) == reference.new
    _writer(folder).undo()
    assert snapshot_tree(folder) == reference.old_user


def _live_entries(folder: Path) -> int:
    with open_sidecar(folder) as sidecar:
        live = sidecar.stats()["live"]
    assert isinstance(live, int)
    return live
