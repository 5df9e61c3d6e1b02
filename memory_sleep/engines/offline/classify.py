"""Offline NREM: KEEP/DISCARD by the original skill's criteria, from word cues and the item's shape."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ...models import Category, Classification, NoteItem
from ...text import deadline_in, similarity, tokens
from ..base import ClassifyContext
from . import cues

_PROJECT_IN_HEADING = re.compile(r"^(?:project[:\s]+)?([A-Z][\w.-]{1,30})(?:\s+project)?\b")
_EXPLICIT_PROJECT = re.compile(
    r"(?:\*\*project:?\*\*:?|\bproject:)\s*([A-Z][\w.-]{1,30})|\bproject ([A-Z][\w.-]{1,30})\b|\b([A-Z][\w.-]{1,30}) project\b|\[([A-Z][\w.-]{1,30})\]"
)
_DUPLICATE_SIMILARITY = 0.9
_CATEGORY_ORDER: tuple[tuple[Category, re.Pattern[str]], ...] = (
    ("decision", cues.DECISION),
    ("lesson", cues.LESSON),
    ("action", cues.ACTION),
    ("status", cues.STATUS),
    ("relationship", cues.RELATIONSHIP),
    ("fact", cues.FACT),
)


class OfflineClassifier:
    """Deterministic NREM classifier; see README "How the offline engine decides"."""

    def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
        projects = _known_projects(items, context.projects)
        memory = [(entry, tokens(entry.text)) for entry in context.memory]
        return [self._classify_one(item, projects, memory) for item in items]

    def _classify_one(
        self,
        item: NoteItem,
        projects: Sequence[str],
        memory: Sequence[tuple[object, frozenset[str]]],
    ) -> Classification:
        topic = _topic(item, projects)
        text = _plain(item.text)

        def discard(reason: str, why: str, closes: bool = False) -> Classification:
            return Classification(
                item_id=item.id,
                verdict="DISCARD",
                discard_reason=reason,  # type: ignore[arg-type]
                topic=topic,
                reason=why,
                closes_action=closes,
            )

        if item.kind == "code":
            return discard("debug", "pasted code or command output")
        if any(cues.RECALLED.search(heading) for heading in item.headings) or cues.RECALLED.search(text):
            return discard("recalled", "text the tool wrote (briefing or recall), not new memory")
        if cues.HEARTBEAT.search(text) and len(text) < 160:
            return discard("heartbeat", "heartbeat or idle check")
        first_line = text.splitlines()[0] if text else ""
        if cues.DEBUG.search(first_line) or _looks_like_log(item.text):
            return discard("debug", "log or debug output")
        done = bool(cues.CHECKBOX_DONE.match(item.text) or cues.DONE.search(text))
        category = _keep_category(item, text)
        if done:
            if category == "lesson" or (category == "decision" and not cues.CHECKBOX_DONE.match(item.text)):
                return self._keep(item, category, topic, text, closes=True)
            if category == "status" and cues.FINISHED.search(text):
                return self._keep(item, "status", topic, text, closes=True)
            return discard("resolved", "finished task with no lasting lesson", closes=True)
        if cues.NARRATION.search(first_line) and category not in ("decision", "lesson"):
            return discard("narration", "narrates what the agent is doing")
        if category is None:
            if cues.ROUTINE.search(text):
                return discard("routine", "routine log")
            return discard("other", "no decision, fact, lesson, action, person or status in it")
        if (
            category in ("fact", "status")
            and cues.ROUTINE.search(text)
            and not cues.CHECKBOX_OPEN.match(item.text)
        ):
            return discard("routine", "routine log")
        norm = tokens(text)
        if any(
            similarity(norm, entry_tokens) >= _DUPLICATE_SIMILARITY and len(norm) <= len(entry_tokens) + 2
            for _, entry_tokens in memory
        ):
            return discard("duplicate", "already in MEMORY.md")
        return self._keep(item, category, topic, text)

    @staticmethod
    def _keep(
        item: NoteItem, category: Category, topic: str | None, text: str, closes: bool = False
    ) -> Classification:
        deadline = deadline_in(text, item.day) if category == "action" else None
        return Classification(
            item_id=item.id,
            verdict="KEEP",
            category=category,
            topic=topic,
            reason=f"{category} ({_cue_name(category)})",
            closes_action=closes,
            deadline=deadline,
        )


def _keep_category(item: NoteItem, text: str) -> Category | None:
    if cues.CHECKBOX_OPEN.match(item.text):
        return "action"
    if item.kind == "table":
        return "fact" if cues.FACT.search(text) or cues.STATUS.search(text) else None
    key_match = cues.BOLD_KEY.match(cues.BULLET.sub("", item.text, count=1))
    if key_match and key_match.group(2).strip():
        key = key_match.group(1).lower()
        for category, words in (
            ("decision", ("decision", "decided")),
            ("lesson", ("lesson", "til", "learned")),
            ("action", ("todo", "next", "action", "deadline", "due")),
            ("status", ("status", "blocker", "blocked")),
            ("relationship", ("owner", "contact", "lead", "who")),
        ):
            if any(word in key for word in words):
                return category  # type: ignore[return-value]
    for category, pattern in _CATEGORY_ORDER:
        if pattern.search(text):
            return category
    if key_match and key_match.group(2).strip():
        return "fact"
    return None


def _cue_name(category: Category) -> str:
    return {
        "decision": "a choice was made",
        "lesson": "something learned",
        "action": "open action item",
        "status": "project status change",
        "relationship": "people context",
        "fact": "new fact",
    }[category]


def _plain(text: str) -> str:
    """The item's words without bullet, checkbox and timestamp markup."""
    lines = []
    for line in text.splitlines():
        line = cues.BULLET.sub("", line, count=1)
        line = cues.CHECKBOX_OPEN.sub("", line, count=1)
        line = cues.CHECKBOX_DONE.sub("", line, count=1)
        line = cues.TIMESTAMP.sub("", line, count=1)
        lines.append(line.strip())
    return "\n".join(line for line in lines if line)


def _looks_like_log(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return False
    loggy = sum(1 for line in lines if cues.DEBUG.search(line.strip()) or line.startswith(("  ", "\t")))
    return loggy >= len(lines) * 0.6


def _known_projects(items: Sequence[NoteItem], known: Sequence[str]) -> list[str]:
    """Projects named in memory, in front matter, or as the first word of headings seen twice or more."""
    found = {name for name in known}
    heading_words: Counter[str] = Counter()
    for item in items:
        if item.project_hint and item.project_hint[:1].isupper():
            found.add(item.project_hint)
        for match in _EXPLICIT_PROJECT.finditer(item.text):
            name = next(group for group in match.groups() if group)
            if name.lower() not in cues.GENERIC_HEADINGS:
                found.add(name)
        for heading in set(item.headings[1:]):
            heading_match = _PROJECT_IN_HEADING.match(heading)
            if heading_match and heading_match.group(1).lower() not in cues.GENERIC_HEADINGS:
                heading_words[heading_match.group(1)] += 1
    found.update(word for word, count in heading_words.items() if count >= 2)
    return sorted(found, key=lambda name: (-len(name), name))


def _topic(item: NoteItem, projects: Sequence[str]) -> str | None:
    lowered = item.text.lower()
    for name in projects:
        if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", lowered):
            return name
    for heading in reversed(item.headings):
        for name in projects:
            if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", heading.lower()):
                return name
    if item.project_hint:
        for name in projects:
            if name.lower() in item.project_hint.lower():
                return name
    return None
