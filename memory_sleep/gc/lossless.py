"""A merge or a summary as an action: applied when it keeps every detail of what it replaces, else
listed for review with what it drops."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal

from memory_sleep.gc.actions import GcAction, StrategyName
from memory_sleep.gc.details import is_open_action, lost_details
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.text import shorten


def lossless_action(
    strategy: StrategyName, op: Literal["merge", "summarize"], rows: Sequence[EntryRow], text: str, what: str
) -> GcAction:
    """`op` of `rows` into `text` (`what` names them in the reason), dated by the newest of them; a
    review instead when `text` drops a number, date, name, handle or open action of one of them."""
    open_actions = [
        row.text
        for row in rows
        if row.valid_to is None and is_open_action(row.context.removeprefix("Archive · "), row.text)
    ]  # an action archived to make room is still open; one done or superseded is not
    lost = lost_details([row.text for row in rows], text, open_actions)
    newest = max((row.day for row in rows if row.day), default=None)
    day = date.fromisoformat(newest) if newest else None
    ids = [row.id for row in rows]
    done = f"{'summary' if op == 'summarize' else op} of {what}"
    if lost:
        reason = f"{done} not applied: it drops {shorten(', '.join(lost), 160)}"
        return GcAction(strategy=strategy, op="review", ids=ids, reason=reason, day=day)
    return GcAction(strategy=strategy, op=op, ids=ids, text=text, reason=done, day=day)
