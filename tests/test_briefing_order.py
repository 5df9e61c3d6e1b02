"""Which open actions the morning briefing puts first when most have no deadline, and which recent
decisions it carries."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.cycle.briefing import render_briefing
from memory_sleep.engines.base import ActionView, BriefingContext, by_urgency
from memory_sleep.engines.offline.brief import OfflineBriefer
from memory_sleep.models import KeptItem, ProjectFields

from .conftest import run_offline
from .item_helpers import note_item
from .sidecar_helpers import make_workspace

TODAY = date(2026, 4, 15)


def _action(text: str, day: date, deadline: date | None = None) -> ActionView:
    return ActionView(text=text, topic=None, deadline=deadline, day=day)


def test_undated_actions_come_newest_first_not_in_alphabetical_order() -> None:
    """Real notes hold dozens of open actions without a deadline; the top priorities were the three
    that sort first by their text ("*signature line*", "API ...", "Alpha ...")."""
    actions = [
        _action("*AGI log | 2026-04-10*", date(2026, 4, 10)),
        _action("API dashboard service", date(2026, 4, 4)),
        _action("Alpha Vantage setup", date(2026, 4, 4)),
        _action("wire the deploy hook", date(2026, 4, 13)),
        _action("set up the dev environment", date(2026, 4, 13)),
        _action("renew the certificate", date(2026, 4, 1), deadline=date(2026, 4, 16)),
    ]
    context = BriefingContext(today=TODAY, open_actions=actions, projects={}, recent=[])
    briefing = OfflineBriefer().brief(context)
    assert briefing.priorities[0].startswith("renew the certificate (due 2026-04-16")
    assert briefing.priorities[1:] == ["wire the deploy hook", "set up the dev environment"]
    assert briefing.actions[0] == "*AGI log | 2026-04-10*"


def test_urgency_puts_overdue_first_and_keeps_the_document_order_among_equals() -> None:
    overdue = _action("file the report", date(2026, 4, 1), deadline=date(2026, 4, 10))
    soon = _action("call the bank", date(2026, 4, 12), deadline=date(2026, 4, 17))
    first, second = _action("one", date(2026, 4, 12)), _action("two", date(2026, 4, 12))
    undated_old = ActionView(text="no day known", topic=None, deadline=None)
    ordered = by_urgency([undated_old, second, soon, first, overdue], TODAY)
    assert ordered == [overdue, soon, second, first, undated_old]


def test_a_blocked_project_whose_status_names_it_is_not_named_twice() -> None:
    """A status "blocked: Beacon blocked: waiting on the vendor" read "Beacon is blocked: Beacon blocked: ..."."""

    def fields(status: str) -> ProjectFields:
        return ProjectFields(status=status, contacts="", last_event="", next="")

    projects = {
        "Beacon": fields("blocked: Beacon blocked: waiting on the vendor's API key"),
        "Harbor": fields("blocked: waiting on legal review"),
    }
    briefing = OfflineBriefer().brief(
        BriefingContext(today=TODAY, open_actions=[], projects=projects, recent=[])
    )
    assert briefing.priorities == [
        "Beacon blocked: waiting on the vendor's API key",
        "Harbor is blocked: waiting on legal review",
    ]


def test_a_project_s_status_and_last_event_keep_their_day_when_cut() -> None:
    """The key context cut a status at 80 characters, its "(2026-03-24)" with it: three weeks old, it
    read as today's beside the last event."""
    status = "active: PR #418 approved by Raj (reviewer from outside the project) and merged. The script is done (2026-03-24)"
    event = "dates unchanged: freeze 11-30 18:00 UTC, go/no-go 11-30 10:00, cutover 12-01 00:00 UTC, rollback ready (2026-04-14)"
    projects = {"Atlas": ProjectFields(status=status, contacts="", last_event=event, next="")}
    briefing = OfflineBriefer().brief(
        BriefingContext(today=TODAY, open_actions=[], projects=projects, recent=[])
    )
    (line,) = briefing.context
    said, last = line.split("; last: ")
    assert said.startswith("Atlas: PR #418 approved by Raj") and said.endswith("… (2026-03-24)")
    assert last.endswith("… (2026-04-14)") and len(last) <= 90


