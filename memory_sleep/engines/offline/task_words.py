"""The words of a task: what an action's line says is to be done, without who does it, when, and the
words saying it is done, open or due (closing.py compares done lines with tasks by them)."""

from __future__ import annotations

import re

from memory_sleep.language import cue_words
from memory_sleep.text import CLOCK, word_sequence

_STEM = re.compile(r"(?:ed|ing|es|e|s)$")  # "rotate", "rotated", "rotates", "rotating": "rotat"
_CONFIRMED = re.compile(r"\(\s*\w+ confirmed\s*\)", re.I)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\.?(?!\d)|（[^）]*まで）"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?=[A-Z][a-z]{2})"  # "by 7 Oct"
)
# who does it or that it is done, in front: "Ben: fix ...", "Closed: ...", "完成：..."
_LEAD = re.compile(r"^\W*(?:[A-Z][\w'-]*\s*){1,2}[:：]\s*|^\W*(?:完成|完了|已完成)[:：]?\s*")
# how a note says a task is done, open or due: nothing about which task it is
NOT_THE_TASK = frozenset(
    _STEM.sub("", word) for line in cue_words("task_state", "words") for word in line.split()
)


def task_wording(text: str, projects: set[str]) -> list[str]:
    """The words that say which task it is, in order: without clock times, due dates, who confirmed
    it, labels, the assignee, project names, nor the words saying it is done, open or due."""
    words = (word for word in word_sequence(cleaned(text)) if len(word) >= 2 and word not in projects)
    return [word for word in words if stem(word) not in NOT_THE_TASK]


def stem(word: str) -> str:
    """The word crudely stemmed: "rotate", "rotated", "rotates", "rotating" are "rotat"."""
    return _STEM.sub("", word)


def cleaned(text: str) -> str:
    """The text without clock times, due dates, who confirmed it, labels and the assignee in front."""
    text = _DATE.sub(" ", _CONFIRMED.sub(" ", CLOCK.sub(" ", text)))
    for _ in range(3):  # "[x] Closed: Ben: ..."
        text = _LEAD.sub("", text.strip().lstrip("-*+[]xX✓✅ "))
    return text
