"""Offline NREM: routine readings and stack traces carry no durable fact."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.dialogue import conversation_items
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.engines.redact import redact_items
from memory_sleep.models import Classification, EntryView, ItemKind, NoteItem

from .item_helpers import note_item


def _classify(text: str, kind: ItemKind = "line", headings: tuple[str, ...] = ()) -> Classification:
    item = dataclasses.replace(note_item(text, kind=kind), headings=headings)
    return OfflineClassifier().classify([item], ClassifyContext(projects=["Meridian"], memory=[]))[0]


@pytest.mark.parametrize(
    "text",
    [
        "**Build:** #3,107 green (7m34s)",
        "**Uptime:** 23d 5h",
        "**Backup**: ok, 21.9 GB",
        "- Backup erledigt (8.2 GB), alles grün",
        "**Deploy:** Meridian v0.16.2 → staging",
        "20:15 disk on meridian-billing-04: 49% used",
        "- dependabot: merged 45 PRs for Meridian",
    ],
)
def test_readings_that_recur_across_days_are_routine(text: str) -> None:
    """No word list names these: they are routine because a line of their shape came on three earlier days."""
    from memory_sleep.engines.recurrence import Recurrence, note_shapes

    today = date(2026, 11, 20)
    recurrence = Recurrence().with_notes(
        (date(2026, 11, day), note_shapes([text.replace("4", "7")])) for day in (17, 18, 19, 20)
    )
    item = note_item(text, today)
    context = ClassifyContext(projects=["Meridian"], memory=[], recurrence=recurrence)
    verdict = OfflineClassifier().classify([item], context)[0]
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "routine")
    assert not verdict.closes_action


@pytest.mark.parametrize(
    "text",
    [
        "* merged #848 (docs: quota section)",
        "14:19 ran the Meridian cert-renew job by hand, took 0m46s",
        'Exception in thread "main" java.lang.IllegalStateException: context deadline exceeded',
    ],
)
def test_activity_log_lines_and_stack_traces_are_discarded(text: str) -> None:
    verdict = _classify(text)
    assert verdict.verdict == "DISCARD"
    assert not verdict.closes_action


@pytest.mark.parametrize(
    "text", ["19:19:07 [DEBUG] poll worker=0 queue=0 latency=31ms", "- [INFO] worker pool resized to 8"]
)
def test_log_lines_with_a_bracketed_level_are_debug_output(text: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "debug")


@pytest.mark.parametrize(
    "text",
    [
        "Meridian backups go to s3://meridian-billing-us-east-1",
        "Lesson: check free disk on meridian-reports-03 before big migrations, it hit 100% halfway last time",
        "- [ ] Backup: ok to delete the old snapshots? ask Wei by 2026-11-30",
    ],
)
def test_facts_lessons_and_actions_about_the_same_things_are_kept(text: str) -> None:
    assert _classify(text).verdict == "KEEP"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("- Meridian reports got rewritten from Rust 1.79 to Go 1.22", "fact"),
        ("- Meridian backups retention changed 7 days → 365 days", "fact"),
        ("[08:43] Globex renewal pushed to 2026-10-25 (was 2026-10-19)", "fact"),
        (
            "10:58 Switching Nimbus from a local Llama on the GPU box to Claude Haiku: it halves incidents",
            "decision",
        ),
        # a tool replaced, dropped or switched, a choice with the options weighed; in the notes' languages
        (
            "[09:12] Replacing Redis with Valkey for Meridian caching — the licence change, legal asked",
            "decision",
        ),
        ("**14:03** Dropping Auth0 for Meridian; the per-MAU price doubled again", "decision"),
        ("16:40 switching Meridian billing over to Stripe Billing, invoices stay in EUR", "decision"),
        ("- Meridian queue: NATS (ops already runs it)\n  - considered: RabbitMQ, SQS", "decision"),
        ("Meridian deploy target settled: Fly.io, since Wei already knows it", "decision"),
        ("- 10:05 Wir ersetzen Jenkins durch GitHub Actions für Meridian", "decision"),
        ("**11:20** Reemplazamos Mailgun por Postmark en Meridian, menos rebotes", "decision"),
        ("- Meridian 的向量库改用 Qdrant，pgvector 太慢了", "decision"),
        ("[18:02] Meridian の認証は Keycloak に切り替え、来週から", "decision"),
        # a value resized, quoted or dated
        ("**08:31** Meridian worker pool scaled from 6 to 10 nodes", "fact"),
        ("- meridian-db resized from db.t3.large to db.r6g.xlarge", "fact"),
        ("13:37 We quoted Initech €12,400 for the Meridian Q1 work", "fact"),
        ("- Meridian goes live on 2026-12-01", "fact"),
        ("* Meridian Timeout von 30s auf 90s erhöht", "fact"),
        ("- Meridian 副本数从 3 调整为 5", "fact"),
        ("[07:15] Meridian のタイムアウトを 30 秒から 60 秒に変更", "fact"),
    ],
)
def test_a_change_of_value_or_vendor_is_kept(text: str, category: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("* Cobalt bumped Node 22.9 → 20.12", True),
        ("**11:02** bumped the Meridian exporter from Python 3.11 to 3.12", True),
        ("- bumped deps, lockfile refreshed", False),
    ],
)
def test_a_bump_that_names_the_old_and_new_value_is_a_fact(text: str, kept: bool) -> None:
    """ "bumped" reads as a routine log, unless it says from what to what."""
    assert (_classify(text).verdict == "KEEP") is kept


def test_a_change_back_is_no_repeat_of_the_change_it_undoes() -> None:
    """Same words, other order: the later note says the value memory holds is gone."""
    entry = EntryView(
        ref="E1",
        section="Facts",
        topic="Onyx",
        text="Onyx flag `dark_mode` changed from off to on for internal users",
        day=None,
    )
    item = note_item("[21:06] Onyx flag `dark_mode` changed from on for internal users to off")
    (verdict,) = OfflineClassifier().classify([item], ClassifyContext(projects=["Onyx"], memory=[entry]))
    assert verdict.verdict == "KEEP"


def test_a_line_whose_shape_recurs_across_days_is_routine_whatever_its_words() -> None:
    """ "Brain: N memories, Phi x" names no routine word; that it comes back day after day with other
    numbers makes it routine. The first days it is seen it is judged on its own."""
    from memory_sleep.engines.recurrence import Recurrence, note_shapes

    def status_line(day: int) -> str:
        return f"**Brain:** {3500 + day * 17} memories, Phi 0.{7400 + day} (cycle #{day})"

    days = [date(2026, 3, day) for day in range(1, 6)]
    recurrence = Recurrence().with_notes((day, note_shapes([status_line(day.day)])) for day in days)
    items = [note_item(status_line(day.day), day) for day in days]
    context = ClassifyContext(projects=[], memory=[], recurrence=recurrence)
    verdicts = OfflineClassifier().classify(items, context)
    assert [v.discard_reason == "routine" for v in verdicts] == [False, False, True, True, True]
    fact = note_item("**Server IP:** 10.0.9.42", days[-1])
    assert OfflineClassifier().classify([fact], context)[0].verdict == "KEEP"


@pytest.mark.parametrize(
    ("heading", "text", "routine"),
    [
        ("创业失败经验教训 (05:10)", "- **页面ID**: 32c11082-af8e-813f-a088-f2d023a975{day}", True),
        ("Lessons", "- **Pages appended:** {day} blocks", True),
        ("Lessons", "- Lesson: retry the export {day} times before paging anyone", False),
        ("Decisions", "- Decided: Orion keeps {day} replicas", False),
    ],
)
def test_a_line_that_is_a_lesson_only_by_its_section_is_routine_when_its_shape_recurs(
    heading: str, text: str, routine: bool
) -> None:
    """A daily task card under a heading that names lessons ("startup failure lessons") is no lesson
    each day: its fields' shape recurs, so they are routine. A line that says it is a lesson or decision
    is not made routine by recurrence: said again, it is a repeat for REM."""
    from memory_sleep.engines.recurrence import Recurrence, note_shapes

    days = [date(2026, 3, day) for day in range(10, 15)]
    lines = {day: text.format(day=day.day) for day in days}
    recurrence = Recurrence().with_notes((day, note_shapes([lines[day]])) for day in days)
    item = dataclasses.replace(note_item(lines[days[-1]], days[-1]), headings=(heading,))
    verdict = OfflineClassifier().classify(
        [item], ClassifyContext(projects=[], memory=[], recurrence=recurrence)
    )[0]
    assert (verdict.discard_reason == "routine") == routine
    assert verdict.verdict == ("DISCARD" if routine else "KEEP")


@pytest.mark.parametrize(
    ("text", "routine"),
    [
        ("HEARTBEAT_OK\nHEARTBEAT_OK\nHEARTBEAT_OK", True),
        ("[09:00] sync ok, 0 new mails\n[09:30] sync ok, 2 new mails\n[10:00] sync ok, 1 new mails", True),
        ("HEARTBEAT_OK\nHEARTBEAT_OK", False),  # twice: no more than a line and its copy
        ("Port: 8080\nHost: db-01\nRegion: eu-west-1", False),  # three fields, three shapes
    ],
)
def test_one_line_written_again_and_again_in_one_item_is_routine_on_the_first_day(
    text: str, routine: bool
) -> None:
    """No other day's notes are needed: the item's own lines recur in its day's shapes (every line of
    every item counts there), as a routine line's do in a day."""
    from memory_sleep.engines.recurrence import Recurrence, note_shapes

    item = note_item(text, kind="paragraph")
    recurrence = Recurrence().with_notes(
        [(item.day, note_shapes(text.split("\n")[:1], text.split("\n")[1:]))]
    )
    context = ClassifyContext(projects=["Meridian"], memory=[], recurrence=recurrence)
    verdict = OfflineClassifier().classify([item], context)[0]
    assert (verdict.discard_reason == "routine") == routine


