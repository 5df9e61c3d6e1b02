"""Which open actions the morning briefing puts first when most have no deadline."""

from __future__ import annotations

from datetime import date

from memory_sleep.engines.base import ActionView, BriefingContext, by_urgency
from memory_sleep.engines.offline.brief import OfflineBriefer
from memory_sleep.models import ProjectFields

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
