"""Judgements a strategy was not sure of (op `review`): never applied, kept for a person in
memory/.sleep/gc-review.json (written by the run, so `undo` takes a run's back), listed by
`memory-sleep status` and counted in one of the morning briefing's warnings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from memory_sleep.gc.actions import GcAction
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.workspace.layout import Workspace

REVIEW_FILE = "gc-review.json"
KEPT = 50  # the newest; older ones a person has had nights to see
TEXT_CHARS = 120


def read_reviews(workspace: Workspace) -> list[dict[str, Any]]:
    try:
        found = json.loads((workspace.state_dir / REVIEW_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return []
    return [review for review in found if isinstance(review, dict)] if isinstance(found, list) else []


def with_reviews(
    known: Sequence[dict[str, Any]], actions: Sequence[GcAction], rows: dict[int, EntryRow], today: date
) -> list[dict[str, Any]]:
    """`known` and the new review actions (a judgement already listed is not listed twice), newest first."""
    fresh: list[dict[str, Any]] = [
        {
            "day": (action.day or today).isoformat(),
            "strategy": action.strategy,
            "ids": action.ids,
            "into": action.into,
            "reason": action.reason,
            "texts": [
                rows[i].text[:TEXT_CHARS] for i in (*action.ids, action.into) if i is not None and i in rows
            ],
        }
        for action in actions
        if action.op == "review"
    ]
    seen = {(review["strategy"], tuple(review["ids"]), review["into"]) for review in known}
    new = [
        review for review in fresh if (review["strategy"], tuple(review["ids"]), review["into"]) not in seen
    ]
    return [*new, *known][:KEPT]


def review_line(review: dict[str, Any]) -> str:
    """One line for status: what to look at and why."""
    texts = " vs ".join(f'"{text}"' for text in review.get("texts", []))
    return f"GC {review.get('strategy')} unsure, please review: {texts} ({review.get('reason')})"


def render(reviews: Sequence[dict[str, Any]]) -> bytes:
    return (json.dumps(list(reviews), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