def test_the_briefing_carries_the_decisions_that_stand_not_those_a_later_note_reversed(
    tmp_path: Path,
) -> None:
    """Its key context listed every decision kept in the last days, those a later note had superseded
    beside what replaced them: "the queue runs on Postgres" under "the queue runs on Redis, not Postgres"."""
    notes = {
        "2026-11-22.md": "# 2026-11-22\n\n## Atlas\n- Decision: the Atlas job queue runs on Postgres.\n"
        "- Decided: Atlas deploys go out on Tuesdays.\n- Lesson: pin the Postgres minor version in CI.\n",
        "2026-11-23.md": "# 2026-11-23\n\n## Atlas\n"
        "- Decision: the Atlas job queue runs on Redis, not Postgres (Postgres locks under load).\n",
        "2026-11-24.md": "# 2026-11-24\n\n## Atlas\n- Decided: Atlas deploys go out on Thursdays, not Tuesdays.\n",
    }
    folder = make_workspace(tmp_path, notes)
    run_offline(folder, date(2026, 11, 25), Config(sidecar=SidecarConfig(enabled=False)))
    briefing = (folder / "memory" / "briefing.md").read_text(encoding="utf-8")
    context = briefing.split("## Key context\n", 1)[1].splitlines()
    assert context[1:] == [
        "- Decision 2026-11-24: Atlas deploys go out on Thursdays, not Tuesdays",
        "- Decision 2026-11-23: the Atlas job queue runs on Redis, not Postgres (Postgres locks under load)",
        "- Lesson 2026-11-22: pin the Postgres minor version in CI",
    ]


def test_a_decision_that_opens_with_a_bracket_stays_in_the_briefing_of_a_second_run(tmp_path: Path) -> None:
    """Its entry ("[Wed 2026-11-24 08:12 UTC] Decided ...", a real agent's timestamp) read back as a
    "[Topic]" tag no longer said what the item wrote: the second run's briefing lost it."""
    notes = {
        "2026-11-24.md": "# 2026-11-24\n\n- [Wed 2026-11-24 08:12 UTC] Decided: Atlas moves to Postgres 16.\n"
    }
    folder = make_workspace(tmp_path, notes)
    config = Config(sidecar=SidecarConfig(enabled=False))
    run_offline(folder, date(2026, 11, 25), config)
    first = (folder / "memory" / "briefing.md").read_text(encoding="utf-8")
    run_offline(folder, date(2026, 11, 25), config)
    assert "Decided: Atlas moves to Postgres 16" in first
    assert (folder / "memory" / "briefing.md").read_text(encoding="utf-8") == first


def test_long_overdue_actions_are_one_warning_and_leave_room_for_this_weeks_deadlines() -> None:
    """An agent's notes leave tasks open long after they were done or dropped: thirty actions overdue
    by weeks, one line each, filled the 2 KB briefing and cut the deadlines of the coming days."""
    stale = [
        _action(
            f"rotate the staging certificate of service {n}",
            date(2026, 3, 1),
            deadline=date(2026, 3, 10 + n % 5),
        )
        for n in range(30)
    ]
    this_week = [
        _action("answer Noor about the invoice", date(2026, 4, 13), deadline=date(2026, 4, 14)),
        _action("book the load-test window", date(2026, 4, 13), deadline=date(2026, 4, 16)),
        _action("send Ilse the API review", date(2026, 4, 13), deadline=date(2026, 4, 20)),
        _action("renew the domain", date(2026, 4, 13), deadline=date(2026, 4, 21)),
    ]
    context = BriefingContext(today=TODAY, open_actions=[*stale, *this_week], projects={}, recent=[])
    briefing = OfflineBriefer().brief(context)
    text = render_briefing(briefing, TODAY, 2048)
    for action in this_week:
        assert action.text in text
    assert briefing.warnings[0] == (
        "30 open actions overdue by more than 7 days (the oldest was due 2026-03-10, 36 days ago): "
        "close in a note what is done, give the rest a new date"
    )
    # still listed, after this week's, the most recently due first: nothing is dropped from the list
    assert len(briefing.actions) == 1 + 30
    assert "(OVERDUE, was due 2026-03-14, 32 days ago)" in briefing.actions[1]


