"""Conservative promotion (issue 15): MEMORY.md receives what structure shows durable; a card's
readings and a stamp stay recallable in the notes, never added."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.engines.offline import promotion

NOTE = """# 2026-11-24

## Check 00:07

- **Checked:** 2026-11-24 00:07 (UTC+8)
- **Load:** 0.09, 0.10, 0.10
- **Scans so far:** 146
- **Untracked files:** none
- **待处理**: 7 个
- **Source:** https://github.com/example/page-agent

## Notes

- **Billing DB:** Postgres 16 on db-billing-2
- Recorded: 2026-11-24 23:55
"""


def _run(workspace: Path) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["run", str(workspace), "--engine", "offline", "--today", "2026-11-25", "--json"]
    )
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.output))


def test_a_cards_readings_and_a_stamp_stay_in_the_notes_and_a_lone_keyed_fact_is_promoted(
    tmp_path: Path,
) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-24.md").write_text(NOTE, encoding="utf-8")
    _run(tmp_path)
    memory = (tmp_path / "MEMORY.md").read_text(encoding="utf-8")
    assert "Billing DB: Postgres 16 on db-billing-2" in memory  # a lone keyed fact
    assert "https://github.com/example/page-agent" in memory  # a card's field naming a lasting value
    for moment in ("0.09", "Scans so far", "Untracked files", "待处理", "2026-11-24 00:07", "23:55"):
        assert moment not in memory
    state = json.loads((tmp_path / "memory" / ".sleep" / "state.json").read_text(encoding="utf-8"))
    assert not state.get("pending")  # left in the notes, not carried over to the next run
    before = memory
    _run(tmp_path)
    assert (tmp_path / "MEMORY.md").read_text(encoding="utf-8") == before


def test_a_cards_field_naming_an_amount_in_any_currency_is_promoted() -> None:
    """An amount lasts, whatever the currency's sign ("¥120,000", "₹50,000", "$5"); a count does not."""
    day = date(2026, 3, 22)
    for text in ("**目标：** 显卡部署资金 (¥120,000)", "**Budget:** ₹50,000 a month", "**Cost:** $5/month"):
        assert promotion.promoted("fact", text, day, in_card=True), text
    assert not promotion.promoted("fact", "**Scans so far:** 146", day, in_card=True)
