"""What a person wrote in MEMORY.md outside the tool's sections (the intro, "## How I like to work",
"## Notes") is indexed as entries of MEMORY.md with their section, so recall finds it; GC, which removes
the tool's entries, never collects it. Before, only the tool's entries were indexed: recall never found
the hand-written part, the most of real agents' MEMORY.md files."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import GcConfig

from .gc_helpers import collect, deleted, noon
from .sidecar_helpers import make_workspace, open_at

MEMORY = (
    "# MEMORY.md\n\n## Notes\n- the cat is called Miso and eats at seven\n"
    "- the wifi password is taped under the router\n"
)


def test_recall_finds_a_line_of_the_fixtures_own_section_with_its_place(fixture_workspace: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-25"]).exit_code == 0
    found = runner.invoke(
        main, ["recall", "who to ping when stuck", str(fixture_workspace), "--today", "2026-11-25", "--json"]
    )
    assert found.exit_code == 0, found.output
    top = json.loads(found.stdout)[0]
    assert (top["source"], top["line"], top["context"]) == ("MEMORY.md", 13, "How I like to work")
    assert "Stuck for more than 30 min | ping me" in top["text"]


@pytest.mark.usefixtures("sidecar_store")  # on SQLite and on Postgres
def test_gc_never_collects_what_a_person_wrote(tmp_path: Path) -> None:
    make_workspace(
        tmp_path, {"2026-11-01.md": "- Atlas ships the job queue on Postgres in December\n"}, MEMORY
    )
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        assert sidecar.search("what is the cat called", k=1)[0].text.startswith("- the cat is called Miso")
        plan = collect(
            sidecar,
            ("usage",),
            noon(date(2027, 6, 1)),
            GcConfig.model_validate({"usage": {"unused_days": 20}}),
        )
        gone = deleted(sidecar)
    assert "- Atlas ships the job queue on Postgres in December" in gone  # unused for months
    assert not [text for text in gone if "Miso" in text or "router" in text]
    assert not [skip for skip in plan.decision.skipped if "MEMORY.md changed" in skip]
