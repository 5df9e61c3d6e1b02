"""A host agent's decisions computed from a request's values and schema (never from its prompt text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def decide(values: Mapping[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Plain, valid decisions for any of the six requests, chosen by the answer's schema."""
    answers = schema["properties"]
    if "classifications" in answers:
        return {"classifications": [_verdict(item, values["projects"]) for item in values["items"]]}
    if "operations" in answers:
        return {"operations": [_operation(item, values["entries"]) for item in values["items"]]}
    if "closures" in answers:
        return {"closures": []}
    if "next" in answers:
        events, actions = values["events"], values["open_actions"]
        last = events[-1] if events else {"text": "started", "day": values["today"]}
        return {
            "status": f"active since {values['today']}",
            "contacts": "—",
            "last_event": f"{_line(last['text'], 80)} ({last['day']})",
            "next": actions[0] if actions else "—",
        }
    if "overview" in answers:
        lines = [_line(item["text"], 200) for item in values["items"]]
        return {"overview": f"{len(lines)} items kept", "highlights": [{"topic": "General", "lines": lines}]}
    actions = [action["text"] for action in values["actions"]]
    return {"priorities": actions[:3], "actions": actions[3:], "context": [], "warnings": []}


def _line(text: str, limit: int) -> str:
    return " ".join(text.split())[:limit]


def _verdict(item: Mapping[str, Any], projects: list[str]) -> dict[str, Any]:
    text = item["text"]
    keep = len(text) >= 40
    action = "[ ]" in text or "TODO" in text
    return {
        "id": item["id"],
        "verdict": "KEEP" if keep else "DISCARD",
        "category": ("action" if action else "fact") if keep else None,
        "discard_reason": None if keep else "routine",
        "topic": next((name for name in projects if name.lower() in text.lower()), None),
        "closes_action": False,
        "deadline": None,
        "reason": "long enough to matter" if keep else "short",
    }


def _operation(item: Mapping[str, Any], entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    text = _line(item["text"], 200)
    same = next((entry["ref"] for entry in entries if _line(entry["text"], 200) == text), None)
    return {
        "item_id": item["id"],
        "op": "noop" if same else "add",
        "target": same,
        "text": None if same else text,
        "reason": "already there" if same else "new",
    }
