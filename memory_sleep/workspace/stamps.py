"""Stamps: lines of a note that only say when ("**时间：** 2026-03-22 08:19", "[14:02]"). A stamp leading an
item says when it was written, the lines after it what: the item is read as what follows its stamps."""

from __future__ import annotations

import re

from memory_sleep.text import CLOCK, DATE, INLINE_MARKUP, LIST_MARK

_STAMP_CHARS = 400  # a longer line says more than when, whatever it holds
_STAMP_KEY = re.compile(r"^[^:：\d]{1,40}?[:：]\s*(.*)")  # "创建时间：2026-03-23", "Checked: 00:07"
_WORDS = re.compile(r"[^\W\d_]+")
_ZONE = re.compile(r"[A-Za-z]{1,4}")  # "UTC", "WITA", "AM": a zone or half of the day, no word


def is_stamp(line: str) -> bool:
    """A line that only says when: a date or a clock time, alone or as a key's value ("**Time:**
    2026-03-22 08:19", "[14:02]", "02:00 AM UTC"), with no word of what happened (in a language
    without spaces too: "验证服务状态（11:45）" says what)."""
    if len(line) > _STAMP_CHARS or not (DATE.search(line) or CLOCK.search(line)):
        return False
    plain = INLINE_MARKUP.sub("", LIST_MARK.sub("", line))
    match = _STAMP_KEY.match(plain)
    value = match.group(1) if match else plain
    rest = CLOCK.sub(" ", DATE.sub(" ", value))
    return all(_ZONE.fullmatch(word) for word in _WORDS.findall(rest))


def split_stamps(text: str) -> tuple[str, str]:
    """An item's text as (its leading stamps with the line break after them, what it says from its first
    line that says more than when); their concatenation is the text. An item of stamps alone is what it
    says: ("", text)."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.strip() and not is_stamp(line):
            said = "\n".join(lines[index:])
            return text[: len(text) - len(said)], said
    return "", text
