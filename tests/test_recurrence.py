"""Routine by recurrence: what counts as a shape coming back, and what recurrence says nothing about."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.engines.recurrence import Recurrence, note_shapes
from memory_sleep.models import Classification
from memory_sleep.workspace.stamps import is_stamp, split_stamps

from .conftest import run_offline
from .item_helpers import note_item

TODAY = date(2026, 3, 29)
_NO_SIDECAR = Config(sidecar=SidecarConfig(enabled=False))


def _verdict(text: str, earlier: list[tuple[date, str]]) -> Classification:
    recurrence = Recurrence().with_notes((day, note_shapes([line])) for day, line in earlier)
    context = ClassifyContext(projects=["Atlas"], memory=[], recurrence=recurrence)
    return OfflineClassifier().classify([note_item(text, TODAY)], context)[0]


def _with_today(earlier: list[tuple[date, str]], today: list[str]) -> Recurrence:
    """The shapes of one line a day on the `earlier` days, and of `today`'s lines on TODAY."""
    return Recurrence().with_notes(
        [*((day, note_shapes([line])) for day, line in earlier), (TODAY, note_shapes(today))]
    )


def test_a_weekly_report_is_routine_by_its_fourth_week() -> None:
    """Three earlier weeks with a line of this shape: a report that comes weekly, not daily, is routine."""
    earlier = [(date(2026, 3, day), f"**Inbox:** {day} unread, none urgent") for day in (8, 15, 22)]
    assert _verdict("**Inbox:** 11 unread, none urgent", earlier).discard_reason == "routine"


def test_a_reading_whose_key_recurs_is_routine_though_its_words_around_the_value_change() -> None:
    earlier = [
        (date(2026, 3, 20), "**Queue:** 4 jobs waiting"),
        (date(2026, 3, 23), "**Queue:** empty after 12 retries"),
        (date(2026, 3, 26), "**Queue:** 31 stuck on Atlas"),
    ]
    assert _verdict("**Queue:** 7 jobs, 2 failed", earlier).discard_reason == "routine"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "- Mei is out from 2026-04-02 for 3 days; Tom covers",
            "- Mei is out from 2026-03-{d} for 3 days; Tom covers",
        ),
        ("Atlas v1.5.0 is live in prod", "Atlas v1.4.{d} is live in prod"),
        ("- 李雷 4月2日 起休假，韩梅梅 代班", "- 李雷 3月{d}日 起休假，韩梅梅 代班"),
        # a deadline however written: each is a task of its own
        (
            "- [ ] write the Atlas postmortem for ATL-780 due 4/06",
            "- [ ] write the Atlas postmortem for ATL-1{d} due 3/{d}",
        ),
        (
            "- TODO fix the flaky Atlas test (ATL-568) by 6 Apr",
            "- TODO fix the flaky Atlas test (ATL-1{d}) by {d} Mar",
        ),
    ],
)
def test_a_line_naming_another_day_or_a_release_is_not_routine_by_recurrence(text: str, line: str) -> None:
    """A date other than the note's own, or a version, is what the line is about: the same shape every
    week (a leave, a release) is news each time."""
    earlier = [(date(2026, 3, day), line.format(d=day)) for day in (20, 23, 26, 28)]
    verdict = _verdict(text, earlier)
    assert verdict.discard_reason != "routine", verdict.reason


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "- cache warmed for `src/api.ts` before the demo",
            [
                "- cache warmed for `lib/db.py` before the demo",
                "- cache warmed for `app.json` before the demo",
            ],
        ),
        ("- status check: nothing new in #billing-alerts", ["- status check: nothing new in #ops-{d}"]),
    ],
)
def test_a_sentence_said_of_another_identifier_each_day_is_routine(text: str, lines: list[str]) -> None:
    """The same words around a path or a channel that changes (or a value in its place): a log line,
    day after day."""
    earlier = [(date(2026, 3, day), lines[day % len(lines)].format(d=day)) for day in (20, 23, 26)]
    recurrence = Recurrence().with_notes((day, note_shapes([line])) for day, line in earlier)
    assert recurrence.is_routine(text, TODAY)


