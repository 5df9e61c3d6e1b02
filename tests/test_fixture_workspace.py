"""The whole cycle on the bundled example workspace, pinned by golden files and planted features.

Regenerate the golden files after an intended change with:
    MEMORY_SLEEP_UPDATE_GOLDEN=1 python -m pytest tests/test_fixture_workspace.py
and review the diff under fixtures/expected/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import FIXTURE_WORKSPACE, REPO, run_offline, snapshot_tree

EXPECTED = REPO / "fixtures" / "expected"
GOLDEN = ["MEMORY.md", "memory/briefing.md", "memory/archive.md"]


@pytest.fixture
def after_run(fixture_workspace: Path) -> Path:
    run_offline(fixture_workspace)
    return fixture_workspace


def _golden_files(workspace: Path) -> list[str]:
    weekly = sorted(
        p.relative_to(workspace).as_posix() for p in (workspace / "memory" / "weekly").glob("*.md")
    )
    return [*GOLDEN, *weekly]


def test_outputs_match_golden_files(after_run: Path) -> None:
    produced = _golden_files(after_run)
    if os.environ.get("MEMORY_SLEEP_UPDATE_GOLDEN") == "1":
        for relative in produced:
            target = EXPECTED / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((after_run / relative).read_bytes())
    expected = sorted(p.relative_to(EXPECTED).as_posix() for p in EXPECTED.rglob("*.md"))
    assert sorted(produced) == expected
    for relative in produced:
        assert (after_run / relative).read_text() == (EXPECTED / relative).read_text(), relative


def test_weekly_summaries_cover_days_older_than_a_week(after_run: Path) -> None:
    weekly = sorted(p.name for p in (after_run / "memory" / "weekly").glob("*.md"))
    # notes up to 2026-11-17 are older than 7 days on 2026-11-25: ISO weeks 44 to 47
    assert weekly == ["2026-W44.md", "2026-W45.md", "2026-W46.md", "2026-W47.md"]
    week47 = (after_run / "memory" / "weekly" / "2026-W47.md").read_text()
    assert "- memory/2026-11-17.md\n" in week47 and "- memory/2026-11-18.md\n" not in week47


def test_briefing_fits_and_leads_with_deadlines(after_run: Path) -> None:
    briefing = (after_run / "memory" / "briefing.md").read_bytes()
    assert len(briefing) <= 2048
    text = briefing.decode("utf-8")
    assert text.startswith("# Morning briefing 2026-11-25\n")
    priorities = text.split("## Top priorities\n")[1].split("\n\n")[0]
    assert "resubmit Beacon 1.4" in priorities and "runbook" in priorities


def test_reversed_decision_resolves_to_the_newer_one(after_run: Path) -> None:
    memory = (after_run / "MEMORY.md").read_text()
    archive = (after_run / "memory" / "archive.md").read_text()
    current = [line for line in memory.splitlines() if "job queue" in line]
    assert len(current) == 1
    assert "moves from SQLite to Postgres" in current[0]
    assert "Decided: Atlas job queue will use SQLite" in archive
    assert "superseded by memory/2026-11-17.md:8" in archive


def test_contradicted_fact_keeps_only_the_new_value(after_run: Path) -> None:
    memory = (after_run / "MEMORY.md").read_text()
    assert "[Beacon] Release date: 2026-11-26" in memory
    assert "- [Beacon] Release 1.4 target date is 2026-11-19 (2026-10-29)" not in memory
    assert "Release 1.4 target date is 2026-11-19" in (after_run / "memory" / "archive.md").read_text()


def test_repeated_fact_is_stored_once(after_run: Path) -> None:
    memory = (after_run / "MEMORY.md").read_text()
    assert memory.count("staging.atlas.internal") == 1


def test_stale_and_finished_entries_go_to_the_archive(after_run: Path) -> None:
    memory = (after_run / "MEMORY.md").read_text()
    archive = (after_run / "memory" / "archive.md").read_text()
    for stale in ("Team retro moves", "WireGuard", "terraform plan", "Helen Park", "Q3 conference expense"):
        assert stale not in memory and stale in archive
    assert "Use Stripe test clocks" in memory  # 29 days old: not stale yet
    assert "Cobalt cluster is 3 × r6i.2xlarge" in archive
    cobalt = MemoryDocument.parse(memory).projects()["Cobalt"].fields()
    assert cobalt["Status"].startswith(("completed", "cancelled"))
    # what the finished project left for after today stays, and is its next step; the memo due
    # 11-13 went with the project
    bucket = "delete it (on or after 2026-12-16)"
    assert bucket in cobalt["Next"] and "go/no-go memo" not in cobalt["Next"]
    assert bucket in memory.split("## Action items", 1)[1].split("\n## ", 1)[0]


def test_finished_action_items_are_archived_with_their_evidence(after_run: Path) -> None:
    archive = (after_run / "memory" / "archive.md").read_text()
    for evidence in (
        "memory/2026-11-03.md:9",
        "memory/2026-11-12.md:7",
        "memory/2026-11-18.md:23",
        "memory/2026-11-19.md:6",
    ):
        assert f"done ({evidence})" in archive
    actions = MemoryDocument.parse((after_run / "MEMORY.md").read_text()).find_section("Action items")
    assert actions is not None
    texts = " | ".join(entry.text for entry in actions.entries())
    assert "resubmit Beacon 1.4" in texts and "runbook" in texts and "sign-off" in texts
    assert "renew the TLS cert" not in texts


def test_noise_is_discarded_and_substance_kept(fixture_workspace: Path) -> None:
    report = run_offline(fixture_workspace)
    kept = {item.item.source for item in report.kept}
    assert "memory/2026-11-17.md:8" in kept  # the reversal
    assert "memory/2026-11-23.md:17" in kept  # open action with a deadline
    assert "memory/2026-11-23.md:20" in kept  # "note to self" lesson
    assert not any(
        source.startswith("memory/2026-11-18.md:") and int(source.split(":")[1]) <= 18 for source in kept
    )
    memory = (fixture_workspace / "MEMORY.md").read_text()
    assert "HEARTBEAT" not in memory and "Let me" not in memory


def test_hand_written_content_is_preserved(after_run: Path) -> None:
    before = (FIXTURE_WORKSPACE / "MEMORY.md").read_text()
    after = (after_run / "MEMORY.md").read_text()
    handwritten = before.split("## Decisions")[0]
    assert after.startswith(handwritten)


def test_stray_file_is_reported_and_untouched(fixture_workspace: Path) -> None:
    report = run_offline(fixture_workspace)
    assert report.strays == ["memory/scratch-todo.txt"]
    assert (fixture_workspace / "memory" / "scratch-todo.txt").read_bytes() == (
        FIXTURE_WORKSPACE / "memory" / "scratch-todo.txt"
    ).read_bytes()


def test_second_run_changes_nothing(after_run: Path) -> None:
    before = snapshot_tree(after_run, skip_state=False)
    report = run_offline(after_run)
    assert report.changes == []
    assert snapshot_tree(after_run, skip_state=False) == before


def test_undo_restores_the_workspace_exactly(fixture_workspace: Path) -> None:
    from memory_sleep.workspace.layout import Workspace
    from memory_sleep.workspace.writer import SafeWriter

    original = snapshot_tree(fixture_workspace)
    run_offline(fixture_workspace)
    assert snapshot_tree(fixture_workspace) != original
    space = Workspace.open(fixture_workspace)
    SafeWriter(space.root, space.state_dir / "snapshots").undo()
    assert snapshot_tree(fixture_workspace) == original


def test_dry_run_writes_nothing_and_shows_the_diff(fixture_workspace: Path) -> None:
    original = snapshot_tree(fixture_workspace, skip_state=False)
    report = run_offline(fixture_workspace, dry_run=True)
    assert snapshot_tree(fixture_workspace, skip_state=False) == original
    diff = report.diff()
    assert "+++ b/MEMORY.md" in diff and "+++ b/memory/briefing.md" in diff and ".sleep" not in diff


def test_sleep_log_keeps_the_original_keys_first(after_run: Path) -> None:
    log = json.loads((after_run / "memory" / "sleep-log.json").read_text())
    original = [
        "lastRun",
        "dailyFilesProcessed",
        "itemsKept",
        "itemsDiscarded",
        "memoryMdSizeBefore",
        "memoryMdSizeAfter",
        "briefingGenerated",
    ]
    assert list(log)[:7] == original
    assert log["dailyFilesProcessed"] == 22 and log["briefingGenerated"] is True
    assert log["memoryMdSizeBefore"] == len((FIXTURE_WORKSPACE / "MEMORY.md").read_bytes())
    assert log["memoryMdSizeAfter"] == len((after_run / "MEMORY.md").read_bytes())
    assert log["engine"] == "offline" and log["history"] == []
