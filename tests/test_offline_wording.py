"""How the offline engine words a note item as one MEMORY.md line: a soft wrap is a space, as Markdown
renders it; a new list item, block or line of code is a new part."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.engines.offline.wording import entry_text, plain
from memory_sleep.models import KeptItem
from memory_sleep.text import soft_break
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.notes import parse_note_text

NOTE = NoteFile(
    path=Path("/nonexistent/memory/2026-11-20.md"), name="2026-11-20.md", day=date(2026, 11, 20), topic=None
)


def entries(note: str) -> list[str]:
    """The entry each item of the note would read as."""
    items = parse_note_text(NOTE, note).items
    return [entry_text(KeptItem(item=item, category="fact", topic=None)) for item in items]


def test_a_sentence_wrapped_over_lines_reads_as_one_sentence() -> None:
    note = (
        "The staging cluster keeps its nightly snapshots for fourteen days before\n"
        "the cleanup job prunes them, and the weekly ones for three months\n"
    )
    assert entries(note) == [
        "The staging cluster keeps its nightly snapshots for fourteen days before the cleanup job "
        "prunes them, and the weekly ones for three months"
    ]


def test_a_value_wrapped_mid_phrase_stays_one_value() -> None:
    note = (
        "- Merges to the billing API stay frozen for everyone until the 2026-12-05\n"
        "  release, then the queue reopens\n"
    )
    assert entries(note) == [
        "Merges to the billing API stay frozen for everyone until the 2026-12-05 release, then the queue reopens"
    ]


def test_sub_bullets_stay_separate_statements() -> None:
    note = "- Rollout plan for the cache:\n  - canary in one region\n  * then all regions\n  1. watch the error rate\n"
    assert entries(note) == [
        "Rollout plan for the cache:; canary in one region; then all regions; watch the error rate"
    ]


def test_a_wrapped_sub_bullet_is_one_statement_and_its_siblings_others() -> None:
    note = (
        "- Deploy checklist\n"
        "  - [ ] rotate the signing key of the payments gateway before the\n"
        "    certificate expires on 2026-12-01\n"
        "  - announce the window\n"
    )
    assert entries(note) == [
        "Deploy checklist; rotate the signing key of the payments gateway before the certificate "
        "expires on 2026-12-01; announce the window"
    ]


def test_chinese_wrapped_between_two_characters_joins_without_a_space() -> None:
    note = "- 数据库迁移已经完成，旧的备份保留三十天，下一步是更新部署文档和\n  值班手册\n"
    assert entries(note) == ["数据库迁移已经完成，旧的备份保留三十天，下一步是更新部署文档和值班手册"]


def test_lines_written_a_statement_a_line_stay_apart() -> None:
    """Notes are often written a statement a line without punctuation: a line with room left for the
    next line's first word was ended by its author, whatever Markdown would render."""
    note = (
        "dry run done, summary posted in the channel\n"
        "EOD summary sent to Sam: 41 diffs, all fixed in the rounding patch before noon\n"
        "Owner: Dana\n"
    )
    assert entries(note) == [
        "dry run done, summary posted in the channel; EOD summary sent to Sam: 41 diffs, all fixed in the "
        "rounding patch before noon; Owner: Dana"
    ]


def test_a_line_that_leaves_a_parenthesis_open_goes_on_in_the_next_one() -> None:
    """Written a statement a line, yet the line that opens "(old one" ends no statement."""
    note = (
        "New exporter dashboard at\n"
        "https://grafana.example.net/d/9ee4050/exporter (old one\n"
        "https://grafana.example.net/d/badd653/exporter is gone)\n"
    )
    assert entries(note) == [
        "New exporter dashboard at; https://grafana.example.net/d/9ee4050/exporter (old one "
        "https://grafana.example.net/d/badd653/exporter is gone)"
    ]


