"""Offline summaries: project lines and weekly highlights, extracted from the kept items themselves."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from memory_sleep.engines.base import ProjectContext
from memory_sleep.engines.offline import cues
from memory_sleep.engines.offline.wording import entry_text
from memory_sleep.language import LEAD_IN_WORDS
from memory_sleep.models import EntryView, KeptItem, ProjectFields, WeeklySummary
from memory_sleep.text import NAME, deadline_in, names_day_after, shorten

_NAME = re.compile(rf"\b({NAME} {NAME})\b")
_NOT_NAMES = frozenset(label.capitalize() for label in LEAD_IN_WORDS) | frozenset(
    [
        "The",
        "This",
        "That",
        "These",
        "Those",
        "We",
        "Our",
        "You",
        "Your",
        "They",
        "Their",
        "It",
        "Its",
        "If",
        "When",
        "Then",
        "After",
        "Before",
        "And",
        "But",
        "Or",
        "So",
        "Also",
        "Today",
        "Tomorrow",
        "Yesterday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Blocked",
        "Blocker",
        "Slack",
        "Email",
        "Github",
        "Jira",
        "Figma",
        "Postgres",
        "Redis",
        "Sqlite",
        "Api",
        "App",
        "Store",
        "Staging",
        "Production",
        "Owner",
        "Lead",
        "Prefers",
        "Handles",
        "Owns",
        "Met",
        "Call",
        "Meeting",
        "Team",
        "Raised",
        "Asked",
        "Sent",
        "Shipped",
        "Released",
    ]
)
SUMMARY_LINE_CHARS = 160


class OfflineSummarizer:
    """Project summaries and weekly summaries without a model."""

    def summarize_project(self, context: ProjectContext) -> ProjectFields:
        current = context.current
        events = sorted(context.events, key=lambda kept: (kept.item.day, kept.item.line_start))
        status = current.status if current else "active"
        for kept in events:
            text = entry_text(kept)
            if kept.category == "status" and project_finished(context.name, text):
                kind = "cancelled" if re.search(r"cancel", text, re.I) else "completed"
                status = f"{kind}: {shorten(text, 100)} ({kept.item.day.isoformat()})"
            elif (
                kept.category == "status"
                and cues.BLOCKED.search(text)
                and not re.search(r"\bunblocked\b", text, re.I)
            ):
                status = f"blocked: {shorten(text, 100)} ({kept.item.day.isoformat()})"
            elif kept.category == "status":
                status = f"active: {shorten(text, 100)} ({kept.item.day.isoformat()})"
        contacts = _contacts(current.contacts if current else "", events, context.name)
        last_event = current.last_event if current else "—"
        if events:
            latest = max(
                events,
                key=lambda kept: (
                    kept.item.day,
                    kept.category in ("status", "decision"),
                    kept.item.line_start,
                ),
            )
            last_event = f"{shorten(entry_text(latest), SUMMARY_LINE_CHARS)} ({latest.item.day.isoformat()})"
        finished = status.startswith(("completed", "cancelled"))
        # a finished project's open actions are archived with it, but for what happens after today
        ahead = [
            action
            for action in context.open_actions
            if not finished or names_day_after(action.text, context.today)
        ]
        if ahead:
            next_step = shorten(_most_urgent(ahead, context.today).text, SUMMARY_LINE_CHARS)
        elif finished:
            next_step = "—"
        else:
            next_step = current.next if current else "—"
        return ProjectFields(status=status, contacts=contacts or "—", last_event=last_event, next=next_step)

    def summarize_week(self, week: str, items: Sequence[KeptItem], discarded: int) -> WeeklySummary:
        highlights: dict[str, list[str]] = defaultdict(list)
        for kept in sorted(items, key=lambda k: (k.item.day, k.item.line_start)):
            highlights[kept.topic or "General"].append(
                f"{kept.category}: {shorten(entry_text(kept), SUMMARY_LINE_CHARS)} ({kept.item.day.isoformat()})"
            )
        days = sorted({kept.item.day for kept in items})
        topics = ", ".join(sorted(t for t in highlights if t != "General")) or "no named project"
        overview = f"{len(items)} items kept, {discarded} discarded over {len(days)} day(s) with notes; projects: {topics}."
        return WeeklySummary(overview=overview, highlights=dict(sorted(highlights.items())))


def project_finished(name: str, text: str) -> bool:
    """Whether `text` says the project itself is done or cancelled ("Corvus is cancelled", "project closed")."""
    project = re.escape(name)
    said_of_project = re.search(
        rf"\b{project}\b[^.;:]{{0,30}}?\b(?:is|was|now|has been|got)\s+(?:officially\s+)?(?:done|complete|completed|finished|cancel(?:l)?ed|closed|over|shut down|wound down)\b",
        text,
        re.I,
    )
    acted_on_project = re.search(
        rf"\b(?:cancel(?:l)?(?:ed|ing)?|clos(?:ed|ing)|shut(?:ting)? down|wrap(?:ped|ping) up|sunset(?:ting)?)\s+(?:the\s+)?{project}\b(?!\s*(?:cluster|repo|job|bucket|service))",
        text,
        re.I,
    )
    project_closed = re.search(
        r"\bproject (?:is )?(?:closed|complete|completed|finished|cancel(?:l)?ed)\b", text, re.I
    ) and re.search(rf"\b{project}\b", text, re.I)
    return bool(said_of_project or acted_on_project or project_closed)


def _most_urgent(actions: Sequence[EntryView], today: date) -> EntryView:
    """The open action due soonest (overdue ones first); undated ones after all dated ones."""

    def due(action: EntryView) -> tuple[bool, date]:
        deadline = deadline_in(action.text, action.day or today)
        return deadline is None, deadline or date.max

    return min(actions, key=due)


def _contacts(current: str, events: Sequence[KeptItem], project: str) -> str:
    names = [name.strip() for name in current.split(",") if name.strip() and name.strip() != "—"]
    for kept in events:
        if kept.category != "relationship":
            continue
        for name in _NAME.findall(kept.item.text):
            first = name.split()[0]
            if first in _NOT_NAMES or name == project or any(first in known for known in names):
                continue
            names.append(name)
    return ", ".join(names[:6])