@pytest.mark.parametrize(
    ("heading", "text", "category"),
    [
        ("🔮 Potential Next Steps", "- Wire the evaluator into the nightly loop", "action"),
        ("下一步行动 (P0)", "- 完成技能架构升级", "action"),
        ("🎯 核心决策", "- 采用 SQLite 作为本地存储", "decision"),
        ("💡 经验总结", "- 批量任务要先在小数据上试跑", "lesson"),
        ("Blockers", "- the vendor has not sent the API key yet", "status"),
        ("User Preferences:", "- Values visual feedback (screenshots help debugging)", "relationship"),
        ("偏好更新", "- Kai 要求每条信息必须有来源链接", "relationship"),
    ],
)
def test_the_section_an_item_stands_in_says_what_it_is(heading: str, text: str, category: str) -> None:
    """Section names come from languages/*.toml, in any language the files hold; no cue word needed."""
    item = dataclasses.replace(note_item(text), headings=("2026-03-05", heading))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


def test_a_bold_timestamp_with_its_zone_is_not_split() -> None:
    from memory_sleep.engines.offline.wording import entry_text
    from memory_sleep.models import KeptItem

    item = note_item("**08:30 UTC** : Migration plan approved by Raj: the billing DB moves to Postgres 16")
    kept = KeptItem(item=item, category="decision", topic=None)
    assert entry_text(kept).startswith("Migration plan approved")


