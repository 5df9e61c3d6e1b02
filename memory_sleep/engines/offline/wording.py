"""The one-line MEMORY.md wording of a kept item, as the offline engine writes it."""

from __future__ import annotations

import re

from memory_sleep.engines.offline import cues
from memory_sleep.models import KeptItem
from memory_sleep.text import shorten

ENTRY_MAX_CHARS = 200
_TABLE_RULE = re.compile(r"^\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")


def entry_text(kept: KeptItem) -> str:
    """The one-line MEMORY.md wording of a kept item: markup stripped, lines joined, length capped."""
    lead = re.sub(r"\*\*([^*]+)\*\*", r"\1", kept.item.lead or "").strip()
    text = shorten((f"{lead}: " if lead else "") + plain(kept.item.text), ENTRY_MAX_CHARS)
    if kept.topic and text.lower().startswith(kept.topic.lower() + ":"):
        text = text[len(kept.topic) + 1 :].strip()
    if kept.deadline and kept.deadline.isoformat() not in text:
        text = f"{text} (due {kept.deadline.isoformat()})"
    return text


def plain(text: str) -> str:
    """A note's lines as one statement: bullets, checkboxes, clock times and bold marks stripped."""
    lines = []
    for line in text.splitlines():
        line = cues.BULLET.sub("", line.strip(), count=1)
        line = cues.CHECKBOX_OPEN.sub("", line, count=1)
        line = cues.TIMESTAMP.sub("", line, count=1)
        line = re.sub(r"\*\*([^*]+)\*\*", r"\1", line).strip()
        if line and not _TABLE_RULE.match(line) and not cues.FENCE.match(line):  # "|---|", "```": no words
            lines.append(line.rstrip(".;"))
    return "; ".join(lines)
