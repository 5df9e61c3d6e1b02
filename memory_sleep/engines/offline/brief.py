"""Offline morning briefing: deadlines first, then blockers, then what changed lately."""

from __future__ import annotations

from ...models import Briefing
from ...text import shorten
from ..base import ActionView, BriefingContext

_SOON_DAYS = 3
_LINE = 150


class OfflineBriefer:
    def brief(self, context: BriefingContext) -> Briefing:
        today = context.today
        actions = sorted(
            context.open_actions, key=lambda a: (a.deadline is None, a.deadline or today, a.text)
        )
        warnings = []
        for action in actions:
            if action.deadline and action.deadline < today:
                warnings.append(f"OVERDUE since {action.deadline.isoformat()}: {_action(action)}")
            elif action.deadline and (action.deadline - today).days <= _SOON_DAYS:
                warnings.append(f"Due {_when(action, today)}: {_action(action)}")
        blocked = [
            (name, fields.status)
            for name, fields in sorted(context.projects.items())
            if fields.status.startswith("blocked")
        ]
        warnings.extend(f"{name} is {shorten(status, _LINE)}" for name, status in blocked)
        priorities = [*warnings[:3]]
        for action in actions:
            if len(priorities) >= 3:
                break
            line = f"{_action(action)} (due {_when(action, today)})" if action.deadline else _action(action)
            if not any(_action(action) in p for p in priorities):
                priorities.append(line)
        active = {
            name: fields
            for name, fields in sorted(context.projects.items())
            if not fields.status.startswith(("completed", "cancelled"))
        }
        context_lines = [
            f"{name}: {shorten(fields.status, 70)}; last: {shorten(fields.last_event, 90)}"
            for name, fields in active.items()
        ]
        recent_decisions = [k for k in context.recent if k.category in ("decision", "lesson")]
        for kept in sorted(recent_decisions, key=lambda k: k.item.day, reverse=True):
            context_lines.append(
                f"{kept.category.capitalize()} {kept.item.day.isoformat()}: {shorten(kept.item.text.lstrip('-*+ '), _LINE)}"
            )
        action_lines = [
            f"{_action(a)}" + (f" (due {_when(a, today)})" if a.deadline else "") for a in actions
        ]
        return Briefing(
            priorities=priorities[:3],
            actions=action_lines,
            context=context_lines,
            warnings=warnings,
        )


def _action(action: ActionView) -> str:
    prefix = f"[{action.topic}] " if action.topic else ""
    return prefix + shorten(action.text, _LINE)


def _when(action: ActionView, today: object) -> str:
    assert action.deadline is not None
    days = (action.deadline - today).days  # type: ignore[operator]
    relative = (
        "today"
        if days == 0
        else "tomorrow"
        if days == 1
        else f"in {days} days"
        if days > 0
        else f"{-days} days ago"
    )
    return f"{action.deadline.isoformat()}, {relative}"
