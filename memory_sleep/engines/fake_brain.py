"""A deterministic stand-in for a model: reads a rendered prompt's delimited data, answers validly.

It works from prompt text alone, so the same function serves a FunctionModel in tests, the fake
HTTP provider the SDK tests talk to, and the cost benchmark. Its decisions come from the offline
engine's word cues: plausible, not clever.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from memory_sleep.engines.model import Exchange, Prompt
from memory_sleep.engines.offline import cues
from memory_sleep.text import shorten, similarity, tokens

_ATTRIBUTES = r'((?:[^>"]|"[^"]*")*)'
_ITEM = re.compile(r'<item id="(I\d+)"' + _ATTRIBUTES + r">\n(.*?)\n</item>", re.S)
_NOTE = re.compile(r'<note id="(I\d+)"' + _ATTRIBUTES + r">\n(.*?)\n</note>", re.S)
_OPEN_ACTION = re.compile(r'<action id="(E\d+)"' + _ATTRIBUTES + r">(.*?)</action>", re.S)
_ENTRY = re.compile(r'<entry id="(E\d+)"' + _ATTRIBUTES + r">(.*?)</entry>", re.S)
_ACTION = re.compile(r"<action" + _ATTRIBUTES + r">(.*?)</action>", re.S)
_EVENT = re.compile(r'<(?:event|item) date="([\d-]+)"' + _ATTRIBUTES + r">(.*?)</(?:event|item)>", re.S)
_PROJECT = re.compile(r'<project name="([^"]+)">(.*?)</project>', re.S)
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_KNOWN = re.compile(r"Known projects: (.*?)\. Give", re.S)
_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_PROJECT_HEADING = re.compile(r"\b[Pp]roject:?\s+([A-Z][\w.-]{1,30})")
_CATEGORIES = (
    ("decision", cues.DECISION),
    ("lesson", cues.LESSON),
    ("action", cues.ACTION),
    ("status", cues.STATUS),
    ("relationship", cues.RELATIONSHIP),
    ("fact", cues.FACT),
)


def plausible_answer(
    prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...] = ()
) -> dict[str, Any]:
    """For FunctionModel: a valid answer to `prompt` in `schema`."""
    return answer_for(schema.__name__, prompt.text)


def answer_for(schema_name: str, text: str) -> dict[str, Any]:
    """A valid answer for the schema named `schema_name` to a prompt whose text is `text`."""
    return {
        "ClassifyAnswer": _classify,
        "IntegrateAnswer": _integrate,
        "CloseAnswer": _close,
        "ProjectAnswer": _project,
        "WeeklyAnswer": _weekly,
        "BriefingAnswer": _briefing,
    }[schema_name](text)


def _plain(text: str) -> str:
    line = " ".join(cues.BULLET.sub("", part.strip(), count=1) for part in text.splitlines() if part.strip())
    return shorten(cues.TIMESTAMP.sub("", line).replace("**", ""), 180)


def _attributes(raw: str) -> dict[str, str]:
    return dict(_ATTRIBUTE.findall(raw))


def _classify(text: str) -> dict[str, Any]:
    known_match = _KNOWN.search(text)
    known = [] if not known_match else [p.strip() for p in known_match.group(1).split(",") if p.strip()]
    verdicts = []
    for ref, attributes, body in _ITEM.findall(text):
        context = body + " " + _attributes(attributes).get("section", "")
        category = next((name for name, pattern in _CATEGORIES if pattern.search(body)), None)
        noise = any(p.search(body) for p in (cues.NARRATION, cues.DEBUG))
        keep = category is not None and not noise
        dates = _ISO.findall(body)
        verdicts.append(
            {
                "id": ref,
                "verdict": "KEEP" if keep else "DISCARD",
                "category": category if keep else None,
                "discard_reason": None if keep else "routine",
                "topic": _topic(known, context, _attributes(attributes).get("section", "")),
                "closes_action": bool(cues.DONE.search(body)) and not keep,
                "deadline": dates[0] if keep and category == "action" and dates else None,
                "reason": "cue words" if keep else "no lasting content",
            }
        )
    return {"classifications": verdicts}


def _topic(known: list[str], context: str, section: str) -> str | None:
    """A known project the item mentions, else the project its section heading names."""
    mentioned = next((p for p in known if p.lower() in context.lower()), None)
    heading = _PROJECT_HEADING.search(section)
    return mentioned or (heading.group(1) if heading else None)


def _integrate(text: str) -> dict[str, Any]:
    entries = [(ref, tokens(body)) for ref, _, body in _ENTRY.findall(text)]
    operations = []
    for ref, _, body in _ITEM.findall(text):
        wording = _plain(body)
        words = tokens(wording)
        best = max(entries, key=lambda entry: similarity(words, entry[1]), default=None)
        if best is not None and similarity(words, best[1]) >= 0.8:
            operations.append(
                {"item_id": ref, "op": "noop", "target": best[0], "text": None, "reason": "known"}
            )
        else:
            operations.append({"item_id": ref, "op": "add", "target": None, "text": wording, "reason": "new"})
    return {"operations": operations}


def _close(text: str) -> dict[str, Any]:
    """Each note closes the open action it shares the most words with, if at least half of them."""
    actions = [(ref, tokens(body)) for ref, _, body in _OPEN_ACTION.findall(text)]
    closures, taken = [], set()
    for ref, _, body in _NOTE.findall(text):
        words = tokens(body)
        free = [action for action in actions if action[0] not in taken]
        best = max(free, key=lambda action: similarity(words, action[1]), default=None)
        if best is not None and similarity(words, best[1]) >= 0.5:
            taken.add(best[0])
            closures.append({"reason": "same task", "item_id": ref, "target": best[0]})
    return {"closures": closures}


def _project(text: str) -> dict[str, Any]:
    events = _EVENT.findall(text)
    actions = [_plain(body) for _, body in _ACTION.findall(text)]
    last = events[-1] if events else None
    return {
        "status": f"active: {_plain(last[2])[:90]} ({last[0]})" if last else "active",
        "contacts": "—",
        "last_event": f"{_plain(last[2])[:120]} ({last[0]})" if last else "—",
        "next": actions[0] if actions else "—",
    }


def _weekly(text: str) -> dict[str, Any]:
    groups: dict[str, list[str]] = {}
    for day, attributes, body in _EVENT.findall(text):
        found = _attributes(attributes)
        groups.setdefault(found.get("project", "General"), []).append(
            f"{found.get('category', 'fact')}: {_plain(body)} ({day})"
        )
    count = sum(len(lines) for lines in groups.values())
    return {
        "overview": f"{count} items worth keeping this week, across {len(groups)} topics.",
        "highlights": [{"topic": topic, "lines": lines} for topic, lines in sorted(groups.items())],
    }


def _briefing(text: str) -> dict[str, Any]:
    actions = []
    for attributes, body in _ACTION.findall(text):
        found = _attributes(attributes)
        due = f" (due {found['deadline']})" if "deadline" in found else ""
        actions.append(f"{_plain(body)}{due}")
    projects = [f"{name}: {_plain(body)[:120]}" for name, body in _PROJECT.findall(text)]
    return {"priorities": actions[:3], "actions": actions[3:], "context": projects, "warnings": []}
