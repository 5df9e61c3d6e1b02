"""`memory-sleep undo` reaches every change to memory: a run that changed only the sidecar (a GC run
with no MEMORY.md edit, a night whose forgetting pass forgot entries, `memory-sleep forget`), a run
killed after its forgetting pass, and a run refused after it."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.cycle.report import RunOptions
from memory_sleep.cycle.runner import run_cycle
from memory_sleep.cycle.undo import undo_last_run
from memory_sleep.engines.offline import offline_engine
from memory_sleep.errors import GuardError
from memory_sleep.sidecar import open_sidecar
from memory_sleep.workspace.layout import Workspace

from .conftest import run_offline, snapshot_tree
from .reliability_support import cli
from .sidecar_helpers import with_store

NIGHT = date(2026, 12, 10)  # two weeks on: debug items have expired (GC's ttl)
ENTRIES = (
    "SELECT id, deleted_at, deleted_reason, deleted_pass, valid_to, status, ended_by, importance"
    " FROM entries ORDER BY id"
)
MARKS = "SELECT key, value FROM meta WHERE key IN ('gc_last_run_at', 'gc_importance_rated_at') ORDER BY key"
EAGER = {"min_entries": 0, "retention_threshold": 0.9, "interval_secs": 0}  # due every run, forgets a lot


def _config(forgetting: dict[str, float] | None = None, gc: bool = True) -> Config:
    memory = {"forgetting": forgetting or {}, "gc": {"enabled": gc}}
    return with_store(Config.model_validate({"sidecar": {"embedder": "offline"}, "memory": memory}))


def _query(folder: Path, config: Config, sql: str) -> list[tuple[object, ...]]:
    with open_sidecar(folder, config) as sidecar:
        return [tuple(row) for row in sidecar.store.db.execute(sql)]


def _sidecar(folder: Path, config: Config) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    return _query(folder, config, ENTRIES), _query(folder, config, MARKS)


def _gc_now(folder: Path, config: Config) -> list[str]:
    """`memory-sleep gc ttl --today NIGHT`: the run's sidecar passes."""
    options = RunOptions(today=NIGHT, phases=(), gc=("ttl",), forget=False)
    return run_cycle(Workspace.open(folder), config, offline_engine(), options).record.sidecarPasses


@pytest.mark.usefixtures("sidecar_store")
def test_a_gc_run_that_changes_only_the_sidecar_is_undone_and_runs_again_the_same(
    fixture_workspace: Path,
) -> None:
    config = _config()
    run_offline(fixture_workspace, config=config)
    files, before = snapshot_tree(fixture_workspace), _sidecar(fixture_workspace, config)
    (gc_pass,) = _gc_now(fixture_workspace, config)
    after = _sidecar(fixture_workspace, config)
    removed = [row for row in after[0] if row[2] == "gc:ttl"]
    assert removed and snapshot_tree(fixture_workspace, skip_state=True).keys() == files.keys()
    assert (fixture_workspace / "MEMORY.md").read_bytes() == files["MEMORY.md"]  # the sidecar alone
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text(encoding="utf-8"))
    assert log["sidecarPasses"] == [gc_pass] and log["garbageCollection"] == {"ttl_soft_delete": len(removed)}

    outcome = undo_last_run(Workspace.open(fixture_workspace), config)
    assert outcome.passes == [gc_pass] and outcome.sidecar.restored == len(removed)
    assert _sidecar(fixture_workspace, config) == before
    assert snapshot_tree(fixture_workspace) == files
    texts = dict(_query(fixture_workspace, config, "SELECT id, text FROM entries"))
    with open_sidecar(fixture_workspace, config) as sidecar:
        entry_id = int(str(removed[0][0]))
        hits = sidecar.search(str(texts[entry_id]), k=3)
    assert entry_id in [hit.id for hit in hits]

    assert _gc_now(fixture_workspace, config) == [gc_pass]  # the same pass again, on the same sidecar
    assert _sidecar(fixture_workspace, config) == after


def test_a_night_with_no_new_notes_whose_forgetting_pass_forgot_entries_is_undone(
    fixture_workspace: Path,
) -> None:
    config = _config(EAGER, gc=False)
    run_offline(fixture_workspace, config=config)
    files, before = snapshot_tree(fixture_workspace), _query(fixture_workspace, config, ENTRIES)
    again = run_offline(fixture_workspace, config=config)  # no note changed: only the pass, due again
    assert again.record.forgetting.get("forgotten", 0) > 0, again.record.warnings
    assert again.record.filesChanged == []
    (forget_pass,) = again.record.sidecarPasses

    result = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert result.exit_code == 0, result.output
    assert f"undid 1 sidecar pass: {again.record.forgetting['forgotten']} entries back." in result.output
    assert f"Sidecar passes undone: {forget_pass}." in result.output
    assert _query(fixture_workspace, config, ENTRIES) == before and snapshot_tree(fixture_workspace) == files