@pytest.mark.parametrize(
    ("before", "after", "joined"),
    [
        ("下一步", "是更新", ""),  # Chinese: no spaces between words
        ("ログを", "確認した", ""),  # Japanese
        ("데이터베이스", "이전", " "),  # Korean separates words with spaces
        ("迁移到", "Postgres", " "),  # a CJK character next to a Latin letter keeps the space
        ("until the", "release", " "),
    ],
)
def test_a_soft_break_is_a_space_except_between_two_unspaced_wide_characters(
    before: str, after: str, joined: str
) -> None:
    assert soft_break(before, after) == joined


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- first part\n\n  second paragraph of the item", "first part; second paragraph of the item"),
        ("- a line with a hard break  \n  next line", "a line with a hard break; next line"),
        ("- Release notes\n  ## Known issues\n  none so far", "Release notes; Known issues; none so far"),
        ("Meeting log\n14:05 decided to ship", "Meeting log; decided to ship"),
        ("Owner change\n**Owner:** Ana", "Owner change; Owner: Ana"),
        (
            "> The team decided to keep the old schema for the billing tables until\n> the tooling is ready",
            "The team decided to keep the old schema for the billing tables until the tooling is ready",
        ),
        ("```\nmake build\nmake test\n```", "make build; make test"),
        ("| host | role |\n|---|---|\n| db1 | primary |", "db1 (role: primary)"),
    ],
)
def test_a_line_that_opens_a_block_of_its_own_starts_a_new_part(text: str, expected: str) -> None:
    assert plain(text) == expected


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (  # a new user's MEMORY.md read "| option | pros | cons |; | SQLite on the worker box | ..."
            "| option | pros | cons |\n|---|---|---|\n"
            "| SQLite | nothing to operate | single box |\n| Postgres (RDS) | row locks, `SKIP LOCKED` | needs Raj |",
            "SQLite (pros: nothing to operate; cons: single box); "
            "Postgres (RDS) (pros: row locks, `SKIP LOCKED`; cons: needs Raj)",
        ),
        (
            "| Report | Key Finding |\n| :--- | ---: |\n| GPU.md | Triton > ROCm |",
            "GPU.md (Key Finding: Triton > ROCm)",
        ),
        ("| 模型 | 大小 |\n|---|---|\n| Qwen3 | 8B |", "Qwen3 (大小: 8B)"),
        ("| a | b |\n|---|---|\n| x |  |", "x"),  # an empty cell says nothing
        ("> | a | b |\n> |---|---|\n> | x | y |", "x (b: y)"),  # quoted
        # a rule between rows groups them: the row above it is a row, not a second header
        ("| a | b |\n|---|---|\n| x | y |\n|---|---|\n| z | w |", "x (b: y); z (b: w)"),
        (
            "| a | b |\n| x | y |",
            "| a | b |; | x | y |",
        ),  # no rule under a header: no header to name the cells
    ],
)
def test_a_table_row_reads_as_its_first_cell_and_the_others_named_by_their_column(
    table: str, expected: str
) -> None:
    """A table's rows are what it states, each cell named by its column's header: the header row, the
    pipes and the rule line are no part of it."""
    assert plain(table) == expected


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        (  # the cut would leave out what the author stressed: it goes first
            "Big change today. Talked it through with Pim and Teo over lunch: they will never have more than a handful of "
            "concurrent users and don't want to pay for managed Postgres backups. **We're switching the "
            "database to SQLite** (WAL mode, nightly backup to the storage box). Postgres is out.",
            "We're switching the database to SQLite — Big change today.",
        ),
        (  # short enough: the author's order stays
            "Talked it through with Pim. **We're switching the database to SQLite**. Postgres is out.",
            "Talked it through with Pim. We're switching",
        ),
        (  # a bold key is no stressed phrase
            "**Owner (billing):** Pim, who " + "also keeps the runbook and the dashboards up to date " * 4,
            "Owner (billing): Pim",
        ),
    ],
)
def test_a_long_item_puts_the_phrase_its_author_stressed_first(text: str, starts: str) -> None:
    [item] = parse_note_text(NOTE, f"- {text}\n").items
    worded = entry_text(KeptItem(item=item, category="decision", topic=None))
    assert worded.startswith(starts) and len(worded) <= 200


def test_the_briefing_words_a_recent_decision_as_its_entry_does() -> None:
    from memory_sleep.engines.base import BriefingContext
    from memory_sleep.engines.offline.brief import OfflineBriefer

    [item] = parse_note_text(
        NOTE,
        "- Decided: the nightly export job moves from the cron box to the queue\n  worker\n  - reason: cron overlaps\n",
    ).items
    context = BriefingContext(
        today=date(2026, 11, 21),
        open_actions=[],
        projects={},
        recent=[KeptItem(item=item, category="decision", topic=None)],
    )
    assert OfflineBriefer().brief(context).context == [
        "Decision 2026-11-20: the nightly export job moves from the cron box to the queue worker; "
        "reason: cron overlaps"
    ]


def test_a_parenthesis_never_closed_joins_no_lines() -> None:
    note = "Grus notes (draft\nbackups run nightly\nOwner is Dana\n"
    assert entries(note) == ["Grus notes (draft; backups run nightly; Owner is Dana"]
