"""The author's structure names open actions in the wordings of the language files: a section named
"Next Actions", "行动计划" or "Roadmap", and a line that starts with an action section's name."""

from __future__ import annotations

import dataclasses

import pytest

from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.offline import sections
from memory_sleep.engines.offline.classify import OfflineClassifier

from .item_helpers import note_item


@pytest.mark.parametrize(
    ("headings", "text"),
    [
        (
            ("Research", "🎯 Next Actions"),
            "1. Add control conditions (random patching, shuffled activations)",
        ),
        (("Deployment", "Next Actions Required"), "2. Git status on 4 repos"),
        (("🎯 立即行动计划", "今天可以做的（低风险）"), "1. **添加 LICENSE**\n   - 选择 MIT License"),
        (("学习与优化", "待改进"), "1. 创建自动化扫描脚本"),
        (("Session", "Future Enhancements (Roadmap)"), "- Export to HTML/PDF formats"),
        (("深度技术研究",), "- **下一步**: 创建 lab/a2a-trust-prototype/ — TrustEngine 中间件"),
        (("Session",), "- **Next steps:** wire the evaluator into the nightly loop"),
        (("Friday", "Open items"), "- Kenji: add an alert when the funnel job runs longer than 10 minutes"),
    ],
)
def test_open_actions_are_found_by_the_section_or_the_marker_they_stand_under(
    headings: tuple[str, ...], text: str
) -> None:
    item = dataclasses.replace(note_item(text), headings=("2026-03-05", *headings))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", "action")


@pytest.mark.parametrize(
    ("lead", "category"),
    [("Remaining", "action"), ("剩余手动", "action"), ("Next steps", "action"), ("Decisions", "decision")],
)
def test_a_label_that_starts_with_a_section_name_gives_its_list_that_kind(lead: str, category: str) -> None:
    item = dataclasses.replace(note_item("- create the release channel"), headings=("Evening",), lead=lead)
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


def test_a_sentence_that_holds_a_section_name_somewhere_gives_its_list_no_kind() -> None:
    """ "将以下经验记录到长期记忆" (write these lessons to memory) is narration, not a Lessons list."""
    item = dataclasses.replace(
        note_item("1. 项目健康检查清单"), headings=("记录",), lead="将以下经验记录到长期记忆"
    )
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert verdict.category != "lesson"


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("Role Clarification", "- Knowledge librarian (the wiki, the glossary)"),
        ("Contacts", "- Ana: billing on-call, the exporter"),
        ("角色分工", "- 小李：前端和设计"),
    ],
)
def test_items_under_a_people_or_roles_section_are_people_context(heading: str, text: str) -> None:
    item = dataclasses.replace(note_item(text, kind="bullet"), headings=("2026-03-05", heading))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", "relationship")


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("- restarted the exporter on db-2 after the config reload", ("DISCARD", "routine")),
        ("- pushed image billing:v0.11.9 (69.4 MB)", ("DISCARD", "routine")),
        ("- rotate the staging TLS cert", ("KEEP", "action")),
        ("- checked the exporter on db-2 again by Friday", ("KEEP", "action")),
        ("- [ ] merged branches still to be deleted", ("KEEP", "action")),
    ],
)
def test_an_activity_log_line_under_an_action_section_is_what_was_done(
    text: str, verdict: tuple[str, str]
) -> None:
    """A line opening with a verb of the activity log reports work done, under "Follow-ups" as anywhere:
    a task (an open checkbox, a deadline, an order) is still an action there."""
    item = dataclasses.replace(note_item(text, kind="bullet"), headings=("2026-03-05", "Atlas", "Follow-ups"))
    found = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (found.verdict, found.category or found.discard_reason) == verdict


def test_one_character_under_an_action_section_is_no_action() -> None:
    """ "- 无" (none) under 待办事项 (to-dos) says there is nothing to do."""
    item = dataclasses.replace(note_item("- 无", kind="bullet"), headings=("2026-03-05", "🎯 待办事项"))
    found = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert found.verdict == "DISCARD"


@pytest.mark.parametrize(
    ("heading", "text", "category"),
    [
        (
            "Follow-ups",
            "19:14 Decided Beacon uses GPT-4.1 for summarisation because it unblocks Mateo",
            "decision",
        ),
        ("Next steps", "- Lesson: the staging cron runs in UTC, not local time", "lesson"),
        ("Decisions", "- Correction: the Atlas bucket is atlas-prod-2", "fact"),
        ("Follow-ups", "- ask Ana about the Atlas export", "action"),
        # a bold key is the author's label too
        ("Next steps", "- **Decision:** build our own feedback portal instead of the SaaS one", "decision"),
        (
            "Blockers",
            "- **Lesson:** when spawning fails with 'pairing required', check device scopes",
            "lesson",
        ),
        # a key's words, not its letters: "Utilities" holds no "til"
        ("Notes", "- **Utilities:** the office power bill is paid from the shared card", "fact"),
    ],
)
def test_the_label_a_line_opens_with_outranks_its_section(heading: str, text: str, category: str) -> None:
    """ "Decided ..." under "Follow-ups" is a decision, not a task: the author's own mark for the line
    says more than the section it stands in. A line with no such label takes its section's kind."""
    item = dataclasses.replace(note_item(text, kind="bullet"), headings=("2026-03-05", "Atlas", heading))
    found = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (found.verdict, found.category) == ("KEEP", category)


