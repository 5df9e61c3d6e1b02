"""Offline morning briefing: deadlines first, then blockers, then what changed lately; each line once.

Actions overdue by more than a week are said in one warning line and listed after this week's: an
agent's notes leave many tasks open long after they were done or dropped, and one per line they
pushed the deadlines of the coming days out of the 2 KB briefing."""

from __future__ import annotations

import re
from datetime import date

from memory_sleep.engines.base import ActionView, BriefingContext, by_urgency
from memory_sleep.engines.offline.wording import entry_text
from memory_sleep.language import SECTION_NAMES
from memory_sleep.models import Briefing
from memory_sleep.text import STATED_DAY, counted, deadline_in, shorten

_SOON_DAYS = 3
_STALE_DAYS = 7  # overdue by more than this: long overdue, no longer flagged one by one
_LINE = 150
_DUE_MARK = re.compile(r"\s*\(due \d{4}-\d{2}-\d{2}\)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])|(?<=[。！？])")  # "13:00. Fjordline": not "v0.3 ("
_FINISHED = ("completed", "cancelled")


def _own_label(category: str) -> re.Pattern[str]:
    """The line's own label saying what the briefing's label says: the category or a name of its
    section in any language ("Decision 2026-02-21: Decided: X" reads X)."""
    names = sorted({category, *SECTION_NAMES[category]}, key=len, reverse=True)
    return re.compile(rf"^(?:{'|'.join(map(re.escape, names))})s?\s*[:：—–-]\s*", re.IGNORECASE)


_OWN_LABEL = {category: _own_label(category) for category in ("decision", "lesson")}


class OfflineBriefer:
    def brief(self, context: BriefingContext) -> Briefing:
        today = context.today
        ordered = by_urgency(context.open_actions, today)
        left = {a: (a.deadline - today).days for a in ordered if a.deadline}
        stale = [a for a in ordered if a in left and left[a] < -_STALE_DAYS]
        dated = [a for a in ordered if a in left and a not in stale]
        actions = dated + stale[::-1] + [a for a in ordered if a not in left]
        urgent = [a for a in dated if left[a] <= _SOON_DAYS]
        blocked = [
            _blocked(name, fields.status)
            for name, fields in sorted(context.projects.items())
            if fields.status.lower().startswith("blocked")
        ]
        flagged = [_with_due(a, today) for a in urgent] + blocked
        priorities = flagged[:3]
        if len(priorities) < 3:
            priorities += [_with_due(a, today) for a in actions if a not in urgent][: 3 - len(priorities)]
        warnings = _long_overdue(stale, today) + [line for line in flagged if line not in priorities]
        listed = set(priorities) | set(warnings)
        remaining = [_with_due(a, today) for a in actions if _with_due(a, today) not in listed]
        context_lines = [
            f"{name}: {_dated(_without_label(fields.status), 80)}; last: {_dated(fields.last_event, 90)}"
            for name, fields in sorted(context.projects.items())
            if not fields.status.lower().startswith(_FINISHED)
        ]
        for kept in sorted(context.recent, key=lambda k: k.item.day, reverse=True):
            if kept.category in ("decision", "lesson"):
                # as MEMORY.md words it, after its list's lead-in ("Two profiles › Audience: ..."), and
                # naming its project, which no "[Topic]" tag says here
                said = _OWN_LABEL[kept.category].sub(
                    "", entry_text(kept.model_copy(update={"topic": None})), count=1
                )
                context_lines.append(
                    f"{kept.category.capitalize()} {kept.item.day.isoformat()}: {shorten(said, _LINE)}"
                )
        return Briefing(priorities=priorities, actions=remaining, context=context_lines, warnings=warnings)


def _long_overdue(stale: list[ActionView], today: date) -> list[str]:
    """One line for them all, which the briefing keeps as long as it keeps any warning."""
    oldest = min((a.deadline for a in stale if a.deadline is not None), default=None)
    if oldest is None:
        return []
    return [
        f"{counted(len(stale), 'open action')} overdue by more than {_STALE_DAYS} days (the oldest was due "
        f"{oldest.isoformat()}, {(today - oldest).days} days ago): close in a note what is done, give the rest a new date"
    ]


def _with_due(action: ActionView, today: date) -> str:
    prefix = f"[{action.topic}] " if action.topic else ""
    text = prefix + shorten(_told(action, today), _LINE)
    if action.deadline is None:
        return text
    days = (action.deadline - today).days
    when = {0: "today", 1: "tomorrow", -1: "yesterday"}.get(days) or (
        f"in {days} days" if days > 0 else f"{-days} days ago"
    )
    label = "OVERDUE, was due" if days < 0 else "due"
    return f"{text} ({label} {action.deadline.isoformat()}, {when})"


def _told(action: ActionView, today: date) -> str:
    """The action as the briefing says it: its text, or, for a paragraph too long for one line, the
    sentence that states its deadline ("Greta called around 13:00. Fjordline wants v0.3 by Friday 13
    November. That's a hard deadline, ..." is briefed by its second sentence)."""
    text = _DUE_MARK.sub("", action.text)
    if len(text) <= _LINE or action.deadline is None:
        return text
    written = action.day or today
    return next(
        (
            sentence.rstrip(".!")
            for sentence in _SENTENCE_END.split(text)
            if deadline_in(sentence, written) == action.deadline
        ),
        text,
    )


def _blocked(name: str, status: str) -> str:
    """The project's name once: a status that already starts with it is said as it is."""
    said = shorten(_without_label(status), _LINE)
    return said if said.casefold().startswith(name.casefold()) else f"{name} is blocked: {said}"


def _dated(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, keeping the day it ends with: a project's status of three
    weeks ago, cut before its "(2026-11-03)", read as today's beside the last event."""
    day = STATED_DAY.search(text)
    if day is None:
        return shorten(text, limit)
    return f"{shorten(text[: day.start()], limit - len(day.group(1)) - 3)} ({day.group(1)})"


def _without_label(status: str) -> str:
    """'blocked: Borealis blocked: ...' reads better without the repeated label."""
    return re.sub(r"^(?:blocked|active|completed|cancelled):\s*", "", status, flags=re.I)
