"""Stack traces and metadata lines: output pasted into a note, or fields describing the note, never
memory. Routine lines in general are found by recurrence (memory_sleep/engines/recurrence.py), not by
their words."""

from __future__ import annotations

import re

from memory_sleep.engines.offline import values

STACK_TRACE = re.compile(
    r"^Exception in thread\b"
    r"|^\s*(?:Caused by:\s*)?(?:[a-z_]\w*\.)+[A-Z]\w*(?:Exception|Error)\b"
    r"|^panic: |^goroutine \d+ \[|^thread '[^']+' panicked at\b",
    re.MULTILINE,
)
_MARKUP = re.compile(r"[*_`]+")
# a field: a short key, an ASCII or full-width colon, a value ("优先级：P0", "Phi: 0.74")
_FIELD = re.compile(r"^\s*[^\s:：|][^:：|]{0,23}[:：]\s*\S")
# a value made only of tags: "[系统维护] [自检]", "#ops #backup" (a "#3107" is an issue, not a tag)
_TAG = re.compile(r"\[[^\[\]\n]+\]|#[^\W\d][\w-]*")
_TAGS_ONLY = re.compile(rf"^[^:：]{{1,24}}[:：]\s*(?:(?:{_TAG.pattern})\s*)+$")


def is_stack_trace(text: str) -> bool:
    return STACK_TRACE.search(text) is not None


def is_metadata(line: str) -> bool:
    """A line of fields about the note rather than a statement: a key whose value is only tags, or two
    or more `Key: value` fields on one line between "|" ("Type: [task] | Priority: P0 | Status: done")."""
    plain = _MARKUP.sub("", line).strip()
    if _TAGS_ONLY.match(plain) and (len(_TAG.findall(plain)) > 1 or not values.typed_values(plain)):
        return True  # one "#billing-eng" alone may be a channel: a value, not a tag
    parts = plain.split("|")
    return len(parts) >= 2 and all(_FIELD.match(part) for part in parts)