def test_a_field_naming_another_identifier_each_day_is_not_routine_by_recurrence() -> None:
    """A key whose value is a path or a host ("Repo: ..."): another thing each day, maybe news each day."""
    earlier = [
        (date(2026, 3, day), f"Repo: github.com/acme/tool-{name}")
        for day, name in ((20, "a"), (23, "b"), (26, "c"))
    ]
    assert _verdict("Repo: github.com/acme/atlas-web", earlier).discard_reason != "routine"


def test_three_readings_of_one_shape_over_two_days_are_routine() -> None:
    """A line's shape with three different values over two days is a series of readings: the second
    day's readings are routine without waiting for a third day."""
    earlier = [(date(2026, 3, 28), "disk on db-01: 77% used")]
    today = ["disk on web-03: 24% used", "disk on cache-2: 61% used"]
    recurrence = _with_today(earlier, today)
    assert all(recurrence.is_routine(line, TODAY) for line in today)


def test_a_value_written_against_cjk_text_masks_the_value_only() -> None:
    """With no space between, "面积：49.65%" is a key and its value: lines of other things with a number
    in them on other days ("总计：10个技能", "内存：8GB") are no readings of its shape, as they would be
    if the whole unspaced line were masked as one value. The same key day after day still is routine."""
    earlier = [
        (date(2026, 3, 26), "总计：10个技能"),
        (date(2026, 3, 27), "内存：8GB"),
        (date(2026, 3, 28), "今天扩展到9个技能"),
    ]
    assert _verdict("**绿色线范围占房间面积：49.65%**", earlier).discard_reason != "routine"
    heartbeat = [(date(2026, 3, day), f"自检完成：{day}个任务正常") for day in (26, 27, 28)]
    assert _verdict("自检完成：3个任务正常", heartbeat).discard_reason == "routine"


def test_a_new_value_said_twice_the_next_day_is_not_a_series() -> None:
    """One line restated the same day (a summary of the day) is one value: a fact whose value changed
    on its second day is news, however often that day says it."""
    earlier = [(date(2026, 3, 28), "The staging proxy listens on port 8343")]
    today = ["The staging proxy listens on port 9000", "The staging proxy listens on port 9000"]
    recurrence = _with_today(earlier, today)
    assert not recurrence.is_routine(today[0], TODAY)


def test_a_line_with_no_value_is_never_a_series() -> None:
    """A task ticked off and mentioned again has one shape and no value in it: one statement, not three
    readings."""
    earlier = [(date(2026, 3, 28), "- [ ] archive the old-site repo")]
    today = ["- [x] archive the old-site repo", "archive the old-site repo"]
    recurrence = _with_today(earlier, today)
    assert not recurrence.is_routine(today[0], TODAY)


def test_settings_of_other_names_are_not_readings_of_one_series() -> None:
    """ "WORKERS=8", "UPLOAD_LIMIT_MB=25" and "POOL_SIZE=12" name three settings: the name before "="
    is what each line is about, so they are three facts, not three readings of one shape; a setting
    whose value keeps changing still is a series."""
    earlier = [(date(2026, 3, 28), "the ingest service runs with `WORKERS=8` in prod")]
    today = [
        "the ingest service runs with `UPLOAD_LIMIT_MB=25` in prod",
        "the ingest service runs with `POOL_SIZE=12` in prod",
    ]
    recurrence = _with_today(earlier, today)
    assert not any(recurrence.is_routine(line, TODAY) for line in today)
    assert recurrence.series_day(earlier[0][1], date(2026, 3, 28)) is None
    readings = [
        "the ingest service runs with `WORKERS=9` in prod",
        "the ingest service runs with `WORKERS=4` in prod",
    ]
    recurrence = _with_today(earlier, readings)
    assert all(recurrence.is_routine(line, TODAY) for line in readings)


def test_a_pictograph_decorating_a_line_is_no_part_of_its_shape() -> None:
    """ "lunch break 🟡", "lunch break ☕", "lunch break ⚠️": one line with another mark each day."""
    earlier = [
        (date(2026, 3, day), f"- lunch break {mark}") for day, mark in ((20, "🟡"), (23, "☕"), (26, "⚠️"))
    ]
    recurrence = Recurrence().with_notes((day, note_shapes([line])) for day, line in earlier)
    assert recurrence.is_routine("[12:08] lunch break 🧪", TODAY)
    assert not recurrence.is_routine("[12:08] lunch with the Atlas team 🧪", TODAY)


