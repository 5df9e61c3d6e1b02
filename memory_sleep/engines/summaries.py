"""Project summaries, weekly summaries and the morning briefing through the model.

A summary that drops an open action item is sent back to the model, then replaced by the offline one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from memory_sleep.engines.base import Briefer, BriefingContext, ProjectContext, Summarizer, by_urgency
from memory_sleep.engines.calls import Ask, ModelCalls
from memory_sleep.engines.offline.wording import entry_text
from memory_sleep.engines.redact import redact
from memory_sleep.engines.related import as_attribute, as_data, covers, missing_from
from memory_sleep.engines.schemas import BriefingAnswer, ProjectAnswer, WeeklyAnswer
from memory_sleep.models import Briefing, KeptItem, ProjectFields, WeeklySummary
from memory_sleep.text import shorten

MAX_EVENTS = 30
MAX_ACTIONS = 25
MAX_RECENT = 15
LINE_CHARS = 300


def _kept_view(kept: KeptItem) -> dict[str, str | None]:
    return {
        "day": kept.item.day.isoformat(),
        "category": kept.category,
        "topic": as_attribute(kept.topic),
        "source": kept.item.source,
        "text": as_data(shorten(entry_text(kept), LINE_CHARS)),
    }


def _clean(line: str) -> str:
    return redact(shorten(line, LINE_CHARS), "a note")


class LLMSummarizer:
    def __init__(self, calls: ModelCalls, fallback: Summarizer) -> None:
        self.calls, self.fallback = calls, fallback

    def summarize_project(self, context: ProjectContext) -> ProjectFields:
        events = sorted(context.events, key=lambda k: (k.item.day, k.item.line_start))[-MAX_EVENTS:]
        actions = [action.text for action in context.open_actions][:MAX_ACTIONS]
        answer = self.calls.ask(
            Ask(
                phase="rem",
                template="project_summary.md.j2",
                values={
                    "project": context.name,
                    "today": context.today.isoformat(),
                    "current": {k: as_data(v) for k, v in context.current.model_dump().items()}
                    if context.current
                    else None,
                    "events": [_kept_view(kept) for kept in events],
                    "open_actions": [as_data(action) for action in actions],
                },
                schema=ProjectAnswer,
                what=f"summary of project {context.name}",
                check=lambda answer: _project_problems(answer, actions),
            )
        )
        if answer is None:
            return self.fallback.summarize_project(context)
        return ProjectFields(
            status=_clean(answer.status),
            contacts=_clean(answer.contacts) or "—",
            last_event=_clean(answer.last_event),
            next=_clean(answer.next) or "—",
        )

    def summarize_week(self, week: str, items: Sequence[KeptItem], discarded: int) -> WeeklySummary:
        if not items:
            return self.fallback.summarize_week(week, items, discarded)
        ordered = sorted(items, key=lambda k: (k.item.day, k.item.line_start))
        actions = [entry_text(kept) for kept in ordered if kept.category == "action"]
        answer = self.calls.ask(
            Ask(
                phase="cleanup",
                template="weekly_summary.md.j2",
                values={"week": week, "discarded": discarded, "items": [_kept_view(k) for k in ordered]},
                schema=WeeklyAnswer,
                what=f"weekly summary {week}",
                check=lambda answer: _weekly_problems(answer, actions),
            )
        )
        if answer is None:
            return self.fallback.summarize_week(week, items, discarded)
        highlights: dict[str, list[str]] = {}
        for group in answer.highlights:
            highlights.setdefault(_clean(group.topic) or "General", []).extend(
                _clean(line) for line in group.lines if line.strip()
            )
        return WeeklySummary(overview=_clean(answer.overview), highlights=highlights)


def _project_problems(answer: ProjectAnswer, open_actions: Sequence[str]) -> list[str]:
    problems = []
    if not answer.status.strip():
        problems.append("status is empty")
    if not answer.last_event.strip():
        problems.append("last_event is empty")
    if open_actions and not any(covers(answer.next, action) for action in open_actions):
        problems.append("next drops the open action items; carry the most urgent one")
    return problems


def _weekly_problems(answer: WeeklyAnswer, actions: Sequence[str]) -> list[str]:
    problems = []
    if not answer.overview.strip():
        problems.append("overview is empty")
    lines = [line for group in answer.highlights for line in group.lines]
    if not lines:
        problems.append("no highlights for a week with kept items")
    dropped = missing_from([*lines, answer.overview], actions)
    if dropped:
        problems.append(
            f"action items missing from the highlights: {'; '.join(shorten(a, 80) for a in dropped[:5])}"
        )
    return problems


class LLMBriefer:
    def __init__(self, calls: ModelCalls, fallback: Briefer) -> None:
        self.calls, self.fallback = calls, fallback

    def brief(self, context: BriefingContext) -> Briefing:
        today = context.today
        actions = by_urgency(context.open_actions, today)[:MAX_ACTIONS]
        action_views = [
            {
                "topic": as_attribute(action.topic),
                "text": as_data(action.text),
                "deadline": action.deadline.isoformat() if action.deadline else None,
                "days_left": (action.deadline - today).days if action.deadline else None,
            }
            for action in actions
        ]
        projects = [
            {"name": as_attribute(name), **{k: as_data(v) for k, v in fields.model_dump().items()}}
            for name, fields in sorted(context.projects.items())
            if not fields.status.lower().startswith(("completed", "cancelled"))
        ]
        recent = sorted(context.recent, key=lambda k: (k.item.day, k.item.line_start), reverse=True)
        recent = [kept for kept in recent if kept.category in ("decision", "lesson", "status")][:MAX_RECENT]
        required = [action.text for action in actions]
        answer = self.calls.ask(
            Ask(
                phase="cleanup",
                template="briefing.md.j2",
                values={
                    "today": today.isoformat(),
                    "weekday": today.strftime("%A"),
                    "actions": action_views,
                    "projects": projects,
                    "recent": [_kept_view(kept) for kept in recent],
                },
                schema=BriefingAnswer,
                what=f"briefing for {today.isoformat()}",
                check=lambda answer: _briefing_problems(answer, required, today),
            )
        )
        if answer is None:
            return self.fallback.brief(context)
        return Briefing(
            priorities=[_clean(line) for line in answer.priorities[:3]],
            actions=[_clean(line) for line in answer.actions],
            context=[_clean(line) for line in answer.context],
            warnings=[_clean(line) for line in answer.warnings],
        )


def _briefing_problems(answer: BriefingAnswer, required: Sequence[str], today: date) -> list[str]:
    listed = [*answer.priorities, *answer.actions, *answer.warnings]
    dropped = missing_from(listed, required)
    if dropped:
        return [
            f"open action items missing from priorities/actions/warnings on {today.isoformat()}: "
            + "; ".join(shorten(action, 80) for action in dropped[:5])
        ]
    return []