def test_a_time_that_opens_a_bold_key_stays_in_the_key() -> None:
    """ "**11:00実行**: ..." is a key that holds a time, not a timestamp before "実行**:" (the bold would
    be split in half)."""
    from memory_sleep.engines.offline.wording import entry_text
    from memory_sleep.models import KeptItem

    item = note_item("- **11:00実行**: 未読メール4件検出、Discord #mail-checkに通知")
    kept = KeptItem(item=item, category="fact", topic=None)
    assert entry_text(kept) == "11:00実行: 未読メール4件検出、Discord #mail-checkに通知"


def test_projects_come_from_keys_front_matter_and_recurring_headings_not_from_a_tag_or_a_link() -> None:
    day = date(2026, 3, 5)
    tagged = note_item("- [Research] read the [Vector DB survey](https://example.org/survey): HNSW wins", day)
    keyed = dataclasses.replace(note_item("**Project:** Atlas", day), id="i2", line_start=4, line_end=4)
    verdicts = OfflineClassifier().classify([tagged, keyed], ClassifyContext(projects=[], memory=[]))
    assert [v.topic for v in verdicts] == [None, "Atlas"]


def test_a_project_heading_names_its_project_on_the_first_night() -> None:
    """ "## Project: Atlas" is a "Project: X" line: its project is known the night it first comes, for
    the lines under it and the lines naming it elsewhere; a heading keyed with no name names none."""
    day = date(2026, 3, 5)

    def under(heading: str, text: str, number: int) -> NoteItem:
        item = note_item(text, day)
        return dataclasses.replace(item, id=f"i{number}", headings=(day.isoformat(), heading))

    items = [
        under("Project: Atlas", "- Atlas milestone reached: the public beta ✅", 1),
        under("Evening", "- the Atlas importer now reads JSON too", 2),
        under("Project: Project dashboard", "- the dashboard shows stale builds in red", 3),
    ]
    verdicts = OfflineClassifier().classify(items, ClassifyContext(projects=[], memory=[]))
    assert [verdict.topic for verdict in verdicts] == ["Atlas", "Atlas", None]
    assert (verdicts[0].verdict, verdicts[0].category) == ("KEEP", "status")


def test_a_note_file_name_makes_a_project_only_when_it_recurs_across_days() -> None:
    """`2026-03-15-FINAL.md` or `2026-02-15_AGNI_CONTEXT_SYNC.md` names a note, not a project; a topic
    that names notes on two days (`…-Atlas.md` twice) is one, like a heading that recurs."""

    def in_note(text: str, day: date, topic: str, number: int) -> NoteItem:
        item = note_item(text, day)
        return dataclasses.replace(
            item, id=f"i{number}", file=f"memory/{day.isoformat()}-{topic}.md", project_hint=topic
        )

    once = in_note("- backups now go to the NAS every night", date(2026, 3, 15), "FINAL", 1)
    first = in_note("- the Atlas importer reads CSV", date(2026, 3, 15), "Atlas", 2)
    again = in_note("- the importer now reads JSON too", date(2026, 3, 16), "Atlas", 3)
    verdicts = OfflineClassifier().classify([once, first, again], ClassifyContext(projects=[], memory=[]))
    assert [v.topic for v in verdicts] == [None, "Atlas", "Atlas"]


def test_a_heading_word_that_counts_parts_names_no_project() -> None:
    """ "Cycle 1:", "Cycle 2:" on two days number the parts of a log, while "Atlas" on two days (with or
    without one steady number) is a project the headings name."""

    def under(heading: str, day: date, number: int) -> NoteItem:
        item = note_item("- shipped the retry queue and its tests", day)
        return dataclasses.replace(item, id=f"i{number}", headings=(day.isoformat(), heading))

    items = [
        under("Cycle 1: routing", date(2026, 5, 11), 1),
        under("Cycle 2: stats", date(2026, 5, 12), 2),
        under("Atlas 2 rollout", date(2026, 5, 11), 3),
        under("Atlas 2 rollout, day two", date(2026, 5, 12), 4),
        # a number with CJK text glued on is still the part's number
        under("Phase 1完成", date(2026, 5, 11), 5),
        under("Phase 2 完了", date(2026, 5, 12), 6),
    ]
    verdicts = OfflineClassifier().classify(items, ClassifyContext(projects=[], memory=[]))
    assert [verdict.topic for verdict in verdicts] == [None, None, "Atlas", "Atlas", None, None]


def test_a_word_of_the_language_opening_headings_names_no_project() -> None:
    """ "### Key Details", "### Key Features" on two days open with an adjective, which the text writes
    in lower case ("the key is"); "## Orion" is a heading of its own, and "Vega rollout", "Vega
    rollback" open with a name the text capitalises within a sentence."""

    def under(heading: str, text: str, day: date, number: int) -> NoteItem:
        item = note_item(text, day)
        return dataclasses.replace(item, id=f"i{number}", headings=(day.isoformat(), heading))

    one, two = date(2026, 5, 11), date(2026, 5, 12)
    items = [
        under("Key Details", "- the key is to batch the writes", one, 1),
        under("Key Features", "- retries with backoff", two, 2),
        under("Orion", "- shipped the retry queue", one, 3),
        under("Orion", "- wrote its tests", two, 4),
        under("Vega rollout", "- asked Pim to move Vega to the new cluster", one, 5),
        under("Vega rollback", "- rolled back after the timeouts", two, 6),
    ]
    verdicts = OfflineClassifier().classify(items, ClassifyContext(projects=[], memory=[]))
    assert [verdict.topic for verdict in verdicts] == [None, None, "Orion", "Orion", "Vega", "Vega"]


