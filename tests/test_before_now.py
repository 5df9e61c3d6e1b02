"""A change told as a pair of keyed lines under one heading ("- **之前**: 9 个技能" then "- **现在**: 10 个技能",
"**Before:** ..." then "**Now:** ..."): the now line states the subject's current value, the before line's
value is an explicit old value that supersedes the entry holding it, and the before line is no fact."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.engines import pairs
from memory_sleep.models import NoteItem

from .item_helpers import note_item


def _run(workspace: Path) -> None:
    result = CliRunner().invoke(
        main, ["run", str(workspace), "--engine", "offline", "--today", "2026-11-25", "--json"]
    )
    assert result.exit_code == 0, result.output


def _workspace(tmp_path: Path, memory: str, note: str) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(f"# MEMORY.md\n\n## Facts\n\n{memory}", encoding="utf-8")
    (tmp_path / "memory" / "2026-11-24.md").write_text(note, encoding="utf-8")
    return tmp_path


def _bullets(workspace: Path) -> list[str]:
    return [
        line
        for line in (workspace / "MEMORY.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("- ")
    ]


def _archive(workspace: Path) -> str:
    path = workspace / "memory" / "archive.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


ZH_NOTE = """# 2026-11-24 工作总结

## 📊 整体成果

### 技能生态
- **之前**: 9 个技能（4个基础 + 5个专业）
- **现在**: 10 个技能（4个基础 + 6个专业）
- **增长**: +1 个专业技能
"""


def test_a_chinese_pair_supersedes_the_entry_holding_the_old_value_spaces_aside(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "- 技能生态: 9个技能（4个基础+5个专业） (2026-11-20)\n", ZH_NOTE)
    _run(workspace)
    bullets = _bullets(workspace)
    assert [line for line in bullets if "技能生态" in line] == [
        "- 技能生态: 10 个技能（4个基础 + 6个专业） (previously: 9 个技能（4个基础 + 5个专业）) (2026-11-24)"
    ]
    assert not any("之前" in line or "现在" in line for line in bullets)  # no fact keyed "now", no old value
    assert "技能生态: 9个技能（4个基础+5个专业）" in _archive(workspace)  # superseded, kept in the archive
    before = (workspace / "MEMORY.md").read_bytes()
    _run(workspace)
    assert (workspace / "MEMORY.md").read_bytes() == before


EN_NOTE = """# 2026-11-24

## Exporter port
**Before:** 5432
**Now:** 8000
"""


def test_an_english_pair_supersedes_the_entry_of_its_subject(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "- Exporter port: 5432 (2026-11-20)\n", EN_NOTE)
    _run(workspace)
    assert _bullets(workspace) == ["- Exporter port: 8000 (previously: 5432) (2026-11-24)"]
    assert "Exporter port: 5432" in _archive(workspace)


NO_MATCH_NOTE = """# 2026-11-24

## Review cadence
- Previously: every Friday at 16:00
- Now: every Tuesday at 10:00
"""


def test_a_pair_whose_old_value_no_entry_holds_is_added_beside_the_entries(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "- Review room: Orion-2 on floor 3 (2026-11-20)\n", NO_MATCH_NOTE)
    _run(workspace)
    assert _bullets(workspace) == [
        "- Review room: Orion-2 on floor 3 (2026-11-20)",
        "- Review cadence: every Tuesday at 10:00 (previously: every Friday at 16:00) (2026-11-24)",
    ]
    assert _archive(workspace) == ""


NO_SUBJECT_NOTE = """# 2026-11-24

## 14:30
- **Before:** 3 replicas of the worker pool
- **Now:** 5 replicas of the worker pool
"""


def test_a_pair_under_a_heading_naming_no_subject_supersedes_nothing(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "- Quokka worker pool: 3 replicas (2026-11-20)\n", NO_SUBJECT_NOTE)
    _run(workspace)
    assert _bullets(workspace) == [  # the new value alone: nothing says whose value the old one was
        "- Quokka worker pool: 3 replicas (2026-11-20)",
        "- 5 replicas of the worker pool (2026-11-24)",
    ]
    assert _archive(workspace) == ""


def _line(line: int, text: str, headings: tuple[str, ...] = ("技能生态",)) -> NoteItem:
    return dataclasses.replace(
        note_item(text), id=f"i{line}-{headings[0]}", line_start=line, line_end=line, headings=headings
    )


def test_the_two_lines_must_stand_together_under_one_heading() -> None:
    before, now = _line(5, "- **之前**: 9 个技能"), _line(6, "- **现在**: 10 个技能")
    assert pairs.pairs([before, now]).keys() == {before.id, now.id}
    assert not pairs.pairs([before, _line(9, "- **现在**: 10 个技能")])  # lines apart
    assert not pairs.pairs([before, _line(6, "- **现在**: 10 个技能", ("模型生态",))])  # another heading
    assert not pairs.pairs([_line(6, "- **现在**: 10 个技能"), _line(7, "- **之前**: 9 个技能")])
    # a label is a whole key: "Before deploying" names a step, "Old one" no label of the files
    assert pairs.label("- Before deploying: run the migrations") is None
    assert pairs.label("**之前**（复杂版）: 看到 10+ 条通知") == ("before", "看到 10+ 条通知")
    assert pairs.label("- 现在：10 个技能") == ("now", "10 个技能")  # a full-width colon, no space


def test_the_state_records_the_now_line_as_what_it_states(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "", ZH_NOTE)
    _run(workspace)
    state = json.loads((workspace / "memory" / ".sleep" / "state.json").read_text(encoding="utf-8"))
    assert not state.get("pending")
    assert (
        "- 技能生态: 10 个技能（4个基础 + 6个专业） (previously: 9 个技能（4个基础 + 5个专业）) (2026-11-24)"
        in _bullets(workspace)
    )
