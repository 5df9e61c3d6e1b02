"""Judgements a strategy was not sure of (op `review`): never applied, kept for a person in
memory/.sleep/gc-review.json (written by the run, so `undo` takes a run's back), listed by
`memory-sleep status` and `memory-sleep review`, and counted in one of the morning briefing's
warnings. A person dismisses one they have looked at (`review --dismiss N`): it stays in the file,
marked with the day, is no longer listed, and the same pair is not raised again."""

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
DISMISSED_KEPT = 500  # remembered so that the same pair is not raised again
TEXT_CHARS = 120


def read_reviews(workspace: Workspace) -> list[dict[str, Any]]:
    try:
        found = json.loads((workspace.state_dir / REVIEW_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return []
    return [review for review in found if isinstance(review, dict)] if isinstance(found, list) else []


def open_reviews(reviews: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judgements still waiting for a person (not dismissed), in the order they are listed."""
    return [review for review in reviews if not review.get("dismissed")]


def dismissed(reviews: Sequence[dict[str, Any]], numbers: Sequence[int], today: date) -> list[dict[str, Any]]:
    """`reviews` with the open judgements numbered `numbers` (1 = the first `open_reviews` lists)
    marked dismissed on `today`; a number no judgement has is an error that says how many there are."""
    waiting = [at for at, review in enumerate(reviews) if not review.get("dismissed")]
    unknown = sorted({n for n in numbers if not 1 <= n <= len(waiting)})
    if unknown:
        raise ValueError(
            f"no judgement {', '.join(map(str, unknown))}: {len(waiting)} wait for review "
            "(`memory-sleep review` numbers them)"
        )
    chosen = {waiting[n - 1] for n in numbers}
    return [
        {**review, "dismissed": today.isoformat()} if at in chosen else review
        for at, review in enumerate(reviews)
    ]


def with_reviews(
    known: Sequence[dict[str, Any]], actions: Sequence[GcAction], rows: dict[int, EntryRow], today: date
) -> list[dict[str, Any]]:
    """`known` and the new review actions (a judgement already listed, or dismissed, is not listed
    again), newest first."""
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
    return [*new, *open_reviews(known)][:KEPT] + [r for r in known if r.get("dismissed")][:DISMISSED_KEPT]


def review_line(review: dict[str, Any]) -> str:
    """One line for `status` and `review`: what to look at and why."""
    texts = " vs ".join(f'"{text}"' for text in review.get("texts", []))
    return f"GC {review.get('strategy')} unsure, please review: {texts} ({review.get('reason')})"


def render(reviews: Sequence[dict[str, Any]]) -> bytes:
    return (json.dumps(list(reviews), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