def test_a_table_of_durations_is_output_and_its_ticks_close_nothing() -> None:
    """A ✅ in a table cell marks a cell, not a task reported done."""
    table = "\n".join(
        ["| job | status | duration |", "| --- | --- | --- |"]
        + [
            f"| {job} | ✅ | {minutes}m{seconds:02d}s |"
            for job, minutes, seconds in (("lint", 5, 32), ("unit", 11, 5), ("build", 14, 26), ("e2e", 2, 25))
        ]
    )
    verdict = OfflineClassifier().classify(
        [note_item(table, kind="table")], ClassifyContext(projects=[], memory=[])
    )[0]
    assert verdict.verdict == "DISCARD"
    assert not verdict.closes_action


def test_an_item_restated_later_in_its_note_is_a_repeat_in_whatever_batch_it_comes() -> None:
    """An end-of-day summary restating the morning's fact adds nothing; another note's item does."""
    classifier = OfflineClassifier()
    context = ClassifyContext(projects=["Atlas"], memory=[])

    def item(text: str, line: int, day: int = 20) -> NoteItem:
        return dataclasses.replace(note_item(text, date(2026, 11, day)), id=f"i{line}-{day}", line_start=line)

    (first,) = classifier.classify([item("- Atlas prod DB is Postgres 16", 3)], context)
    (again,) = classifier.classify(
        [item("- Restating for the log: Atlas prod DB is Postgres 16", 90)], context
    )
    (changed,) = classifier.classify(
        [item("- Restating for the log: Atlas prod DB is Postgres 17", 91)], context
    )
    (elsewhere,) = classifier.classify([item("- Atlas prod DB is Postgres 16", 3, day=21)], context)
    assert first.verdict == "KEEP"
    assert (again.verdict, again.discard_reason) == ("DISCARD", "duplicate")
    assert changed.verdict == "KEEP"
    assert elsewhere.verdict == "KEEP"
    (task,) = classifier.classify([item("- [ ] check Atlas prod DB is Postgres 16", 92)], context)
    assert (task.verdict, task.category) == ("KEEP", "action")  # a task, not the statement again


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("- 结论：按当前 FastAPI 架构，先落一个单服务 YouTube bounded context，不走多 Agent。", "fact"),
        ("**用途：** Telegram Bot 云端部署", "fact"),
        # a short key keeps it however long the value; "the conclusion, settled as (定为): ..." is a choice
        (
            "- 结论固定为：Hermes 不走原生 Windows，统一通过 WSL2；AAS 通过 `HermesRuntimeAdapterService`、"
            "`configs/runtime_agents/hermes.yaml` 和 `metadata.hermes` 接入，不直接耦合进程层，也不另起一套进程管理。",
            "decision",
        ),
    ],
)
def test_a_line_keyed_with_a_full_width_colon_is_read_as_keyed(text: str, category: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    "text",
    [
        "- 包管理器：bun@1.3.9（比yarn快）",
        "1. Firebase SDK version mismatch (firebase@12.8.0 vs @angular/fire@20.0.1)",
    ],
)
def test_a_package_at_a_version_names_no_person(text: str) -> None:
    assert _classify(text).category != "relationship"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # an incident record's "Action:" says what was done (real notes): no task for the briefing
        ("- **Action:** Disabled the service (`launchctl bootout`), deleted the desktop app.", "fact"),
        ("**Action:** Applied the power-prompt configuration to the gateway", "fact"),
        ("**Action Taken:** restarted the gateway on the new port", "fact"),
        # ... unless it sets out a task: a task's verb, an action cue, a deadline
        ("**Action:** renew the TLS certificate of the billing gateway", "action"),
        ("**Action:** need to rotate the staging keys", "action"),
        ("**Action:** add alerting for the billing gateway p95 by 2026-12-06", "action"),
        # a key that names what is to be done is a task whatever its value
        ("**Next action:** direct message attempt to the maintainer", "action"),
    ],
)
def test_an_action_key_is_a_task_only_when_its_value_sets_one_out(text: str, category: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    "text",
    [
        "- Key trade-offs:\n  - one database per tenant\n  - nightly exports over live sync",
        "- Known gaps:\n  - the digest still echoes the speaker\n  - rate limits never seen live",
        "- 关键取舍：\n  - 本地 M1 作为固定运行环境\n  - 视觉输入走云端 API",
    ],
)
def test_a_key_over_a_list_of_worded_entries_is_a_fact(text: str) -> None:
    """A label that is a key (as in "Key: value") over a nested list is what the key holds laid out as a
    list: kept as the same key with its value on one line would be."""
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")


@pytest.mark.parametrize(
    "text",
    [
        # an entry that opens with a command or path, a number or a mark: what was run and what it gave
        "- Commands:\n  - `make seed`\n  - `make serve`",
        "- Counts:\n  - 12 files\n  - 3 tables",
        "- 产出：\n  - `docs/setup.md`\n  - `scripts/start.sh`",
        # no key but a sentence saying what was done, over what it did
        "- Added regression coverage for the runtime repair:\n  - dry-run expects the new path\n  - timeouts end the run",
    ],
)
def test_a_list_of_what_was_run_or_done_under_a_label_is_not_kept_as_its_value(text: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "other")


