"""Restore brings recall back exactly; a pass that is not due does nothing; the run hook and CLI."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config, ForgettingConfig
from memory_sleep.sidecar import Sidecar
from memory_sleep.sleepgate import state
from memory_sleep.sleepgate.display import status_line
from memory_sleep.sleepgate.session import forget, not_due_reason, restore
from memory_sleep.sleepgate.undo import RECORD_KEY, PassChanges, keep_record

from .conftest import run_offline
from .sidecar_helpers import NOW, make_workspace, open_at, with_store
from .sleepgate_helpers import open_store

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

NOTES = {
    "2026-01-05.md": "# Notes\n"
    + "".join(f"- Billing moves to Stripe on March {day}, confirmed by Dana.\n" for day in (3, 3, 3))
    + "- Alice prefers morning meetings for the design review.\n"
    + "- The staging database password rotates every ninety days.\n",
    "2026-01-06.md": "# Notes\n- Billing moves to Stripe on March 3, confirmed by Dana.\n"
    "- The kitchen espresso machine needs descaling monthly.\n",
}
AGGRESSIVE = ForgettingConfig(min_entries=0, retention_threshold=0.9)


def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", NOTES)


def recall_snapshot(sidecar: Sidecar, query: str) -> list[tuple[int, float, str]]:
    return [(hit.id, round(hit.score, 9), hit.text) for hit in sidecar.search(query, k=10)]


def test_restore_brings_recall_back_exactly(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        queries = ["when does billing move to stripe", "who prefers morning meetings", "espresso machine"]
        before = [recall_snapshot(sidecar, q) for q in queries]
        rows_before = sidecar.store.db.execute(
            "SELECT id, text, embedding, access_count, last_accessed_at, updated_at FROM entries ORDER BY id"
        ).fetchall()
        report = forget(sidecar, AGGRESSIVE)
        assert report.forgotten > 0
        after = [recall_snapshot(sidecar, q) for q in queries]
        assert after != before
        forgotten = set(report.forgotten_ids)
        assert not any(hit[0] in forgotten for result in after for hit in result)
        restored = restore(sidecar, [], report.pass_id, None)
        assert sorted(restored.restored) == sorted(forgotten)
        assert [recall_snapshot(sidecar, q) for q in queries] == before
        rows_after = sidecar.store.db.execute(
            "SELECT id, text, embedding, access_count, last_accessed_at, updated_at FROM entries ORDER BY id"
        ).fetchall()
        assert rows_after == rows_before
    with open_at(folder) as reopened:  # the saved vector cache agrees too
        assert [recall_snapshot(reopened, q) for q in queries] == before


def test_restore_by_id_and_since_leave_other_deletions_alone(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        report = forget(sidecar, AGGRESSIVE)
        first = report.forgotten_ids[0]
        sidecar.store.soft_delete([999_999], "item-removed", NOW)
        by_id = restore(sidecar, [first, 424242], None, None)
        assert by_id.restored == [first] and by_id.skipped == {424242: "no such entry"}
        rest = restore(sidecar, [], None, NOW - 1)
        assert sorted(rest.restored) == sorted(report.forgotten_ids[1:])


def test_a_pass_that_is_not_due_does_nothing(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    settings = ForgettingConfig(min_entries=0, retention_threshold=0.9, interval_secs=86_400)
    with open_at(folder) as sidecar:
        sidecar.index()
        assert not_due_reason(sidecar, settings) is None
        forget(sidecar, settings)
        reason = not_due_reason(sidecar, settings)
        assert reason is not None and "interval_secs = 86400" in reason
        assert not_due_reason(sidecar, ForgettingConfig(enabled=False)) is not None


def test_run_hook_runs_when_due_and_records_counts(tmp_path: Path) -> None:
    from memory_sleep.sleepgate.hook import forget_when_due
    from memory_sleep.workspace.layout import Workspace

    folder = workspace(tmp_path)
    config = with_store(
        Config.model_validate(
            {
                "memory": {"forgetting": {"min_entries": 0, "retention_threshold": 0.9}},
                "sidecar": {"embedder": "offline"},  # the embedder open_at indexed with
            }
        )
    )
    with open_at(folder) as sidecar:
        sidecar.index()
    space = Workspace.open(folder)
    counts, pass_id, warning = forget_when_due(space, config)
    assert warning is None and counts["forgotten"] > 0 and counts["entries"] >= 5 and pass_id
    again, pass_id, warning = forget_when_due(space, config)  # not due for another day
    assert again == {} and pass_id is None and warning is None


def test_a_pass_over_a_sidecar_that_holds_nothing_yet_says_so(tmp_path: Path) -> None:
    """A first run's pass comes before the run indexes its notes: `stats` showed "skipped: 0 live
    entries, fewer than min_entries = 1000" beside the entries indexed since, then "nothing indexed yet"
    after a run had indexed everything."""
    from memory_sleep.sleepgate.hook import forget_when_due
    from memory_sleep.workspace.layout import Workspace

    folder = workspace(tmp_path)
    forget_when_due(Workspace.open(folder), with_store(Config()))
    with open_at(folder) as sidecar:
        sidecar.index()
        status = status_line(state.status(sidecar.store))
    assert "skipped: the sidecar held nothing yet; a run indexes its notes after this pass" in status, status


def test_forget_and_restore_cli(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    (folder / "memory-sleep.toml").write_text(
        "[memory.forgetting]\nmin_entries = 0\nretention_threshold = 0.9\n", encoding="utf-8"
    )
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(folder)]).exit_code == 0
    dry = runner.invoke(main, ["forget", str(folder), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "Would forget" in dry.output and "recency" in dry.output and "forgotten" in dry.output
    done = runner.invoke(main, ["forget", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["forgotten"] > 0
    assert {v["verdict"] for v in report["verdicts"]} <= {"kept", "load-bearing", "forgotten"}
    stats = runner.invoke(main, ["stats", str(folder), "--json"])
    shown = json.loads(stats.output)
    assert shown["soft_deleted_by_reason"]["forgotten"] == report["forgotten"]
    assert shown["forgetting"]["last_pass"]["id"] == report["pass_id"]
    assert shown["forgetting"]["density"]["state"] == "counted"
    plain = runner.invoke(main, ["stats", str(folder)])
    assert f"Forgetting: last pass {report['pass_id']}" in plain.output, plain.output
    back = runner.invoke(main, ["restore", "-w", str(folder), "--pass", report["pass_id"]])
    assert back.exit_code == 0, back.output
    assert f"Restored {report['forgotten']} entries" in back.output
    usage = runner.invoke(main, ["restore", "-w", str(folder)])
    assert usage.exit_code == 2


def test_min_entries_default_skips_small_workspaces(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    runner = CliRunner()
    runner.invoke(main, ["index", str(folder)])
    result = runner.invoke(main, ["forget", str(folder)])
    assert result.exit_code == 0
    assert "skipped" in result.output and "min_entries = 1000" in result.output


def test_restoring_an_id_the_sidecar_never_held_fails_and_says_where_ids_come_from(tmp_path: Path) -> None:
    folder = workspace(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(folder)]).exit_code == 0
    for extra in ([], ["--json"], ["--dry-run"]):
        result = runner.invoke(main, ["restore", "99999", str(folder), *extra])
        assert result.exit_code == 1, result.output
        assert "no entry 99999" in result.output and "`forget`" in result.output


def test_a_run_on_another_day_forgets_on_that_days_clock(tmp_path: Path) -> None:
    """`run --today` dates SleepGate's pass, and the ages it scores, on its own day, as indexing does:
    a simulated night is due a day after the last one, whatever the real clock says."""
    folder = workspace(tmp_path)
    config = with_store(
        Config.model_validate(
            {
                "memory": {"forgetting": {"min_entries": 0, "retention_threshold": 0.9}},
                "sidecar": {"embedder": "offline"},
            }
        )
    )
    run_offline(folder, date(2026, 1, 7), config=config)  # indexes; nothing to forget before
    passes = [run_offline(folder, date(2026, 1, day), config=config).record.sidecarPasses for day in (8, 9)]
    forgot = [next(p for p in day if p.startswith("forget-")) for day in passes]
    assert [f[:15] for f in forgot] == ["forget-20260108", "forget-20260109"]


def test_two_passes_on_one_simulated_day_each_get_their_own_id(tmp_path: Path) -> None:
    """`forget --today` runs on that day's noon, so a second pass of the day takes a suffix rather
    than failing on the first one's id; each can be restored on its own."""
    folder = workspace(tmp_path)
    (folder / "memory-sleep.toml").write_text(
        "[memory.forgetting]\nmin_entries = 0\nretention_threshold = 0.9\n", encoding="utf-8"
    )
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(folder), "--today", "2026-01-07"]).exit_code == 0
    ids = []
    for _ in range(2):
        done = runner.invoke(main, ["forget", str(folder), "--all", "--today", "2026-01-07", "--json"])
        assert done.exit_code == 0, done.output
        ids.append(json.loads(done.output)["pass_id"])
    assert ids == ["forget-20260107T120000000000Z", "forget-20260107T120000000000Z-2"]


def test_undo_records_beyond_the_newest_go_by_when_their_pass_ran_not_by_its_kind() -> None:
    """Thirty GC runs' records and a later forgetting pass's: the forgetting pass's is the newest and
    stays (sorted by key, "forget-..." went first, and its restores could not be undone)."""
    store = open_store()
    with store.transaction():
        for day in (25, 26, 27):
            keep_record(store, f"gc-202611{day}T120000000000Z", PassChanges(), keep=2)
        keep_record(store, "forget-20261127T120000000000Z-2", PassChanges(), keep=2)
    assert store.meta_keys(RECORD_KEY) == [
        f"{RECORD_KEY}forget-20261127T120000000000Z-2",
        f"{RECORD_KEY}gc-20261127T120000000000Z",
    ]
