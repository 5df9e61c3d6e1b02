"""`memory-sleep undo` undoes a run's sidecar passes with its files: GC's and SleepGate's soft deletes,
GC's merges, ratings, validity marks and last-run mark; twice, after an interruption, and with an
old sleep-log.json that does not name its passes."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import time_machine
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.cycle.planner import Planner
from memory_sleep.cycle.report import RunReport
from memory_sleep.cycle.undo import undo_last_run
from memory_sleep.gc import registry
from memory_sleep.gc.actions import StrategyName
from memory_sleep.gc.apply import GcPlan
from memory_sleep.gc.hook import GcStep
from memory_sleep.sleepgate.undo import UndoReport, undo_passes
from memory_sleep.workspace.atomic import sha256
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.writer import Manifest, SafeWriter

from .conftest import run_offline, snapshot_tree
from .gc_helpers import collect, deleted, noon
from .reliability_support import cli
from .sidecar_helpers import NOW, make_workspace, open_at
from .test_gc_apply import NOTES, Scripted

NIGHT = date(2026, 12, 10)  # two weeks after the fixture's first run: GC's ttl and compaction act
# every column GC or SleepGate may change, with the marks GC keeps in meta
ENTRIES = (
    "SELECT id, deleted_at, deleted_reason, deleted_pass, valid_to, status, ended_by, importance"
    " FROM entries ORDER BY id"
)
MARKS = "SELECT key, value FROM meta WHERE key IN ('gc_last_run_at', 'gc_importance_rated_at') ORDER BY key"


def _query(folder: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(folder / "memory" / ".sleep" / "sidecar.db") as db:
        return list(db.execute(sql))


def _state(folder: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    return _query(folder, ENTRIES), _query(folder, MARKS)


def _undo(folder: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["undo", str(folder), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _gc_removed(folder: Path) -> dict[int, str]:
    return dict(  # type: ignore[arg-type]
        _query(folder, "SELECT id, deleted_reason FROM entries WHERE deleted_reason LIKE 'gc:%'")
    )


def test_undo_brings_back_what_gc_soft_deleted_and_the_night_runs_again_the_same(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    entries_before, marks_before = _state(fixture_workspace)
    first = run_offline(fixture_workspace, NIGHT)
    removed = _gc_removed(fixture_workspace)
    assert first.gc is not None and "gc:ttl" in removed.values()
    gone = next(i for i, reason in removed.items() if reason == "gc:ttl")
    (text,) = _query(fixture_workspace, f"SELECT text FROM entries WHERE id = {gone}")[0]

    output = _undo(fixture_workspace)
    assert _gc_removed(fixture_workspace) == {}
    assert _query(fixture_workspace, MARKS) == marks_before  # gc_last_run_at as before the night
    live = dict(_query(fixture_workspace, "SELECT id, deleted_at FROM entries"))
    assert all(live[entry_id] is None for entry_id in removed)
    recall = CliRunner().invoke(main, ["recall", str(text), str(fixture_workspace), "-k", "3", "--json"])
    assert recall.exit_code == 0 and gone in [hit["id"] for hit in json.loads(recall.output)]
    # the entries as they stood before the night (rows the night's index added come after them)
    assert _query(fixture_workspace, ENTRIES)[: len(entries_before)] == entries_before
    # GC's pass and the night's SleepGate pass
    assert f"undid 2 sidecar passes: {len(removed)} entries back, 1 GC entry removed." in output

    again = run_offline(fixture_workspace, NIGHT)
    assert again.gc is not None and again.record.garbageCollection == first.record.garbageCollection
    assert _gc_removed(fixture_workspace) == removed


def test_undo_of_a_gc_merge_removes_the_merged_entry_and_revives_the_originals(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    before = dict((row[0], row[1:]) for row in _query(fixture_workspace, ENTRIES))
    run_offline(fixture_workspace, NIGHT)
    merged = _query(fixture_workspace, "SELECT id FROM entries WHERE source_path = 'gc:compaction'")
    originals = _query(fixture_workspace, "SELECT id FROM entries WHERE deleted_reason = 'gc:compaction'")
    assert merged and originals
    marked = _query(fixture_workspace, "SELECT id FROM entries WHERE ended_by LIKE '%(gc:%'")
    assert sorted(marked) == sorted(originals)  # superseded by the merged entry

    _undo(fixture_workspace)
    ((merged_id,),) = merged
    assert _query(fixture_workspace, f"SELECT deleted_reason FROM entries WHERE id = {merged_id}") == [
        ("undone",)
    ]
    assert _query(fixture_workspace, "SELECT id FROM entries WHERE ended_by LIKE '%(gc:%'") == []
    now = dict((row[0], row[1:]) for row in _query(fixture_workspace, ENTRIES))
    for (entry_id,) in originals:
        assert now[entry_id] == before[entry_id]  # live, valid, rated as before the night
        assert now[entry_id][0] is None


def test_undo_brings_back_what_the_runs_forgetting_pass_forgot(fixture_workspace: Path) -> None:
    config = Config.model_validate(
        {"memory": {"forgetting": {"min_entries": 0, "retention_threshold": 0.9, "interval_secs": 1}}}
    )
    # each step on a clock of its own night: the pass's due time, run ids and records never hang on
    # how long a run took or on the real clock (a loaded machine, a clock stepped back)
    with time_machine.travel(datetime(2026, 11, 25, 23, tzinfo=UTC)):
        run_offline(fixture_workspace, config=config)
    entries_before = _query(fixture_workspace, ENTRIES)
    passes_before = _query(fixture_workspace, "SELECT id FROM forgetting_passes")
    with time_machine.travel(datetime(2026, 12, 10, 23, tzinfo=UTC)):
        report = run_offline(fixture_workspace, NIGHT, config=config)
    assert report.record.forgetting["forgotten"] > 0
    forget_pass = next(p for p in report.record.sidecarPasses if p.startswith("forget-"))
    assert (
        _query(fixture_workspace, f"SELECT count(*) FROM entries WHERE deleted_pass = '{forget_pass}'")[0][0]
        == report.record.forgetting["forgotten"]
    )

    with time_machine.travel(datetime(2026, 12, 11, 8, tzinfo=UTC)):
        _undo(fixture_workspace)
    assert _query(fixture_workspace, "SELECT id FROM forgetting_passes") == passes_before  # due again
    assert _query(fixture_workspace, ENTRIES)[: len(entries_before)] == entries_before


def test_undo_twice_goes_back_two_nights_and_a_third_finds_nothing(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    run_offline(fixture_workspace, NIGHT)
    assert "undid 2 sidecar passes" in _undo(fixture_workspace)  # the night's GC and SleepGate
    assert "undid 2 sidecar passes" in _undo(fixture_workspace)  # the first night's
    assert _query(fixture_workspace, MARKS) == []
    assert _query(fixture_workspace, "SELECT count(*) FROM forgetting_passes") == [(0,)]
    assert _query(fixture_workspace, "SELECT count(*) FROM meta WHERE key LIKE 'gc_undo:%'") == [(0,)]
    result = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert result.exit_code == 1 and "Nothing to undo" in result.output


def test_an_undo_interrupted_after_the_sidecar_is_finished_by_the_next(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_offline(fixture_workspace)
    files_before = snapshot_tree(fixture_workspace)
    entries_before, marks_before = _state(fixture_workspace)
    run_offline(fixture_workspace, NIGHT)
    dry = _undo(fixture_workspace, "--dry-run")
    assert "would restore MEMORY.md" in dry and "would undo sidecar pass gc-20261210T" in dry

    def killed(self: SafeWriter, manifest: Manifest) -> None:
        raise KeyboardInterrupt  # the process dies once the sidecar is undone, before any file

    with monkeypatch.context() as patch:
        patch.setattr(SafeWriter, "_restore", killed)
        with pytest.raises(KeyboardInterrupt):
            undo_last_run(Workspace.open(fixture_workspace), Config())
    assert _query(fixture_workspace, MARKS) == marks_before  # the sidecar is back already

    # the passes were undone by the first undo: this one puts the files back, and undoes no pass,
    # which its dry run says too
    dry = _undo(fixture_workspace, "--dry-run")
    assert "would restore MEMORY.md" in dry and "sidecar pass" not in dry
    assert "sidecar pass" not in _undo(fixture_workspace)
    assert snapshot_tree(fixture_workspace) == files_before
    assert _query(fixture_workspace, MARKS) == marks_before
    assert _query(fixture_workspace, ENTRIES)[: len(entries_before)] == entries_before


def test_a_run_killed_before_its_gc_step_undoes_its_files_and_counts_no_gc_pass(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_offline(fixture_workspace)
    files_before, marks_before = snapshot_tree(fixture_workspace), _query(fixture_workspace, MARKS)

    def killed(self: GcStep, plan: GcPlan) -> None:
        raise KeyboardInterrupt  # the process dies once the run's files are written

    with monkeypatch.context() as patch:
        patch.setattr(GcStep, "apply", killed)
        with pytest.raises(KeyboardInterrupt):
            run_offline(fixture_workspace, NIGHT)
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text(encoding="utf-8"))
    assert log["today"] == NIGHT.isoformat() and log["sidecarPasses"]  # it names a pass never applied

    output = _undo(fixture_workspace)
    assert (
        "restored 7 files, removed 1 file it created; undid 1 sidecar pass." in output and "gc-" not in output
    )  # SleepGate's
    assert (
        snapshot_tree(fixture_workspace) == files_before and _query(fixture_workspace, MARKS) == marks_before
    )


def test_a_run_logged_before_sidecar_passes_were_recorded_still_undoes_its_files(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    files_before = snapshot_tree(fixture_workspace)
    run_offline(fixture_workspace, NIGHT)
    log_file = fixture_workspace / "memory" / "sleep-log.json"
    log = json.loads(log_file.read_text(encoding="utf-8"))
    for record in [log, *log["history"]]:
        del record["sidecarPasses"]
    old = (json.dumps(log, indent=2) + "\n").encode()
    log_file.write_bytes(old)
    # as the version before this field wrote it: the run's manifest names this file's hash
    snapshots = fixture_workspace / "memory" / ".sleep" / "snapshots"
    path = max(snapshots.glob("*/manifest.json"))
    manifest = Manifest.model_validate_json(path.read_bytes())
    for entry in manifest.files:
        if entry.path == "memory/sleep-log.json":
            entry.after_sha256 = sha256(old)
    path.write_text(manifest.model_dump_json(indent=1), encoding="utf-8")

    output = _undo(fixture_workspace)
    assert "gc-" not in output  # SleepGate's pass is undone: the run's manifest names it
    assert snapshot_tree(fixture_workspace) == files_before
    assert _gc_removed(fixture_workspace)  # left for `memory-sleep restore --pass ID`


def test_undo_finds_the_runs_passes_when_the_clock_stepped_back_during_it(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_offline(fixture_workspace)
    marks_before = _query(fixture_workspace, MARKS)
    log_file = fixture_workspace / "memory" / "sleep-log.json"
    first = datetime.fromisoformat(json.loads(log_file.read_text(encoding="utf-8"))["lastRun"])
    planned = Planner.plan

    def stepped_back(self: Planner, run_id: str) -> RunReport:
        # the clock steps back (an NTP correction) after the run took its id: the run's record is
        # stamped no later than the first run's, though it is the newer one
        with time_machine.travel(first, tick=False):
            return planned(self, run_id)

    monkeypatch.setattr(Planner, "plan", stepped_back)
    night = run_offline(fixture_workspace, NIGHT)
    assert night.gc is not None and _gc_removed(fixture_workspace)
    assert night.record.lastRun == first

    assert "undid 2 sidecar passes" in _undo(fixture_workspace)
    assert _gc_removed(fixture_workspace) == {} and _query(fixture_workspace, MARKS) == marks_before


@pytest.mark.usefixtures("sidecar_store")
def test_undoing_a_gc_pass_twice_puts_the_store_back_once_on_both_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    supersede = ("supersede", ["- Raj owns the billing service"], "- Tom owns the billing service now", None)
    merge = ("merge", ["- The cutover is on 12-01", "- Cutover happens December 1st"], None, "On 12-01")
    monkeypatch.setitem(registry.REGISTRY, "contradiction", Scripted("contradiction", [supersede]))
    monkeypatch.setitem(registry.REGISTRY, "compaction", Scripted("compaction", [merge]))
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        store = sidecar.store
        before = list(store.db.execute(ENTRIES)), list(store.db.execute(MARKS))
        names: tuple[StrategyName, ...] = ("importance", "contradiction", "compaction")
        pass_id = collect(sidecar, names, noon(date(2026, 11, 25))).decision.pass_id
        assert list(store.db.execute(MARKS)) != before[1] and deleted(sidecar)
        # a second GC run of the day while the first can still be undone: an id of its own
        assert collect(sidecar, (), noon(date(2026, 11, 25))).decision.pass_id == f"{pass_id}-2"

        assert undo_passes(store, [f"{pass_id}-2", pass_id], NOW) == UndoReport(
            restored=2, removed=1, passes=[f"{pass_id}-2", pass_id]
        )
        after = list(store.db.execute(ENTRIES))
        assert after[: len(before[0])] == before[0]  # ratings, validity, soft deletes as before
        assert [row[2] for row in after[len(before[0]) :]] == ["undone"]  # the merged statement
        assert list(store.db.execute(MARKS)) == before[1]
        assert undo_passes(store, [pass_id], NOW) == UndoReport()
        assert list(store.db.execute(ENTRIES)) == after


@pytest.mark.slow
@pytest.mark.parametrize("write", [0, 3])
def test_an_undo_process_killed_after_the_sidecar_is_finished_by_the_next(
    fixture_workspace: Path, write: int
) -> None:
    run_offline(fixture_workspace)
    files_before, marks_before = snapshot_tree(fixture_workspace), _query(fixture_workspace, MARKS)
    run_offline(fixture_workspace, NIGHT)
    assert cli("undo", str(fixture_workspace), crash_before_write=write).returncode == 137
    assert _query(fixture_workspace, MARKS) == marks_before and _gc_removed(fixture_workspace) == {}
    assert snapshot_tree(fixture_workspace) != files_before
    done = cli("undo", str(fixture_workspace))
    assert done.returncode == 0 and done.stdout.startswith("Undid run "), done.stderr
    assert snapshot_tree(fixture_workspace) == files_before
    assert _query(fixture_workspace, MARKS) == marks_before and _gc_removed(fixture_workspace) == {}


def test_an_undo_refused_for_an_edited_file_leaves_the_sidecar_alone(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    marks_before = _query(fixture_workspace, MARKS)
    run_offline(fixture_workspace, NIGHT)
    removed, marks = _gc_removed(fixture_workspace), _query(fixture_workspace, MARKS)
    with (fixture_workspace / "MEMORY.md").open("a", encoding="utf-8") as memory:
        memory.write("\nA line a person added.\n")
    refused = CliRunner().invoke(main, ["undo", str(fixture_workspace)])
    assert refused.exit_code == 1 and "undo --force" in refused.output
    assert _gc_removed(fixture_workspace) == removed and _query(fixture_workspace, MARKS) == marks
    assert "undid 2 sidecar passes" in _undo(fixture_workspace, "--force")
    assert _gc_removed(fixture_workspace) == {} and _query(fixture_workspace, MARKS) == marks_before