@pytest.mark.parametrize(
    "text", ["**Still to configure:**", "**待配置：**", "- 下一步需要处理的问题：", "**优势：**"]
)
def test_a_label_that_introduces_the_lines_below_is_no_statement(text: str) -> None:
    """A colon ends it, ASCII or full-width: what it introduces follows on the next lines; two CJK
    characters ("优势", advantages) are a label's word as a longer Latin one is."""
    verdict = _classify(text)
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "other")


@pytest.mark.parametrize(
    "text",
    [
        "**类型**: [系统维护] [自检]",
        "- **标签**: #自检 #系统健康",
        "- **Tags**: #release #ops",
        "*Type: [task] [data] | Priority: P0 | Status: 100% done*",
        "**Brain:** 3571 memories | Phi: 0.7415",
        "**Date:** 2026-11-20",
        "- ⏰ 当前时间: 2026-11-20 13:46:02 (Friday)",
        "*最后更新：2026-11-20 08:55*",
        "- **检查时间**: 2026-11-20 00:07 (UTC+8)",
        "SESSION_START: 2026-11-20 21:51:00 UTC",
        "记录时间: 2026年11月20日 10:00",
    ],
)
def test_fields_about_the_note_are_routine_on_first_sight(text: str) -> None:
    """A key whose value is only tags, or a row of keyed fields, describes the note: no statement; so
    does a key whose value is only when the note was written: its own day (2026-11-20 here), with clock
    times, a zone or a weekday."""
    verdict = _classify(text)
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "routine")


@pytest.mark.parametrize(
    "text",
    [
        "**Owner:** Ana",
        "- **Issue:** #3107 is the flaky e2e test",
        "**Billing channel:** #billing-eng",
        "**Deadline:** 2026-11-27",  # another day: a date worth keeping
        "**Meridian standup:** 10:00 UTC",  # a clock time alone may be a fact
        "**Meridian launch window:** 2026-11-20 21:59 → 22:30 (31 min)",  # more than when it was written
    ],
)
def test_a_keyed_statement_is_no_metadata(text: str) -> None:
    assert _classify(text).verdict == "KEEP"


@pytest.mark.parametrize(
    ("table", "category"),
    [
        (
            "| Agent | Model | Role | Trust |\n|---|---|---|---|\n| AGNI | Opus 4.6 | Research | 0.85 |\n"
            "| Codex | Sonnet 4.5 | Governance | 0.90 |\n| Kimi | K2.5 | Measurement | 0.88 |\n"
            "| Rush | Opus 4.6 | Bridge | 0.75 |",
            "relationship",
        ),
        (
            "| Tier | Model | Use | Context |\n|---|---|---|---|\n| T0 | `gemma3:27b` | heartbeat | 8K |\n"
            "| T1 | `nemotron-49b` | reasoning | 262K |\n| T2 | `glm4-7` | coding | 262K |\n"
            "| T3 | `deepseek-r1` | math | 262K |",
            "fact",
        ),
        (  # a port and a mark beside each service: what runs where, not readings
            "| Service | Port | Up |\n|---|---|---|\n| Gateway | 18789 | 🟢 |\n| Bot dashboard | 3000 | 🟢 |\n"
            "| ROI dashboard | 8080 | 🔴 |\n| Skill dashboard | 5002 | 🟢 |",
            "fact",
        ),
        (  # prices are values stated, not measured; the rule between rows only groups them
            "| Item | Cost |\n|---|---|\n| Hosting | 20 EUR |\n| Domain | 12 EUR |\n|---|---|\n"
            "| Email | 6 EUR |\n| Backups | 4 EUR |",
            "fact",
        ),
    ],
)
def test_a_reference_table_with_some_numbers_is_kept(table: str, category: str) -> None:
    """Most of its cells name things: a table the author keeps, not measurements pasted."""
    verdict = _classify(table, kind="table")
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


def test_a_table_mostly_of_numbers_is_output() -> None:
    table = "| endpoint | p50 (ms) | p95 (ms) | rps |\n|---|---:|---:|---:|\n" + "\n".join(
        f"| /v1/{path} | {p50} | {p50 * 3} | {p50 * 20} |" for path, p50 in (("items", 12), ("search", 40))
    )
    verdict = _classify(table, kind="table")
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "debug")


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("* finished WAL archiving on db-01 — archive_mode=on, tested a PITR restore", True),
        ("- Completed the migration of the billing tables", True),
        ("- wrapped up `ledger_sync` refactor", True),
        ("finished by Friday, Jonas says", False),  # a deadline
        ("We finished the draft late", False),  # not opening the item: a log of the day
    ],
)
def test_an_item_opening_with_a_verb_of_completion_reports_work_done(text: str, done: bool) -> None:
    """Session 55's second trial: "finished WAL archiving on gristmill-db-01 ..." was a routine log line,
    and "enable WAL archiving on gristmill-db-01" stayed open."""
    verdict = OfflineClassifier().classify([note_item(text)], ClassifyContext(projects=[], memory=[]))[0]
    assert verdict.closes_action is done


@pytest.mark.parametrize(
    "text",
    [
        "Quokka milestone reached: the public beta ✅\n- next: onboarding the first customer\n- owner: Ana",
        "- [x] Quokka v2 shipped to the app store",
    ],
)
def test_a_done_report_of_a_known_project_saying_how_it_stands_is_its_status(text: str) -> None:
    """It updates the project's status (and may still close an action); unknown project: resolved."""
    item = note_item(text)
    known = OfflineClassifier().classify([item], ClassifyContext(projects=["Quokka"], memory=[]))[0]
    assert (known.verdict, known.category, known.topic) == ("KEEP", "status", "Quokka")
    assert known.closes_action
    unknown = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (unknown.verdict, unknown.discard_reason) == ("DISCARD", "resolved")
    assert unknown.closes_action


