"""The project summaries, weekly folds and the briefing are edits of the run's plan: a dry run shows
them, the guards check them, and the run writes exactly what they say."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.cycle import guards, weekly
from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.offline.curate import OfflineCurator
from memory_sleep.errors import GuardError
from memory_sleep.models import ProjectFields
from memory_sleep.workspace.archive import Ending
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_blocks import Entry
from memory_sleep.workspace.memory_doc import MemoryDocument
from tests.conftest import run_offline, snapshot_tree

TODAY = date(2026, 11, 25)


def test_the_dry_run_plan_holds_the_summaries_folds_and_briefing_the_run_writes(
    fixture_workspace: Path,
) -> None:
    root = str(fixture_workspace)
    args = ["run", root, "--today", "2026-11-25", "--engine", "offline", "--dry-run"]
    shown = CliRunner().invoke(main, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    plan = json.loads(shown.output)["plan"]
    summaries = [edit for edit in plan if edit["op"] == "summarize"]
    folds = [edit for edit in plan if edit["op"] == "fold"]
    briefs = [edit for edit in plan if edit["op"] == "brief"]
    assert summaries and all(edit["entry"].startswith("P:") for edit in summaries)
    assert set(summaries[0]["fields"]) == {"status", "contacts", "last_event", "next"}
    assert folds and all(edit["path"].startswith("memory/weekly/") and edit["sources"] for edit in folds)
    assert [edit["path"] for edit in briefs] == ["memory/briefing.md"]
    text = CliRunner().invoke(main, args).output
    assert f"  fold {folds[0]['path']}: {', '.join(folds[0]['sources'])}" in text
    assert "  brief memory/briefing.md: " in text and f"  summarize {summaries[0]['entry']}: Status: " in text

    CliRunner().invoke(main, args[:-1])
    for edit in [*folds, *briefs]:
        assert (fixture_workspace / edit["path"]).read_text("utf-8") == edit["text"]
    memory = (fixture_workspace / "MEMORY.md").read_text("utf-8")
    for edit in summaries:
        assert f"- Status: {edit['fields']['status']}" in memory
    again = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert again["plan"] == []  # the same briefing again is no edit


def test_a_fold_that_would_drop_a_kept_line_is_refused() -> None:
    note, line = "memory/2026-11-09.md", "memory/2026-11-09.md:12"
    carried = f"# Week 2026-W46\n\n## Kept but not yet in MEMORY.md\n- the cert expires 2026-12-02 ({line})\n"
    fold = Edit(op="fold", path="memory/weekly/2026-W46.md", text=carried, sources=[note])
    guards.check_files([fold], {note: [line]}, 2048)
    dropped = fold.model_copy(update={"text": "# Week 2026-W46\n\nA quiet week.\n"})
    with pytest.raises(GuardError, match=f"would drop its kept line {line}"):
        guards.check_files([dropped], {note: [line]}, 2048)
    outside = fold.model_copy(update={"path": "MEMORY.md"})
    with pytest.raises(GuardError, match="not memory/weekly/"):
        guards.check_files([outside], {}, 2048)
    brief = Edit(op="brief", path="memory/briefing.md", text="x" * 2049)
    with pytest.raises(GuardError, match="briefing_max_bytes"):
        guards.check_files([brief], {}, 2048)


def test_a_run_whose_fold_drops_a_kept_line_changes_no_file(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without REM nothing kept is in MEMORY.md yet: a weekly summary must carry all of it."""
    render = weekly.render_week
    monkeypatch.setattr(weekly, "render_week", lambda *a: render(*a).split("## Kept but not yet")[0])
    before = snapshot_tree(fixture_workspace)
    config = Config.model_validate({"sidecar": {"enabled": False}})
    with pytest.raises(GuardError, match="would drop its kept line memory/2026-11-"):
        run_offline(fixture_workspace, config=config, phases=("nrem", "cleanup"))
    assert snapshot_tree(fixture_workspace) == before


def test_project_edits_go_through_the_editor_and_name_projects_that_exist() -> None:
    document = MemoryDocument.parse("# MEMORY.md\n\n## Projects\n\n### Atlas\n- Status: active\n")
    editor = DocumentEditor(document, TODAY)
    fields = ProjectFields(
        status="completed: shipped", contacts="Dana", last_event="launch (2026-11-01)", next="—"
    )
    editor.apply([Edit(op="summarize", entry="P:Atlas", fields=fields)])
    assert document.projects()["Atlas"].fields()["Last event"] == "launch (2026-11-01)"
    applied = editor.apply([Edit(op="archive", entry="P:Atlas", reason="project finished")])
    assert "Atlas" not in document.projects()
    assert applied.archived[0].entry.startswith("### Atlas: Status: completed: shipped; Contacts: Dana")
    with pytest.raises(GuardError, match="project Atlas"):
        editor.apply([Edit(op="archive", entry="P:Atlas", reason="again")])
    with pytest.raises(ValidationError, match="fold and brief"):
        Edit(op="fold", text="# Week\n", sources=[])
    with pytest.raises(ValidationError, match="summarize, and only it"):
        Edit(op="summarize", entry="P:Atlas")


class _NothingFinished(OfflineCurator):
    def finished(self, projects: Mapping[str, ProjectFields]) -> list[str]:
        return []


@pytest.mark.parametrize(("curator", "archived"), [(OfflineCurator(), True), (_NothingFinished(), False)])
def test_which_projects_are_finished_is_the_engines_decision(
    tmp_path: Path, curator: OfflineCurator, archived: bool
) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Projects\n\n### Cobalt\n- Status: completed: shipped\n- Contacts: Dana\n"
        "- Last event: launch (2026-09-01)\n- Next: —\n"
    )
    (tmp_path / "memory" / "2026-11-19.md").write_text("- Decided: Nadia owns the Meridian export work\n")
    engine = replace(offline_engine(), curator=curator)
    report = run_cycle(Workspace.open(tmp_path), Config(), engine, RunOptions(today=TODAY, dry_run=True))
    plan = [(edit.op, edit.entry) for edit in report.plan]
    assert (("archive", "P:Cobalt") in plan) is archived


def test_a_weekly_line_is_compared_only_with_ended_entries_sharing_enough_of_its_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a long history a line shares a common word with hundreds of ended entries; only one that
    shares enough words to say the same is compared (and the line's mark is the same as before)."""
    monday, sunday = date(2026, 11, 16), date(2026, 11, 22)
    ended = [
        (
            Entry(f"deploy window {number} for service {number * 3}", None, date(2026, 11, 1)),
            Ending("superseded", sunday),
        )
        for number in range(40)
    ]
    ended.append(
        (
            Entry("deploy freeze starts Friday for billing team", None, date(2026, 11, 1)),
            Ending("done", sunday),
        )
    )
    endings = weekly._Endings(ended)
    compared: list[frozenset[str]] = []
    says = weekly.says_the_same

    def counted(old: frozenset[str], text: frozenset[str], restated: bool = False) -> bool:
        compared.append(old)
        return says(old, text, restated)

    monkeypatch.setattr(weekly, "says_the_same", counted)
    marked = weekly._marked(
        "deploy freeze starts Friday for billing team (2026-11-18)", (monday, sunday), endings
    )
    assert marked.endswith("[done 2026-11-22]")
    assert len(compared) == 1
