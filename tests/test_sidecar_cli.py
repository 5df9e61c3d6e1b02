"""The sidecar's CLI verbs, and indexing inside `memory-sleep run`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config, SidecarConfig
from memory_sleep.sidecar import open_sidecar

from .conftest import run_offline


def test_index_recall_and_stats_from_the_command_line(fixture_workspace: Path) -> None:
    runner = CliRunner()
    indexed = runner.invoke(main, ["index", str(fixture_workspace)])
    assert indexed.exit_code == 0, indexed.output
    assert indexed.output.startswith("Indexed 23 of 23 files with wordllama:l2_supercat/256: ")
    found = runner.invoke(
        main, ["recall", "who renews the TLS certificate?", str(fixture_workspace), "-k", "3", "--json"]
    )
    assert found.exit_code == 0, found.output
    hits = json.loads(found.output)
    assert [hit["rank"] for hit in hits] == [1, 2, 3]
    assert {"source", "line", "day", "text", "score"} <= hits[0].keys()
    text = runner.invoke(main, ["recall", "TLS certificate", str(fixture_workspace), "-k", "1"])
    # the entry in MEMORY.md or a note: near-equal scores (0.863 and 0.845 in hybrid)
    assert text.exit_code == 0 and re.match(r" 1\. (MEMORY\.md|memory/[\w.-]+):\d+  2026-", text.output)
    not_logged = runner.invoke(main, ["recall", "TLS", str(fixture_workspace), "--dry-run", "--json"])
    assert not_logged.exit_code == 0
    stats = json.loads(runner.invoke(main, ["stats", str(fixture_workspace), "--json"]).output)
    assert stats["queries_logged"] == 2
    assert stats["live"] == stats["entries"] > 300 and stats["soft_deleted"] == 0
    assert set(stats["by_source"]) == {"memory", "note", "project"}
    assert stats["bytes_on_disk"]["total"] > 0
    human = runner.invoke(main, ["stats", str(fixture_workspace)])
    assert "Queries logged: 2" in human.output


def test_recall_shows_a_long_line_as_far_as_its_answer_wrapped(fixture_workspace: Path) -> None:
    """A note gives its reason first ("Reminder, because the config for Raj's new worker VM had it
    wrong: Atlas staging lives at staging.atlas.internal, port 8443"): cut at 100 characters, the
    result ended before the answer. Up to 200 are shown, on lines of at most 100."""
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(fixture_workspace)]).exit_code == 0
    asked = ["recall", "Atlas staging host port", str(fixture_workspace), "-k", "5", "--today", "2026-11-25"]
    found = runner.invoke(main, asked)
    assert found.exit_code == 0, found.output
    assert "staging.atlas.internal, port 8443 (not 443)" in " ".join(found.output.split())
    assert max(len(line) for line in found.output.splitlines()) <= 100


def test_recall_as_of_a_day_after_today_is_refused(fixture_workspace: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(fixture_workspace)]).exit_code == 0
    ask = ["recall", "TLS certificate", str(fixture_workspace), "--today", "2026-11-30", "--json"]
    later = runner.invoke(main, [*ask, "--as-of", "2026-12-01"])
    assert later.exit_code == 2 and "2026-12-01 is after today (2026-11-30)" in later.output, later.output
    assert runner.invoke(main, [*ask, "--as-of", "2026-11-30"]).exit_code == 0


def test_index_dry_run_writes_nothing(fixture_workspace: Path) -> None:
    result = CliRunner().invoke(main, ["index", str(fixture_workspace), "--dry-run", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["added"] > 300
    with open_sidecar(fixture_workspace, Config()) as sidecar:
        assert sidecar.stats()["entries"] == 0


@pytest.mark.parametrize("verb", ["index", "recall", "stats"])
def test_every_sidecar_verb_has_help(verb: str) -> None:
    result = CliRunner().invoke(main, [verb, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output and "--json" in result.output


def test_run_indexes_the_sidecar_after_writing(fixture_workspace: Path) -> None:
    report = run_offline(fixture_workspace)
    assert not [w for w in report.record.warnings if "sidecar" in w]
    with open_sidecar(fixture_workspace, Config()) as sidecar:
        stats = sidecar.stats()
        memory_rows = sidecar.store.entries_of_source("MEMORY.md")
    assert stats["live"] > 300
    memory_text = (fixture_workspace / "MEMORY.md").read_text()
    assert memory_rows and all(row.text in memory_text for row in memory_rows if row.kind == "memory")


def test_a_sidecar_failure_warns_and_leaves_the_markdown_run_complete(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = Config(sidecar=SidecarConfig(embedder="openai"))
    report = run_offline(fixture_workspace, config=config)
    assert report.changes
    warnings = [w for w in report.record.warnings if "vector sidecar not updated" in w]
    assert len(warnings) == 1 and "memory-sleep index" in warnings[0]
    assert (fixture_workspace / "memory" / "briefing.md").exists()


def test_run_with_the_sidecar_disabled_creates_no_database(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace, config=Config(sidecar=SidecarConfig(enabled=False)))
    assert not (fixture_workspace / "memory" / ".sleep" / "sidecar.db").exists()


def test_recall_after_a_run_over_an_empty_workspace_says_to_write_notes_not_to_run(tmp_path: Path) -> None:
    """It said "Run `memory-sleep run`", just after that run."""
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(tmp_path), "-q"]).exit_code == 0
    assert runner.invoke(main, ["run", str(tmp_path), "-q", "--today", "2026-11-24"]).exit_code == 0
    found = runner.invoke(main, ["recall", "cache", str(tmp_path)])
    assert found.exit_code == 1 and found.stderr.startswith(
        f"Error: Nothing to search yet: {tmp_path} has no daily notes and nothing in MEMORY.md. Write notes "
    )
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\n## Notes\n- the cache is Redis\n", encoding="utf-8")
    assert "memory-sleep index" in runner.invoke(main, ["recall", "cache", str(tmp_path)]).stderr


def test_recall_says_when_nothing_is_indexed_and_what_to_do(tmp_path: Path) -> None:
    """Recall said only "No match" before any run or index, when nothing could match; then it said so
    but exited 0, so that a script or an agent could not tell "nothing found" from "cannot search"."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-24.md").write_text("- Decided: the cache moves to 10.0.9.42\n")
    runner = CliRunner()
    todo = (
        f"Run `memory-sleep run {tmp_path}` (it consolidates the notes into MEMORY.md and indexes them), or "
        f"`memory-sleep index {tmp_path}`"
    )
    first = runner.invoke(main, ["recall", "cache", str(tmp_path)])
    assert first.exit_code == 1 and first.stderr.startswith("Error: No sidecar yet: nothing is indexed")
    assert todo in first.stderr and not first.stdout
    second = runner.invoke(main, ["recall", "cache", str(tmp_path), "--json"])
    assert second.exit_code == 1 and not second.stdout
    assert second.stderr.startswith("Error: The sidecar is empty: nothing is indexed")
    assert todo in second.stderr
    assert runner.invoke(main, ["index", str(tmp_path)]).exit_code == 0
    assert runner.invoke(main, ["recall", "cache", str(tmp_path)]).output.startswith(
        " 1. memory/2026-11-24.md"
    )
    nothing = runner.invoke(main, ["recall", "zebra", str(tmp_path), "--mode", "text"])
    assert nothing.exit_code == 0 and nothing.output == "No match.\n"
    nothing = runner.invoke(main, ["recall", "zebra", str(tmp_path), "--mode", "text", "--json"])
    assert nothing.exit_code == 0 and json.loads(nothing.stdout) == []