def test_gc_judgements_left_for_review_are_one_warning_and_leave_room_for_the_open_actions() -> None:
    """Real notes (clawd, nine nights) left 25 judgements of the contradiction strategy for review,
    one warning line each: the 2 KB briefing kept them and cut every open action and all key context.
    They are one line now, saying how many and where they are listed."""
    from memory_sleep.cycle.briefing import brief_edit

    actions = [_action(f"ship part {n} of the importer", date(2026, 4, 14)) for n in range(1, 7)]
    context = BriefingContext(today=TODAY, open_actions=actions, projects={}, recent=[])
    text = brief_edit(OfflineBriefer(), context, 2048, reviews=37).text or ""
    assert "ship part 6 of the importer" in text
    assert "please review" not in text
    assert (
        "- 37 garbage-collection judgements left for you to review, not applied: "
        "`memory-sleep review` lists and dismisses them\n"
    ) in text


def test_a_decision_is_worded_as_in_memory_md_without_saying_its_label_twice() -> None:
    """ "**Decision:** build our own portal" reads "Decision 2026-02-21: build our own portal", not
    "Decision 2026-02-21: Decision: build our own portal"; an item of a list keeps its lead-in, and an
    item of a project its project's name, as MEMORY.md words them (there with a "[Orion]" tag)."""
    listed = dataclasses.replace(
        note_item("- Audience profile — Netrows research", date(2026, 2, 19)), lead="Two profiles"
    )
    filed = note_item("- Orion: the job queue runs on Redis", date(2026, 2, 18))
    kept = [
        KeptItem(
            item=note_item("- **Decision:** build our own portal", date(2026, 2, 21)),
            category="decision",
            topic=None,
        ),
        KeptItem(
            item=note_item("- Lesson: check device scopes first", date(2026, 2, 20)),
            category="lesson",
            topic=None,
        ),
        KeptItem(item=listed, category="decision", topic=None),
        KeptItem(item=filed, category="decision", topic="Orion"),
        # a name of the section in another word or language is the label too (a new user's briefing
        # read "Decision 2026-03-03: decided: Atlas uses Postgres")
        KeptItem(
            item=note_item("- decided: Atlas uses Postgres", date(2026, 2, 17)),
            category="decision",
            topic=None,
        ),
        KeptItem(item=note_item("- 决策：用 Postgres", date(2026, 2, 16)), category="decision", topic=None),
        KeptItem(
            item=note_item("- decidedly odd: the queue", date(2026, 2, 15)), category="decision", topic=None
        ),
    ]
    context = BriefingContext(today=TODAY, open_actions=[], projects={}, recent=kept)
    assert OfflineBriefer().brief(context).context == [
        "Decision 2026-02-21: build our own portal",
        "Lesson 2026-02-20: check device scopes first",
        "Decision 2026-02-19: Two profiles › Audience profile — Netrows research",
        "Decision 2026-02-18: Orion: the job queue runs on Redis",
        "Decision 2026-02-17: Atlas uses Postgres",
        "Decision 2026-02-16: 用 Postgres",
        "Decision 2026-02-15: decidedly odd: the queue",
    ]


def test_an_action_told_in_a_long_paragraph_is_briefed_by_the_sentence_with_its_deadline() -> None:
    """Session 55's trial: the first priority was a paragraph cut at 150 characters ("Greta called around
    13:00. Fjordline wants ... She'll be the one…"), the deadline's sentence in its middle. A paragraph
    too long for one line is briefed by the sentence that states its deadline; a short one as it is."""
    paragraph = (
        "Greta called around 13:00. Fjordline wants Lanternfish v0.3 (the incremental sync) by Friday 17"
        " April. That's a hard deadline, their quarterly import runs the following Monday. She'll be the"
        " one testing it."
    )
    short = "Call Ana back. She needs the quote by Friday 17 April."
    actions = [_action(paragraph, date(2026, 4, 13), date(2026, 4, 17)), _action(short, date(2026, 4, 13))]
    briefing = OfflineBriefer().brief(
        BriefingContext(today=TODAY, open_actions=actions, projects={}, recent=[])
    )
    assert briefing.priorities == [
        "Fjordline wants Lanternfish v0.3 (the incremental sync) by Friday 17 April (due 2026-04-17, in 2 days)",
        short,
    ]
