"""What a person wrote in MEMORY.md outside the tool's sections (the intro, "## How I like to work",
"## Notes") is indexed as entries of MEMORY.md with their section, so recall finds it; GC, which removes
the tool's entries, never collects it. Before, only the tool's entries were indexed: recall never found
the hand-written part, the most of real agents' MEMORY.md files."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import GcConfig
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sidecar.search import decay_factor

from .gc_helpers import collect, deleted, noon
from .sidecar_helpers import NOW, make_workspace, open_at

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


def test_a_hand_written_row_takes_the_day_its_writer_put_on_it() -> None:
    from memory_sleep.sidecar.sources import memory_items

    text = (
        "# MEMORY.md\n\nKept by hand.\n\n## Done today (2026-03-26 04:48)\n- API started on port 8001\n\n"
        "## Setup\n- the gateway moved to port 9000 (2026-04-02)\n- bot token is in the vault\n"
        "\n## Trip (12月7日)\n- flights booked\n"
    )
    days = {item.text: item.day for item in memory_items(text)}
    assert days == {
        "Kept by hand.": None,
        "- API started on port 8001": date(2026, 3, 26),  # its heading's day
        "- the gateway moved to port 9000 (2026-04-02)": date(2026, 4, 2),  # its own
        "- bot token is in the vault": None,
        "- flights booked": None,  # a month and day name no year
    }


@pytest.mark.usefixtures("sidecar_store")  # on SQLite and on Postgres
def test_an_undated_row_ages_from_when_it_was_written_as_far_as_anything_tells(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-10-05.md": "- Atlas ships in December\n"}, MEMORY)
    with open_at(folder) as sidecar:
        sidecar.index()
        cat = sidecar.search("what is the cat called", k=1)[0]
        # there before the first index, stating no day: nothing tells when it was written, so it stays
        # undated (nothing acts on a guess) and ranks as old as the first note, not as said today
        assert (cat.text, cat.day) == ("- the cat is called Miso and eats at seven", None)
        assert cat.decay == pytest.approx(decay_factor(_dated(cat.entry, "2026-10-05"), NOW, 90.0, 0.5))
        (folder / "MEMORY.md").write_text(MEMORY + "- the dog is called Pip\n", encoding="utf-8")
        sidecar.index()
        dog = sidecar.search("what is the dog called", k=1)[0]
        again = sidecar.search("what is the cat called", k=1)[0]
    assert (dog.text, dog.day, dog.decay) == ("- the dog is called Pip", "2026-11-25", 1.0)  # seen today
    assert (again.day, again.decay) == (None, cat.decay)


def _dated(row: EntryRow, day: str) -> EntryRow:
    return dataclasses.replace(row, day=day)


def test_a_simulated_night_dates_a_new_undated_row_on_its_today_not_the_wall_clock(
    fixture_workspace: Path,
) -> None:
    runner = CliRunner()
    night = ["--today", "2026-11-25", "--engine", "offline", "-q"]
    assert runner.invoke(main, ["run", str(fixture_workspace), *night]).exit_code == 0
    memory = fixture_workspace / "MEMORY.md"
    memory.write_text(
        memory.read_text(encoding="utf-8").replace(
            "## How I like to work\n", "## How I like to work\n- the dog is called Pip\n", 1
        ),
        encoding="utf-8",
    )
    night[1] = "2026-11-26"
    assert runner.invoke(main, ["run", str(fixture_workspace), *night]).exit_code == 0
    found = runner.invoke(
        main, ["recall", "what is the dog called", str(fixture_workspace), "--today", "2026-11-26", "--json"]
    )
    top = json.loads(found.stdout)[0]
    assert (top["text"], top["day"]) == ("- the dog is called Pip", "2026-11-26")


def test_a_field_of_a_hand_written_block_is_shown_under_its_heading(tmp_path: Path) -> None:
    """ "**Area**: tools" alone says nothing of what it is of; recall shows it after its block's heading.
    A line of the tool's own sections ("## Facts") is shown as it is."""
    memory = (
        "# MEMORY.md\n\n## FACT-02 - GitHub CLI logged out\n**Type**: fact\n**Area**: tools\n\n"
        "## Facts\n- Orion port: 8443 (2026-11-01)\n"
    )
    make_workspace(tmp_path, {"2026-11-01.md": "- nothing today\n"}, memory)
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(tmp_path), "--today", "2026-11-25"]).exit_code == 0
    area = runner.invoke(main, ["recall", "area tools", str(tmp_path), "-k", "1", "--today", "2026-11-25"])
    assert "FACT-02 - GitHub CLI logged out › **Area**: tools" in area.output
    port = runner.invoke(main, ["recall", "Orion port", str(tmp_path), "-k", "1", "--today", "2026-11-25"])
    assert "\n    Orion port: 8443\n" in port.output


def test_the_own_sections_recall_knows_are_memory_md_s() -> None:
    from memory_sleep.sidecar.display import OWN_SECTIONS
    from memory_sleep.workspace.memory_blocks import PROJECTS, SECTION_FOR

    assert {*SECTION_FOR.values(), PROJECTS} == OWN_SECTIONS
