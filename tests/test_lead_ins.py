"""A list under a lead-in ("**Pim is:**", "Follow-ups:") reaches MEMORY.md with its lead: REM works on
items rebuilt from the note's state, which keeps it. The lead is context, not a key: the `Key: value`
lines of one list stay each its own key, and none supersedes another."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.engines.offline.wording import entry_text
from memory_sleep.models import KeptItem
from memory_sleep.workspace.state import StateStore

from .item_helpers import note_item


def _run(workspace: Path, today: str) -> None:
    result = CliRunner().invoke(main, ["run", str(workspace), "--engine", "offline", "--today", today, "-q"])
    assert result.exit_code == 0, result.output


def _bullets(workspace: Path) -> list[str]:
    text = (workspace / "MEMORY.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("- ")]


def _note(workspace: Path, day: str, body: str) -> None:
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / f"{day}.md").write_text(f"# {day}\n\n{body}", encoding="utf-8")


def test_the_items_of_a_list_are_written_after_its_lead_in(tmp_path: Path) -> None:
    _note(
        tmp_path,
        "2026-11-02",
        "### Roles\n\n**Pim is:**\n- Release manager for Lyra (cuts every tag)\n- Owner of the billing exports\n",
    )
    _run(tmp_path, "2026-11-03")
    bullets = _bullets(tmp_path)
    assert any(line.startswith("- Pim is › Release manager for Lyra (cuts every tag)") for line in bullets)
    assert any(line.startswith("- Pim is › Owner of the billing exports") for line in bullets)
    state = StateStore(tmp_path / "memory" / ".sleep").load_note("2026-11-02.md")
    assert state is not None
    assert {record.lead for record in state.items.values() if record.verdict == "KEEP"} == {"Pim is"}


def test_the_key_lines_of_one_list_each_keep_their_own_key(tmp_path: Path) -> None:
    _note(
        tmp_path,
        "2026-11-02",
        "**Dry run plan (agreed with Ana):**\n"
        "**Data:** October invoices, read from the replica billing-db-02\n"
        "**Output:** diff CSV + summary in #lyra\n",
    )
    _run(tmp_path, "2026-11-03")
    _note(
        tmp_path,
        "2026-11-04",
        "**Dry run plan (agreed with Ana):**\n**Owner:** Teo; Pim on call for the DB\n",
    )
    _run(tmp_path, "2026-11-05")
    said = "\n".join(_bullets(tmp_path))
    for value in ("Data: October invoices", "Output: diff CSV", "Owner: Teo"):
        assert f"Dry run plan (agreed with Ana) › {value}" in said
    assert "previously" not in said
    archive = tmp_path / "memory" / "archive.md"
    assert not archive.exists() or "superseded" not in archive.read_text(encoding="utf-8")


def test_a_lead_in_that_names_the_items_project_is_left_to_the_project() -> None:
    item = note_item("- cut the 1.4 release branch", date(2026, 11, 2))
    kept = KeptItem(item=dataclasses.replace(item, lead="Lyra"), category="action", topic="Lyra")
    assert entry_text(kept) == "cut the 1.4 release branch"
    assert entry_text(kept.model_copy(update={"topic": None})) == "Lyra › cut the 1.4 release branch"