@pytest.mark.parametrize(
    ("headings", "status"),
    [
        (("Fri 2026-11-20", "Evening", "Quokka"), True),
        (("Quokka retro", "What happened"), True),
        (("Fri 2026-11-20", "☕ Quokka"), True),  # an emoji before the name
        (("Fri 2026-11-20", "🚀 **Quokka** launch"), True),
        (("Fri 2026-11-20", "[Quokka] tasks"), False),  # a bracketed tag names no project
        (("Fri 2026-11-20", "Evening", "Deploys"), False),  # a section about no name the item gives
        (("Fri 2026-11-20", "Evening"), False),
    ],
)
def test_a_done_report_under_a_section_named_for_its_project_is_its_status(
    headings: tuple[str, ...], status: bool
) -> None:
    """A project no memory or earlier note names yet: the heading the author put it under does."""
    item = dataclasses.replace(note_item("Quokka milestone reached: the public beta ✅"), headings=headings)
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict == "KEEP" and verdict.category == "status") is status
    assert verdict.closes_action


@pytest.mark.parametrize(
    "text", ["Finished: rotate the Quokka staging TLS cert", "- [x] migrate Quokka billing off db-03"]
)
def test_a_task_reported_done_is_no_project_status(text: str) -> None:
    """Only the word saying it is done reads as status ("finished"): a closed task, not news on the project."""
    verdict = OfflineClassifier().classify(
        [note_item(text)], ClassifyContext(projects=["Quokka"], memory=[])
    )[0]
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "resolved")
    assert verdict.closes_action


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("Wireframes sent to Jonas (done, a day early).", True),
        ("Pim sent the IBAN footer text -> done.", True),
        ("renewed the staging cert → done", True),
        ("- Top P0: EBADF fix (done), R_V toolkit deploy, OACP Airlock MVP", False),  # one part of a list
        ("Wireframes for Jonas (done by Friday)", False),  # a deadline
    ],
)
def test_done_ending_a_line_after_an_arrow_or_in_a_parenthesis_reports_it_done(text: str, done: bool) -> None:
    """A new user's notes closed tasks so, and the briefing kept them as overdue."""
    verdict = OfflineClassifier().classify([note_item(text)], ClassifyContext(projects=[], memory=[]))[0]
    assert verdict.closes_action is done


@pytest.mark.parametrize(
    ("known", "new"),
    [
        (
            "Decided to keep ORB-88 open because the fix costs more than the bug",
            "Decided to keep ORB-412 open because the fix costs more than the bug",
        ),
        (
            "Lesson: check free disk on db-eu-03 before a big restore, it filled up last time",
            "Lesson: check free disk on cache-07 before a big restore, it filled up last time",
        ),
        (
            "Entscheidung: Quasar invoices bekommt keine eigene Datenbank, weil zwei Stacks zu viel sind",
            "Entscheidung: Quasar exports bekommt keine eigene Datenbank, weil zwei Stacks zu viel sind",
        ),
        (
            "决定：Quasar 的 exporter 先不拆分，原因是 Ines 没有时间维护两套部署。",
            "决定：Quasar 的 exporter 先不拆分，原因是 Omar 没有时间维护两套部署。",
        ),
        (
            "Decided to keep the search service in the monorepo for Quasar, because the split broke deploys",
            "Decided to keep the search service in the monorepo for Vireo, because the split broke deploys",
        ),
    ],
)
def test_the_same_sentence_said_of_another_thing_is_no_repeat(known: str, new: str) -> None:
    """Another ticket, host, part or project in the same words: another decision or lesson, kept."""
    entry = EntryView(ref="E1", section="Decisions", topic=None, text=f"{known} (2026-11-02)", day=None)
    item = note_item(new)
    context = ClassifyContext(projects=["Quasar", "Vireo"], memory=[entry])
    (verdict,) = OfflineClassifier().classify([item], context)
    assert verdict.verdict == "KEEP"


@pytest.mark.parametrize(
    "new",
    [
        "Decided to keep ORB-88 open because the fix costs more than the bug",
        "Decided to keep ORB-88 open because the fix costs more than the bug; agreed with Ines",
    ],
)
def test_the_same_sentence_with_a_remark_after_it_is_still_a_repeat(new: str) -> None:
    entry = EntryView(
        ref="E1",
        section="Decisions",
        topic=None,
        text="Decided to keep ORB-88 open because the fix costs more than the bug; agreed with Omar (2026-11-02)",
        day=None,
    )
    (verdict,) = OfflineClassifier().classify([note_item(new)], ClassifyContext(projects=[], memory=[entry]))
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "duplicate")


