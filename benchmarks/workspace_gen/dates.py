"""Date wording: deadline phrases in many formats, note titles, clock times."""

from __future__ import annotations

import calendar
import random
from datetime import date, timedelta

from .vocab import MONTHS, WEEKDAYS


def deadline_phrase(rng: random.Random, today: date, deadline: date) -> str:
    """Word `deadline` the way a person would on `today`; every wording pins one date."""
    delta = (deadline - today).days
    options = [
        f"by {deadline.isoformat()}",
        f"due {MONTHS[deadline.month - 1]} {deadline.day}",
        f"by {deadline.day} {MONTHS[deadline.month - 1]}",
        f"deadline {deadline.isoformat()}",
        f"bis {deadline.day}.{deadline.month}.",
        f"（{deadline.month}月{deadline.day}日まで）",
        f"due {deadline.month:02d}/{deadline.day:02d}",
    ]
    if delta == 0:
        options += ["by EOD", "today, before I log off"]
    if delta == 1:
        options += ["by tomorrow", "by tomorrow morning"]
    if 2 <= delta <= 6:
        weekday = WEEKDAYS[deadline.weekday()]
        options += [f"before {weekday}", f"by {weekday}", f"by {weekday[:3]}"]
    if deadline.day == calendar.monthrange(deadline.year, deadline.month)[1] and delta > 1:
        options.append("by end of month")
    next_week = (today + timedelta(days=7)).isocalendar()[:2]
    if deadline.isocalendar()[:2] == next_week:
        options.append(f"by {WEEKDAYS[deadline.weekday()]} next week")
    return options[rng.randrange(len(options))]


def title_line(rng: random.Random, day: date) -> str:
    weekday = WEEKDAYS[day.weekday()]
    month = MONTHS[day.month - 1]
    options = (
        f"# {day.isoformat()}",
        f"# {day.isoformat()} ({weekday})",
        f"# Daily log — {weekday}, {day.day} {month} {day.year}",
        f"# Notes {day.isoformat()}",
        f"# 📓 {day.isoformat()}",
        f"# {day.isoformat()} · session notes",
        f"# {weekday[:3]} {day.isoformat()}",
    )
    return options[rng.randrange(len(options))]


def clock(minute: int, style: str) -> str:
    """Format a minute of the day as a line prefix in one of the timestamp styles."""
    minute = max(0, min(minute, 24 * 60 - 1))
    hh, mm = divmod(minute, 60)
    if style == "bracket":
        return f"[{hh:02d}:{mm:02d}]"
    if style == "bold":
        return f"**{hh:02d}:{mm:02d}**"
    if style == "seconds":
        return f"[{hh:02d}:{mm:02d}:{(minute * 7) % 60:02d}]"
    return f"{hh:02d}:{mm:02d}"
