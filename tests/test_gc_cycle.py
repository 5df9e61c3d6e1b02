"""GC on the fixture workspace: `memory-sleep gc` as a run of its own (undo, restore, dry run, JSON),
and the scheduled strategies inside the nightly cycle, after SleepGate, as edits of the run's plan."""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config

from .conftest import run_offline, snapshot_tree

OLD = "[Atlas] Move billing off the legacy Rails monolith"
RECENT = "[Beacon] Android: approved, still held for 11-26"


def _mark_an_entry(folder: Path, entry: str = OLD) -> str:
    """Put an inline `ttl: 1d` on an entry of MEMORY.md; the file's new text."""
    memory = folder / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    assert f"- {entry}" in text
    memory.write_text(text.replace(f"- {entry}", f"- ttl: 1d {entry}", 1), "utf-8")
    return memory.read_text(encoding="utf-8")


def _gc(folder: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["gc", *args, str(folder), "--engine", "offline", "--today", "2026-12-20"]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _soft_deleted(folder: Path) -> dict[str, int]:
    with sqlite3.connect(folder / "memory" / ".sleep" / "sidecar.db") as db:
        return dict(
            db.execute("SELECT deleted_reason, count(*) FROM entries WHERE deleted_at IS NOT NULL GROUP BY 1")
        )


def test_gc_ttl_archives_from_memory_md_soft_deletes_notes_and_both_come_back(
    fixture_workspace: Path,
) -> None:
    run_offline(fixture_workspace)
    marked = _mark_an_entry(fixture_workspace)
    output = _gc(fixture_workspace, "ttl")
    memory = (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert f"ttl: 1d {OLD}" not in memory
    archive = (fixture_workspace / "memory" / "archive.md").read_text(encoding="utf-8")
    assert "gc:ttl: expired 2026-10-28 (ttl: 1d) [expired 2026-10-28]" in archive
    assert _soft_deleted(fixture_workspace)["gc:ttl"] > 0  # debug note items, 7 days by default
    pass_id = output.split("restore --pass ")[1].split("`")[0]
    restored = CliRunner().invoke(main, ["restore", "--pass", pass_id, str(fixture_workspace)])
    assert restored.exit_code == 0 and restored.output.startswith("Restored")
    assert "gc:ttl" not in _soft_deleted(fixture_workspace)
    undone = CliRunner().invoke(main, ["undo", str(fixture_workspace)])  # the restore is a change too
    assert undone.exit_code == 0 and undone.output.startswith("Undid `memory-sleep restore` ")
    assert _soft_deleted(fixture_workspace)["gc:ttl"] > 0
    assert CliRunner().invoke(main, ["undo", str(fixture_workspace)]).exit_code == 0
    assert (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8") == marked
    assert "gc:ttl" not in _soft_deleted(fixture_workspace)


def test_gc_dry_run_changes_nothing_and_json_lists_the_actions(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    _mark_an_entry(fixture_workspace)
    CliRunner().invoke(main, ["index", str(fixture_workspace)])
    before, deleted_before = snapshot_tree(fixture_workspace), _soft_deleted(fixture_workspace)
    report = json.loads(_gc(fixture_workspace, "all", "--dry-run", "--json"))
    assert snapshot_tree(fixture_workspace) == before and _soft_deleted(fixture_workspace) == deleted_before
    assert report["dry_run"] is True and report["strategies"] == [
        "ttl",
        "importance",
        "decay",
        "usage",
        "contradiction",
        "compaction",
        "summarization",
    ]  # capacity is off unless enabled: a limit for a fleet's per-user scopes
    assert report["counts"]["ttl_soft_delete"] > 0 and report["counts"]["importance_rate"] > 0
    edits = [(edit["op"], edit["reason"].split(":", 2)[1]) for edit in report["edits"]]
    assert ("archive", "ttl") in edits
    assert set(edits) <= {("archive", "ttl"), ("update", "compaction"), ("archive", "compaction")}
    assert {"pass_id", "entries", "scopes", "actions", "skipped", "files_changed"} <= report.keys()


def test_gc_in_the_nightly_cycle_is_part_of_the_plan_and_undo_reverts_it(fixture_workspace: Path) -> None:
    config = Config.model_validate({"memory": {"forgetting": {"enabled": False}}})
    run_offline(fixture_workspace, config=config)  # indexes the sidecar GC reads next night
    marked = _mark_an_entry(fixture_workspace, RECENT)
    CliRunner().invoke(main, ["index", str(fixture_workspace)])  # as an agent's next recall would
    report = run_offline(fixture_workspace, date(2026, 11, 27), config=config)
    assert report.gc is not None
    assert any(edit.op == "archive" and edit.reason.startswith("gc:ttl") for edit in report.plan)
    assert report.record.garbageCollection["ttl_soft_delete"] > 0
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text(encoding="utf-8"))
    assert log["garbageCollection"] == report.record.garbageCollection
    assert f"ttl: 1d {RECENT}" not in (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert CliRunner().invoke(main, ["undo", str(fixture_workspace)]).exit_code == 0
    assert (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8") == marked
    again = run_offline(fixture_workspace, date(2026, 11, 27), config=config)  # undone: GC runs again
    assert again.gc is not None and again.record.garbageCollection == report.record.garbageCollection


def test_gc_in_the_cycle_waits_for_its_interval(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    _mark_an_entry(fixture_workspace)
    report = run_offline(fixture_workspace, date(2026, 11, 25))  # the same day: not due again
    assert report.gc is None
    assert f"ttl: 1d {OLD}" in (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("strategy", "settings", "key"),
    [
        ("ttl", "", "ttl_soft_delete"),
        ("importance", "", "importance_rate"),
        ("decay", "[memory.gc.decay]\nrecall_threshold = 0.3\n", "decay_soft_delete"),
        ("usage", "[memory.gc.usage]\nunused_days = 20\n", "usage_soft_delete"),
        ("capacity", "[memory.gc.capacity]\nenabled = true\nmax_entries = 300\n", "capacity_soft_delete"),
    ],
)
def test_each_strategy_acts_on_the_fixture_workspace(
    fixture_workspace: Path, strategy: str, settings: str, key: str
) -> None:
    run_offline(fixture_workspace)
    (fixture_workspace / "memory-sleep.toml").write_text(settings, encoding="utf-8")
    report = json.loads(_gc(fixture_workspace, strategy, "--dry-run", "--json"))
    assert report["strategies"] == [strategy] and report["counts"][key] > 0
    assert {action["strategy"] for action in report["actions"]} == {strategy}


def test_a_gc_run_that_deletes_many_entries_saves_the_vector_cache(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its deletions are not patched out of an older cache file by every later run until one saves."""
    from memory_sleep.gc import hook
    from memory_sleep.sidecar import vectors
    from memory_sleep.sidecar.recall import open_sidecar

    run_offline(fixture_workspace)
    folder = fixture_workspace / "memory" / ".sleep"
    with open_sidecar(fixture_workspace) as sidecar:
        before, dimensions = sidecar.store.generation(), sidecar.embedder.dimensions
    assert vectors.cache_generations(folder, before, dimensions)[0] <= before
    many = lambda changed, rows: changed > 0  # noqa: E731 (the fixture's deletions are a few)
    monkeypatch.setattr(hook, "worth_saving", many)
    monkeypatch.setattr(vectors, "worth_saving", many)
    _gc(fixture_workspace, "ttl")
    assert _soft_deleted(fixture_workspace)["gc:ttl"] > 0
    with open_sidecar(fixture_workspace) as sidecar:
        after = sidecar.store.generation()
    assert vectors.cache_generations(folder, after, dimensions)[0] > before