@pytest.mark.parametrize(
    "text",
    [
        "- move the Quasar cron jobs off vps-12 (（12月2日まで）)",
        "[10:05] clean up the `beta_export` flag in Quasar bis 30.11.",
        "rotate the Vireo signing key by 2026-12-04",
    ],
)
def test_a_line_that_sets_its_own_due_date_is_an_action(text: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", "action")
    assert verdict.deadline is not None and verdict.deadline >= date(2026, 11, 20)


def test_a_date_already_past_sets_no_task() -> None:
    """ "by 2026-11-02" in a note of 2026-11-20 reports when something happened, not a task."""
    assert _classify("the Quasar cron jobs were off vps-12 by 2026-11-02").category != "action"


@pytest.mark.parametrize(
    "text",
    [
        "- Quasar may spend up to €3,100/month on hosting",
        "Vireo darf bis zu £900 im Monat für Server ausgeben",
        "the Quasar support plan is $450 a month",
    ],
)
def test_an_amount_of_money_in_any_currency_is_a_fact(text: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")


@pytest.mark.parametrize(
    "text",
    [
        "- Ines (Fabrikam) wants a written summary after every call",
        "[09:12] Björn (Vandelay) asks for invoices in PDF only",
        "Élodie (Sopra Steria) préfère les échanges par écrit",
    ],
)
def test_a_person_named_with_their_organisation_is_people_context(text: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", "relationship")


@pytest.mark.parametrize(
    "text",
    ["- Nemotron (FREE) prioritized over Gemini (paid)", "- After-Action Review (AAR) template drafted"],
)
def test_an_abbreviation_in_brackets_names_no_organisation(text: str) -> None:
    assert _classify(text).category != "relationship"


@pytest.mark.parametrize(
    "text",
    [
        "OpenAI key for the eval harness (temporary): sk-proj-" + "Rif5j58Kx2WzrLw3" * 4,
        "- staging admin login — user: admin, password: Passw0rd!mbFM",
        "10:21 set ANTHROPIC_API_KEY=sk-ant-api03-"
        + "akPNPekbLovJz" * 6
        + " in the .env for the eval runner",
        "`git remote set-url origin https://ghp_sroAx4wWDEpFlBseDvj4SIWhr2jXKYrkvpC7@github.com/org/app.git`",
    ],
)
def test_a_line_recording_a_secret_stays_in_its_note(text: str) -> None:
    """Redacted, a credential line is a pointer to its note: the note keeps it, recall finds it there, and
    MEMORY.md, read into every session, gets none."""
    item = redact_items([note_item(text)])[0]
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.discard_reason) == ("DISCARD", "other")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        (
            "Decision: the eval runner reads the key from ANTHROPIC_API_KEY=sk-ant-api03-"
            + "Q9w_E8r-T7y" * 9,
            "decision",
        ),
        ("- [ ] rotate the leaked key sk-ant-api03-" + "Q9w_E8r-T7y" * 9 + " by 2026-11-27", "action"),
    ],
)
def test_a_decision_or_a_task_naming_a_secret_is_kept_redacted(text: str, category: str) -> None:
    item = redact_items([note_item(text)])[0]
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Quokka looks steady again\n- since: the load test\n- with: Ana", True),
        ("Quokka export stays on the old queue\n  - also: a second queue", True),
        ("Quokka looks steady again\n  since: the load test\n  with: Ana", True),
        ("**Missing tests**\n- problem: no test files\n- fix: add unit tests", False),  # a finding's title
        ("Quokka looks steady again\n- since: the load test\n- ok", False),  # not all fields
        ("Quokka looks steady again\nTom: the fix goes into build 206", False),  # a paragraph's next line
        ("restarted Quokka on nuc-03\n- took: 4m", False),  # a log line over what it printed
    ],
)
def test_a_statement_the_author_gave_fields_is_kept(text: str, kept: bool) -> None:
    """No word of these says what they are (no cue, no section): the fields under the line do."""
    verdict = _classify(text, kind="bullet")
    assert (verdict.verdict == "KEEP") is kept


@pytest.mark.parametrize(
    "text",
    ["- 60% 债券配置", "- 70% of requests now hit the edge cache", "- 目标转化率提升 15%"],
)
def test_a_percentage_is_a_fact_whatever_follows_its_sign(text: str) -> None:
    verdict = _classify(text, kind="bullet")
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")


@pytest.mark.parametrize(
    "text",
    [
        "- 部署方式定为 Docker Compose，每台机器一份",  # settled on
        "- 今后所有发布先走预发环境",  # going forward
        "- 缓存层不再使用本地文件，而是统一放到对象存储",  # no longer
        "- 数据库迁移暂缓到下个季度",  # hold off on
    ],
)
def test_chinese_decision_words_as_the_english_ones(text: str) -> None:
    verdict = _classify(text, kind="bullet")
    assert (verdict.verdict, verdict.category) == ("KEEP", "decision")


def test_chinese_from_arrow_is_a_value_changed() -> None:
    verdict = _classify("- 会话存储从本地文件→Redis 集群", kind="bullet")
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")


def test_a_chinese_mark_found_across_two_words_is_no_decision() -> None:
    # "提取代码" holds "取代" (replaces), "不同意见" holds "同意" (agreed): neither is a mark
    assert _classify("- 提取代码片段里的注释", kind="bullet").category != "decision"


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("- **Fixed bug**: the ahimsa gate fired due to a substring match, now uses word boundaries", False),
        ("- the flaky test failed due to millisecond timing; now mocked", False),
        ("- send Wei the cost estimate, due Friday", True),
        ("- Meridian review notes (due 2026-12-02)", True),
        ("- Prepare the Q3 deck for Ines", True),
        ("- Renew the Orion TLS cert", True),
        ("- Send Teo the signed contract", True),
        (
            "Included `unlock.sh` that future agents can run to prepare their environment in one command",
            False,
        ),
        ("- The Orion backup job runs on a schedule kept in cron", False),
    ],
)
def test_a_tasks_words_set_one_where_they_say_one(text: str, action: bool) -> None:
    """A task is "due" on a day; "due to" says why something happened. A task's verb ("prepare",
    "renew", "send") sets one where the line starts with it, not inside a statement of what was done
    or how a thing is."""
    assert (_classify(text).category == "action") is action


