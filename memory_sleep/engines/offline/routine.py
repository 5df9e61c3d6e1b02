"""Routine readings: what a check, a build or a job reported, written all day by real agents, and no
durable fact ("Build: #3,107 green", "Uptime: 23d 5h", "Backup: ok, 21.9 GB", "disk on db-02: 61% used",
"dependabot: merged 12 PRs", a stack trace). Tomorrow's reading replaces today's; memory keeps neither."""

from __future__ import annotations

import re

_OK = (
    r"(?:ok|okay|green|passed|pass|passing|success(?:ful)?|fine|healthy|done|completed|finished|erledigt|fertig|"
    r"listo|✅)"
)
_CHECKS = (
    r"builds?|ci|pipeline|tests?|test suite|lint|coverage|backups?|nightly backup|uptime|inbox|queue depth|"
    r"error rate|cron|health ?checks?|smoke tests?|e2e"
)
READING = re.compile(
    "|".join(
        [
            # "Build: #3,107 green (7m34s)", "Backup: ok, 21.9 GB", "Uptime: 23d 5h", "Inbox: 4 unread"
            rf"^(?:{_CHECKS})\s*:\s*(?:{_OK}\b|#?\d)",
            # "Deploy: Meridian v0.16.2 → staging": a deploy to a test environment
            r"^deploy(?:ed|s)?\s*:.*(?:→|->|\bto\b)\s*(?:staging|dev|test|qa|preview|sandbox)\b",
            # "disk on db-02: 61% used", "disk at 80%", "memory 71% used"
            r"\b(?:disk|memory|cpu)(?: usage)?(?: on [\w.-]+)?\s*(?::|at|is)?\s*\d{1,3}(?:\.\d+)?\s?%",
            r"\buptime(?: check)?\s*(?::|is|was)?\s*(?:\d+\s?d\b|ok\b)",
            rf"\bbackups?\b[^.;]{{0,30}}\b{_OK}",
            r"\balles grün\b|\ball green\b",
            # "dependabot: merged 12 PRs", "merged #848 (docs: ...)"
            r"\bmerged \d+ (?:prs|pull requests|mrs)\b",
            r"^merged (?:pr |mr )?[#!]\d+",
            # "ran the cert-renew job by hand, took 0m46s"
            r"^ran (?:the )?[\w` -]{1,40}\b(?:job|script|task|cron)\b.{0,30}\btook\b",
        ]
    ),
    re.IGNORECASE,
)
STACK_TRACE = re.compile(
    r"^Exception in thread\b"
    r"|^\s*(?:Caused by:\s*)?(?:[a-z_]\w*\.)+[A-Z]\w*(?:Exception|Error)\b"
    r"|^panic: |^goroutine \d+ \[|^thread '[^']+' panicked at\b",
    re.MULTILINE,
)


def is_reading(line: str) -> bool:
    """A status reading that carries no durable fact (the item's first line, markup stripped)."""
    return READING.search(line.replace("**", "").strip()) is not None


def is_stack_trace(text: str) -> bool:
    return STACK_TRACE.search(text) is not None