@pytest.mark.parametrize(
    ("heading", "category"),
    [
        ("Pending Decisions (waiting on Pim)", "action"),
        ("Decisions still to make", "action"),
        ("待决策", "action"),
        ("Decisions I made", "decision"),
        ("关键决策", "decision"),
    ],
)
def test_decisions_a_heading_says_are_still_open_are_open_actions(heading: str, category: str) -> None:
    """A list under "Pending decisions" holds what is still to be decided: open actions, not choices made."""
    item = dataclasses.replace(note_item("- Ola's relocation budget"), headings=("2026-03-05", heading))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    ("heading", "action"),
    [
        ("Tasks Completed", False),
        ("Completed tasks", False),
        ("Tasks not yet completed", True),
        ("Tasks", True),
        # a check mark says it in any language
        ("Evening Tasks (9:50 PM - 10:05 PM) ✅", False),
        ("✔ Next steps", False),
        ("Next steps ✅ = done, ⬜ = open, not yet completed", True),
    ],
)
def test_tasks_a_heading_says_are_done_are_no_open_actions(heading: str, action: bool) -> None:
    """A list under "Tasks Completed" or "Evening Tasks ✅" reports work done; "Tasks not yet
    completed" is still to do."""
    item = dataclasses.replace(note_item("- the integration demo for Pim"), headings=("2026-03-05", heading))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.category == "action") is action


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("[00:40] BLOCKER FIXED: Sub-agent spawning broken", "done"),
        ("Blockers resolved", "done"),
        ("Blockers not yet resolved", "blocker"),
        ("Key Blockers", "blocker"),
        # a roadmap names a product or page as often as a list of work ("Roadmap Portal")
        ("[00:00] Roadmap Portal — Custom Sleekplan Replacement", None),
        # Japanese names count wherever they stand, as Chinese ones do
        ("未完了タスク・次回への申し送り", "action"),
        ("残作業完了", "done"),
        ("学んだこと", "lesson"),
        ("技術的決定", "decision"),
        # Russian names in the forms a heading uses, qualified as English ones are
        ("⚠️ Урок: не перезапускать шлюз во время деплоя", "lesson"),
        ("Ключевые уроки дня", "lesson"),
        ("Принятые решения", "decision"),
        ("Следующие шаги", "action"),
        ("Что дальше", "action"),
        ("Задачи выполнено", "done"),
        ("Задачи (не выполнено)", "action"),
        ("Блокеры", "blocker"),
        ("Урожай", None),
        # Korean names count wherever they stand too (Hangul is read as CJK text)
        ("🔑 주요 결정사항", "decision"),
        ("결정 대기", "action"),
        ("⏭️ 다음 단계", "action"),
        ("내일 할 일", "action"),
        ("오늘 배운 점", "lesson"),
        ("해결된 블로커", "done"),
        ("진행 중", None),
    ],
)
def test_the_kind_of_section_a_heading_names(heading: str, kind: str | None) -> None:
    assert sections.heading_kind(heading) == kind


@pytest.mark.parametrize(
    ("headings", "lead"),
    [(("2026-11-20", "Next steps", "Done"), None), (("2026-11-20", "Next steps"), "**Completed:**")],
)
def test_work_done_set_under_next_steps_is_reported_done_not_a_next_step(
    headings: tuple[str, ...], lead: str | None
) -> None:
    """ "## Next steps / ### Done / - Sent the invoice" reported the task done and was filed as a next step
    too: the one walk that found the Done section went on past it for the category."""
    assert sections.reports_done(headings, lead)
    assert sections.section_category(headings, lead) is None
    item = dataclasses.replace(
        note_item("Sent the invoice to Contoso (INV-2026-031)"), headings=headings, lead=lead
    )
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert verdict.closes_action and verdict.category != "action"


def test_a_section_named_lesson_in_the_singular_holds_a_lesson() -> None:
    """ "### Lesson" over "**Never check host IPs from inside a container** — ... must run from outside"
    is a lesson, though its words would make it a task."""
    text = "**Never check host IPs from inside a container** — that check must run from outside it."
    item = dataclasses.replace(note_item(text), headings=("2026-03-05", "11:05 Watchdog fix", "Lesson"))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", "lesson")


@pytest.mark.parametrize(
    ("heading", "text", "category"),
    [
        ("2026-03-05", "Решение: переносим бэкапы в S3, локальный диск не нужен", "decision"),
        ("2026-03-05", "Урок: ключи API читать из конфига, не через переменные окружения", "lesson"),
        ("Следующие шаги", "- настроить алерты на переполнение диска", "action"),
    ],
)
def test_russian_notes_name_their_decisions_lessons_and_next_steps(
    heading: str, text: str, category: str
) -> None:
    """memory_sleep/languages/ru.toml: a Russian label or section name says what an item is."""
    item = dataclasses.replace(note_item(text), headings=("2026-03-05", heading))
    verdict = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (verdict.verdict, verdict.category) == ("KEEP", category)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        (
            "Checked the Pebble error dashboard, nothing new. For the record, the Pebble prod database host"
            " is 10.0.7.9 (Postgres 15, daily backups to Backblaze). Had coffee. Checked inbox again.",
            ("KEEP", "fact"),
        ),
        ("Deployed the hotfix to staging. Checked the logs again. Had coffee.", ("DISCARD", "routine")),
        ("Restarted the exporter on db-2. Nothing else.", ("DISCARD", "routine")),
    ],
)
def test_a_paragraph_that_goes_on_past_its_log_sentence_is_read_whole(
    text: str, verdict: tuple[str, str]
) -> None:
    """A paragraph opening with a line of the activity log that goes on to state a fact of its own is
    kept: only its first sentence was the log's (session 55's trial lost a database host so)."""
    item = note_item(text, kind="paragraph")
    found = OfflineClassifier().classify([item], ClassifyContext(projects=[], memory=[]))[0]
    assert (found.verdict, found.category or found.discard_reason) == verdict
