"""Offline NREM reads two structures it used to drop (issue 15, real notes): the sentence a section
opens with, and a diagram drawn in a fence. Pasted code, output and a short log line stay discarded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.cards import section_openers
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.models import Classification, ItemKind
from memory_sleep.workspace.layout import Workspace, discover
from memory_sleep.workspace.notes import read_note

from .item_helpers import note_item

NOTE = """# 2026-11-24

## What it is

A shared board for agent coordination built on SQLite, FastAPI and a continuous polling loop.

## 启动

今天启动了一个自我增强计划，构建自动发现问题、修复和优化的能力体系。

## Validation

Validated the cache invalidation hypothesis on the staging cluster through replayed production traffic:

- the eviction order was the cause

## Pipeline

```
Intake → Review → Approval → Archive
```

## Layout

```
/srv/board/
├── board.py
└── README.md
```

## Stack

```
┌──────────────┐
│  API layer   │
└──────┬───────┘
       ▼
┌──────────────┐
│    Store     │
└──────────────┘
```

## Evening

paged the vendor about #12

## Experiments

```
2026-11-24T00:00	4f1c2aa	test_count	389/389	keep	tag api (384→389)
```

```bash
ls /srv/board → /tmp/listing
```
"""

KEPT = (
    "A shared board for agent coordination built on SQLite",
    "今天启动了一个自我增强计划",
    "Validated the cache invalidation hypothesis",
    "Intake → Review → Approval → Archive",
    "├── board.py",
    "API layer; Store",  # a box's words, without its frame or the lines that only draw
)
DROPPED = ("paged the vendor", "test_count", "ls /srv/board")


def _run(workspace: Path) -> str:
    result = CliRunner().invoke(
        main, ["run", str(workspace), "--engine", "offline", "--today", "2026-11-25", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["status"] == "ok"
    return (workspace / "MEMORY.md").read_text(encoding="utf-8")


def test_a_sections_opening_statement_and_a_drawn_diagram_reach_memory_and_code_does_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-24.md").write_text(NOTE, encoding="utf-8")
    memory = _run(tmp_path)
    for text in KEPT:
        assert text in memory
    for text in DROPPED:
        assert text not in memory
    assert "```" not in memory  # a diagram's entry is its lines, not its fence
    assert _run(tmp_path) == memory  # a second run changes nothing


def test_the_openers_of_a_note_are_the_first_paragraph_under_each_heading(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-24.md").write_text(NOTE, encoding="utf-8")
    items = read_note(discover(Workspace.open(tmp_path)).notes[0], 10**6).items
    openers = section_openers(items)
    assert [i.text[:20] for i in items if i.id in openers] == [
        "A shared board for a",
        "今天启动了一个自我增强计划，构建自动发现",
        "Validated the cache ",
        "paged the vendor abo",
    ]  # a fence or a bullet opening a section is no opener; only the first item of a section is


def _classify(text: str, kind: ItemKind = "line", opens: bool = True) -> Classification:
    item = note_item(text, kind=kind)
    context = ClassifyContext(projects=[], memory=[], openers=frozenset({item.id} if opens else ()))
    return OfflineClassifier().classify([item], context)[0]


@pytest.mark.parametrize(
    ("text", "opens", "kept"),
    [
        ("A shared board for agent coordination built on SQLite, FastAPI and a polling loop.", True, True),
        ("A shared board for agent coordination built on SQLite, FastAPI and a polling loop.", False, False),
        ("paged the vendor about #12", True, False),  # a log line's verb and object: no statement
        ("Is the shared board for agent coordination still running on the old cluster?", True, False),
        ("**SHARED BOARD FOR AGENT COORDINATION NOW RUNNING ON THE NEW CLUSTER**", True, False),
        # CJK text as many words as English: a bigram is half a term ("today's main learnings:")
        ("今天的主要学习内容：", True, False),
        ("今天启动了一个自我增强计划，构建自动发现新技能并每日评估工具健康度的流程。", True, True),
    ],
)
def test_only_a_statement_opening_its_section_is_a_fact(text: str, opens: bool, kept: bool) -> None:
    verdict = _classify(text, opens=opens)
    assert (verdict.verdict == "KEEP") is kept
    assert verdict.category == ("fact" if kept else None)


@pytest.mark.parametrize(
    ("block", "kept"),
    [
        ("```\nIntake → Review → Approval\n```", True),
        ("```\n/srv/board/\n├── board.py\n└── README.md\n```", True),
        ("```bash\nls /srv/board → /tmp/listing\n```", False),  # a language: code, whatever it draws
        ("```\n2026-11-24T00:00\t4f1c2aa\ttest_count\t389/389\t(384→389)\n```", False),  # a value's change
        ("```\nmake build\nmake test\n./deploy → staging\n```", False),  # mostly commands
        ("```\n┌──┐\n│  │\n└──┘\n  ↓\n```", False),  # draws, but names nothing: no entry to write
    ],
)
def test_a_fence_is_kept_only_when_it_draws(block: str, kept: bool) -> None:
    verdict = _classify(block, kind="code", opens=False)
    assert (verdict.verdict, verdict.category, verdict.discard_reason) == (
        ("KEEP", "fact", None) if kept else ("DISCARD", None, "debug")
    )