def _under_follow_ups(text: str, earlier: list[tuple[date, str]]) -> Classification:
    recurrence = Recurrence().with_notes((day, note_shapes([line])) for day, line in earlier)
    item = dataclasses.replace(note_item(text, TODAY), headings=(TODAY.isoformat(), "Follow-ups"))
    context = ClassifyContext(projects=["Atlas"], memory=[], recurrence=recurrence)
    return OfflineClassifier().classify([item], context)[0]


def test_a_reading_under_an_action_section_is_routine_when_its_key_recurs() -> None:
    """Standing under "Follow-ups" makes a line an action only if nothing in it says otherwise: a reading
    whose key recurs is a reading there too; a task the line sets itself is still judged as a task."""
    said = ((20, "ok, 20.4 GB"), (23, "done in 4m"), (26, "31 GB, 2 warnings"))
    earlier = [(date(2026, 3, day), f"**Backup:** {value}") for day, value in said]
    assert _under_follow_ups("**Backup**: ok, 86.7 GB", earlier).discard_reason == "routine"
    verdict = _under_follow_ups("- [ ] **Backup:** free 20 GB on db-1", earlier)
    assert (verdict.verdict, verdict.category) == ("KEEP", "action")


def test_an_item_led_by_a_stamp_is_judged_by_what_follows_the_stamp() -> None:
    """A stamp whose key recurs every day ("**时间：** <date> <time>") says when the item was written;
    the instruction below it is what the item says, and it is no routine line."""
    earlier = [(date(2026, 3, day), f"**时间：** 2026-03-{day} 0{day % 10}:19") for day in (20, 21, 22, 23)]
    stamped = '**时间：** 2026-03-29 08:19\n**指令：** "群聊的事先放一放，其他的先更新"'
    verdict = _verdict(stamped, earlier)
    assert (verdict.verdict, verdict.category, verdict.promote) == ("KEEP", "fact", True)
    # the stamp alone, or a stamp over a line that recurs, is routine as before
    assert _verdict("**时间：** 2026-03-29 08:19", earlier).discard_reason == "routine"
    beat = [(date(2026, 3, day), f"**时间：** 2026-03-{day} 08:00\nHEARTBEAT_OK") for day in (20, 21, 22)]
    shapes = Recurrence().with_notes((day, note_shapes([note_item(text, day).text])) for day, text in beat)
    context = ClassifyContext(projects=[], memory=[], recurrence=shapes)
    item = note_item("**时间：** 2026-03-29 08:00\nHEARTBEAT_OK", TODAY)
    assert OfflineClassifier().classify([item], context)[0].verdict == "DISCARD"


@pytest.mark.parametrize(
    ("line", "stamp"),
    [
        ("**时间：** 2026-03-22 08:19", True),
        ("**Checked:** 00:07", True),
        ("[14:02]", True),
        ("Time: 00:29 - 00:34 UTC", True),
        ("**Time:** 14:02 deploy to prod", False),
        ("Brain: 3571 memories", False),
        ("Port: 8080", False),
    ],
)
def test_a_stamp_only_says_when(line: str, stamp: bool) -> None:
    assert is_stamp(line) is stamp
    said = "the line below"
    assert split_stamps(f"{line}\n{said}") == ((f"{line}\n", said) if stamp else ("", f"{line}\n{said}"))


def test_a_line_of_a_language_without_spaces_that_names_a_time_is_no_stamp() -> None:
    """ "验证外网服务访问状态（11:45）" says what was done at 11:45: its words are not masked away."""
    assert not is_stamp("- ✅ 验证外网服务访问状态（11:45）")
    assert is_stamp("**最后更新**：2026-03-26 08:54")
    assert not is_stamp("Deploy at 14:00")