def test_the_turns_of_a_saved_conversation_are_not_promoted() -> None:
    """A session log saved among the notes ("user: ...", "assistant: ...") keeps its items recallable,
    but what is said in it (a thanks with "the mistakes we made", an offer for next time) is no memory
    to promote by its words; a note with one speaker's label is no conversation."""

    def at(text: str, line: int, file: str = "memory/2026-02-20-alert-hunt.md") -> NoteItem:
        item = note_item(text, date(2026, 2, 20))
        return dataclasses.replace(item, id=f"i{file[-8:]}{line}", file=file, line_start=line, line_end=line)

    items = [
        at("Lesson: never probe the host's own IP from inside a container", 3),
        at("user: they are still coming every 10 minutes", 9),
        at("assistant: found it and killed it.", 12),
        at("Great, that fixed it! Save it to memory: the mistakes we made and the lesson learned", 15),
        at("user: lesson learned: always check the cron jobs first", 4, "memory/2026-02-21.md"),
    ]
    conversation = frozenset(conversation_items(items[:4]) | conversation_items(items[4:]))
    context = ClassifyContext(projects=[], memory=[], conversation=conversation)
    verdicts = OfflineClassifier().classify(items, context)
    assert [verdict.promote for verdict in verdicts] == [True, False, False, False, True]
    assert (verdicts[3].verdict, verdicts[4].verdict) == ("KEEP", "KEEP")
    # classified in batches (NREM's), a batch with no turn of its own is still of the conversation
    later = OfflineClassifier().classify(items[3:4], context)
    assert [verdict.promote for verdict in later] == [False]


def test_a_turn_on_a_paragraph_s_later_line_is_a_turn() -> None:
    """A session log's reply may follow a line of the turn before it with no blank line between: the
    paragraph "Current time: ...\nassistant: NO_REPLY" holds the assistant's turn."""

    def at(text: str, line: int) -> NoteItem:
        item = note_item(text, date(2026, 4, 26))
        return dataclasses.replace(item, id=f"i{line}", line_start=line, line_end=line + text.count("\n"))

    items = [
        at("- **Source**: discord", 5),
        at("user: System (untrusted): Exec completed (nimble-m, code 1)", 9),
        at("An async command you ran earlier has completed.", 11),
        at("Current time: Wednesday, April 22nd, 2026 - 3:10 AM\nassistant: NO_REPLY", 12),
    ]
    assert conversation_items(items) == {"i9", "i11", "i12"}
    assert conversation_items(items[:2]) == set()  # one speaker's label: no conversation


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("- We opted for Postgres over MySQL for the job queue", True),
        ("- Valkey was chosen for the session cache", True),
        ("- Ines chose the managed runner for CI", True),
        # joining a programme, and a choice still to make, are no choice made
        ("- 12 testers have been opted in for 5 days continuously", False),
        ("- Register the chosen domain for the Orion app", False),
        # a policy set is a choice; a document named a policy is none
        ("- New policy: every Orion release ships behind a flag", True),
        ("- New task #586: update the privacy policy for the Orion disclosure", False),
        # a choice taken back is told after it was; "reverse" before a noun names a thing
        ("- Reversing the queue call: Orion moves from Kafka to NATS", True),
        ("- Reverse proxy + auth for the Orion dashboard", False),
    ],
)
def test_a_choice_made_is_a_decision_and_its_words_said_otherwise_are_none(text: str, decision: bool) -> None:
    assert (_classify(text, kind="bullet").category == "decision") is decision


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("- Wrote up `knowledge/lessons/2026-02-09_identity_mismatch.md` for the team", None),
        ("- exported leads/linkedin-decision-makers.csv for the sales sync", None),
        ("- Lesson: retries need jitter, written up in docs/lessons/retries.md", "lesson"),
        ("- Decided to keep Postgres; notes in `docs/adr/0003.md`", "decision"),
    ],
)
def test_a_cue_word_inside_a_path_or_code_span_names_a_thing_not_the_kind_of_line(
    text: str, category: str | None
) -> None:
    """A file named for lessons is no lesson: cues read the author's words, not the names of things."""
    verdict = _classify(text)
    assert (verdict.category if verdict.verdict == "KEEP" else None) == category


@pytest.mark.parametrize(
    "text",
    ["Ben ist vom 2026-12-01 bis 2026-12-05 im Urlaub.", "Ana is out from 2026-11-30 until 2027-01-08"],
)
def test_an_absence_notice_is_about_a_person_not_a_task(text: str) -> None:
    """Filed under People; before, the German notice was an action due on its last day."""
    assert _classify(text).category == "relationship"


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("## Facts", "Lumen reads from the read replica, never from the primary."),
        ("## Hechos", "Dana se encarga ahora de la facturación (Ledger); Marco pasa al equipo de Harbor."),
        ("## Fakten", "Die Zugangsdaten liegen jetzt im Vault unter secret/lumen/db."),
        ("### 关键事实", "Lumen 只从只读副本读取数据"),
    ],
)
def test_a_line_the_author_filed_under_facts_is_a_fact(heading: str, text: str) -> None:
    """A plain sentence that holds no cue of a kind is discarded as saying nothing; the author who
    files it under "Facts" (in the languages of the language files) says what it is."""
    verdict = _classify(text, headings=("2026-11-20", heading))
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")
    assert _classify(text).verdict == "DISCARD"


def test_a_statement_with_its_details_set_under_it_is_a_fact_by_its_first_line() -> None:
    """A new user's trial: the project line and its date under it were discarded as saying nothing, as
    the one-line rules for a statement and a "Key: value" read the whole item."""
    text = "- **Marlin** (mobile app, iOS + Android): 2.0 is the big redesign.\n  - Marlin 2.0 release planned for 2026-11-20."
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", "fact")
    # two lines side by side are no statement and its details
    assert _classify("Ran the migration script twice\nthe second run is fine").verdict == "DISCARD"
