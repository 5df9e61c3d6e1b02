"""Offline morning briefing: deadlines first, then blockers, then what changed lately; each line once."""

from __future__ import annotations

import re
from datetime import date

from memory_sleep.engines.base import ActionView, BriefingContext, by_urgency
from memory_sleep.engines.offline.wording import plain
from memory_sleep.models import Briefing
from memory_sleep.text import shorten

_SOON_DAYS = 3
_LINE = 150
_DUE_MARK = re.compile(r"\s*\(due \d{4}-\d{2}-\d{2}\)")
_FINISHED = ("completed", "cancelled")


class OfflineBriefer:
    def brief(self, context: BriefingContext) -> Briefing:
        today = context.today
        actions = by_urgency(context.open_actions, today)
        urgent = [a for a in actions if a.deadline and (a.deadline - today).days <= _SOON_DAYS]
        blocked = [
            _blocked(name, fields.status)
            for name, fields in sorted(context.projects.items())
            if fields.status.lower().startswith("blocked")
        ]
        flagged = [_with_due(a, today) for a in urgent] + blocked
        priorities = flagged[:3]
        if len(priorities) < 3:
            priorities += [_with_due(a, today) for a in actions if a not in urgent][: 3 - len(priorities)]
        warnings = [line for line in flagged if line not in priorities]
        listed = set(priorities) | set(warnings)
        remaining = [_with_due(a, today) for a in actions if _with_due(a, today) not in listed]
        context_lines = [
            f"{name}: {shorten(_without_label(fields.status), 80)}; last: {shorten(fields.last_event, 90)}"
            for name, fields in sorted(context.projects.items())
            if not fields.status.lower().startswith(_FINISHED)
        ]
        for kept in sorted(context.recent, key=lambda k: k.item.day, reverse=True):
            if kept.category in ("decision", "lesson"):
                context_lines.append(
                    f"{kept.category.capitalize()} {kept.item.day.isoformat()}: {shorten(plain(kept.item.text), _LINE)}"
                )
        return Briefing(priorities=priorities, actions=remaining, context=context_lines, warnings=warnings)


def _with_due(action: ActionView, today: date) -> str:
    prefix = f"[{action.topic}] " if action.topic else ""
    text = prefix + shorten(_DUE_MARK.sub("", action.text), _LINE)
    if action.deadline is None:
        return text
    days = (action.deadline - today).days
    when = {0: "today", 1: "tomorrow", -1: "yesterday"}.get(days) or (
        f"in {days} days" if days > 0 else f"{-days} days ago"
    )
    label = "OVERDUE, was due" if days < 0 else "due"
    return f"{text} ({label} {action.deadline.isoformat()}, {when})"


def _blocked(name: str, status: str) -> str:
    """The project's name once: a status that already starts with it is said as it is."""
    said = shorten(_without_label(status), _LINE)
    return said if said.casefold().startswith(name.casefold()) else f"{name} is blocked: {said}"


def _without_label(status: str) -> str:
    """'blocked: Borealis blocked: ...' reads better without the repeated label."""
    return re.sub(r"^(?:blocked|active|completed|cancelled):\s*", "", status, flags=re.I)