def test_lines_inside_items_count_on_their_own_day_only() -> None:
    """A line said again inside items counts toward its day's ROUTINE_IN_ONE_NOTE; other days see each
    item's first line only: a field inside one item a day (a project's "Tests: 17 tests" under its
    name) is no line written on its own day after day."""
    from memory_sleep.engines.recurrence import ROUTINE_DAYS, ROUTINE_IN_ONE_NOTE

    field, first = "Tests: 17 tests, all green", "Prompt kit: a zero-dependency template engine"
    earlier = [(date(2026, 3, 20 + offset), note_shapes([first], [field])) for offset in range(ROUTINE_DAYS)]
    across = Recurrence().with_notes(earlier)
    assert not across.is_routine(field, TODAY)
    assert across.is_routine(first, TODAY)  # the first lines came on ROUTINE_DAYS days
    within = Recurrence().with_notes([(TODAY, note_shapes([field], [field] * (ROUTINE_IN_ONE_NOTE - 1)))])
    assert within.is_routine(field, TODAY)
    once_fewer = Recurrence().with_notes([(TODAY, note_shapes([field], [field] * (ROUTINE_IN_ONE_NOTE - 2)))])
    assert not once_fewer.is_routine(field, TODAY)


_BARS = [
    (date(2026, 3, 25), "status: tokens used today: 31k · inbox: 12 unread · CI: green"),
    (date(2026, 3, 26), "tokens used today: 44k. inbox: 9 unread."),
    (date(2026, 3, 27), "16:00 heartbeat: tokens used today: 58k, inbox: 11 unread"),
]


@pytest.mark.parametrize(
    "line",
    [
        "heartbeat: tokens used today: 37k | inbox: 7 unread | CI green",
        "tokens utilisés aujourd'hui : 52k — inbox : 14 non lus",  # another language, the same "inbox"
    ],
)
def test_a_status_bar_worded_otherwise_each_day_is_routine_by_the_keys_it_reads(line: str) -> None:
    """A status bar written another way each day (a label before it, "·" or "," or "." between its
    fields) has another shape each day, yet reads the same keys: half of them recurring, it is routine;
    its first days' bars are readings of a series once a later day shows it."""
    assert _verdict(line, _BARS).discard_reason == "routine"
    assert _verdict(line, _BARS[:1]).verdict == "KEEP"  # one earlier day: nothing recurs yet
    recurrence = Recurrence().with_notes((day, note_shapes([bar])) for day, bar in _BARS)
    assert recurrence.series_day(_BARS[0][1], _BARS[0][0]) == date(2026, 3, 27)


def test_a_line_naming_one_reading_is_no_status_bar() -> None:
    """A statement holding a number on three days ("Atlas API runs on port 8080", then others) reads no
    keys: only a line of two readings or more is a status bar."""
    earlier = [
        (date(2026, 3, day), f"Atlas API runs on port {port}, behind Caddy")
        for day, port in ((25, 8080), (26, 9090), (27, 9443))
    ]
    assert _verdict("Atlas relay runs on port 7443, behind Caddy", earlier).verdict == "KEEP"


_CARDS = """# {day}

## Runbook cards

### Gristmill DB
Host: gristmill-db-01.int.example.net
Engine: PostgreSQL {engine}
Owner: Jonas Weber

### Cinderpath
Host: {host}
Port: {port}
Owner: Leah Kim
"""


def test_hosts_of_two_cards_are_no_readings_of_one_series(tmp_path: Path) -> None:
    """Session 55's second trial: runbook cards copied twice, a week apart, each with a "Host:" field.
    Four hosts over two days read as a series of readings, and the run archived the database's host,
    which had not changed. A value that is a name (a host, an address, a link) says what a thing is
    called or where it is: "Host:" lines with other hosts are other things, not readings."""
    (tmp_path / "memory").mkdir()
    first = _CARDS.format(day="2026-11-16", engine="14.11", host="cp-legacy-01.int.example.net", port="8443")
    later = _CARDS.format(day="2026-11-24", engine="16.4", host="cinder-a.k8s.example.net", port="443")
    (tmp_path / "memory" / "2026-11-16.md").write_text(first)
    run_offline(tmp_path, today=date(2026, 11, 17), config=_NO_SIDECAR)
    (tmp_path / "memory" / "2026-11-24.md").write_text(later)
    run_offline(tmp_path, today=date(2026, 11, 25), config=_NO_SIDECAR)
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "Host: gristmill-db-01.int.example.net" in memory
    assert "Host: cinder-a.k8s.example.net" in memory
    archive = tmp_path / "memory" / "archive.md"
    assert not archive.exists() or "series of readings" not in archive.read_text()