def test_memory_sleep_forget_is_undone_as_a_change_of_its_own(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(
        "[memory.forgetting]\nmin_entries = 0\nretention_threshold = 0.9\n", encoding="utf-8"
    )
    config = Config.model_validate({"memory": {"forgetting": EAGER}})
    run_offline(fixture_workspace, config=config)
    files, before = snapshot_tree(fixture_workspace), _query(fixture_workspace, config, ENTRIES)
    forgot = CliRunner().invoke(main, ["forget", str(fixture_workspace), "--json"])
    assert forgot.exit_code == 0, forgot.output
    report = json.loads(forgot.output)
    assert report["forgotten"] > 0
    assert snapshot_tree(fixture_workspace) == files  # no file, no sleep-log record: not a run

    undone = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undid `memory-sleep forget` ")
    assert f"{report['forgotten']} entries back" in undone.output
    assert _query(fixture_workspace, config, ENTRIES) == before


def test_memory_sleep_restore_is_undone_as_a_change_of_its_own(fixture_workspace: Path) -> None:
    config = _config(EAGER, gc=False)
    run_offline(fixture_workspace, config=config)
    night = run_offline(fixture_workspace, config=config)  # the pass forgets; the night is undoable
    (forget_pass,) = night.record.sidecarPasses
    forgotten = _query(fixture_workspace, config, ENTRIES)
    restores = "SELECT entry_id, restored_at FROM entry_restores ORDER BY entry_id"
    restored_before = _query(fixture_workspace, config, restores)

    restored = CliRunner().invoke(main, ["restore", "--pass", forget_pass, str(fixture_workspace), "--json"])
    assert restored.exit_code == 0, restored.output
    assert len(json.loads(restored.output)["restored"]) == night.record.forgetting["forgotten"]

    undone = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undid `memory-sleep restore` "), undone.output
    assert f"{night.record.forgetting['forgotten']} restored entries deleted again." in undone.output
    assert _query(fixture_workspace, config, ENTRIES) == forgotten  # forgotten again, by the same pass
    assert _query(fixture_workspace, config, restores) == restored_before
    again = CliRunner().invoke(main, ["undo", str(fixture_workspace)])  # then the night itself
    assert again.exit_code == 0 and f"Sidecar passes undone: {forget_pass}." in again.output, again.output


@pytest.mark.usefixtures("sidecar_store")
def test_a_run_refused_after_its_forgetting_pass_changes_nothing_and_undo_reverts_the_run_before(
    fixture_workspace: Path,
) -> None:
    config = _config(EAGER)
    pristine = snapshot_tree(fixture_workspace)
    run_offline(fixture_workspace, config=config)
    before = _query(fixture_workspace, config, ENTRIES)
    (fixture_workspace / "MEMORY.md").write_bytes(b"")  # the memory-loss guard refuses the next run
    with pytest.raises(GuardError):
        run_offline(fixture_workspace, NIGHT, config=config)
    assert _query(fixture_workspace, config, ENTRIES) == before  # its pass was rolled back with it

    outcome = undo_last_run(Workspace.open(fixture_workspace), config, force=True)
    assert snapshot_tree(fixture_workspace) == pristine
    assert _query(
        fixture_workspace, config, "SELECT count(*) FROM entries WHERE deleted_reason = 'forgotten'"
    ) == [(0,)]
    assert outcome.manifest.status == "undone"


@pytest.mark.slow
@pytest.mark.parametrize("write", [0, 3])
@pytest.mark.parametrize("then", [["undo"], ["run", "undo"]])
def test_a_run_killed_after_its_forgetting_pass_is_rolled_back_whole(
    fixture_workspace: Path, write: int, then: list[str]
) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(
        "[memory.forgetting]\nmin_entries = 0\nretention_threshold = 0.9\ninterval_secs = 0\n",
        encoding="utf-8",
    )
    config = Config.model_validate({"memory": {"forgetting": EAGER}})
    run_offline(fixture_workspace, config=config)
    files, before = snapshot_tree(fixture_workspace), _query(fixture_workspace, config, ENTRIES)
    night = ["run", str(fixture_workspace), "--today", NIGHT.isoformat(), "--engine", "offline", "-q"]
    assert cli(*night, crash_before_write=write).returncode == 137
    forgotten = "SELECT count(*) FROM entries WHERE deleted_reason = 'forgotten'"
    assert _query(fixture_workspace, config, forgotten) != [(0,)]  # the pass ran, then the process died

    for verb in then:
        command = night if verb == "run" else ["undo", str(fixture_workspace)]
        done = cli(*command)
        assert done.returncode == 0, done.stderr
    if then == ["undo"]:
        assert done.stdout.startswith("Rolled back run ") and "entries back" in done.stdout, done.stdout
    assert snapshot_tree(fixture_workspace) == files
    assert _query(fixture_workspace, config, ENTRIES)[: len(before)] == before
