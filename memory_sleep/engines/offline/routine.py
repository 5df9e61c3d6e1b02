"""Stack traces: output pasted into a note or an entry, never memory. Routine lines in general are
found by recurrence (memory_sleep/engines/recurrence.py), not by their words."""

from __future__ import annotations

import re

STACK_TRACE = re.compile(
    r"^Exception in thread\b"
    r"|^\s*(?:Caused by:\s*)?(?:[a-z_]\w*\.)+[A-Z]\w*(?:Exception|Error)\b"
    r"|^panic: |^goroutine \d+ \[|^thread '[^']+' panicked at\b",
    re.MULTILINE,
)


def is_stack_trace(text: str) -> bool:
    return STACK_TRACE.search(text) is not None
