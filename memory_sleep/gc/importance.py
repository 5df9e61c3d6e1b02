"""Importance: the engine rates each entry 0-1 for future usefulness, in batches of `batch_size`,
once per version of its text (entries indexed after the newest one rated before); recall's confidence, the
decay and capacity strategies and SleepGate's retention score read the rating."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from memory_sleep.engines.base import RatedEntry
from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.entries import RATED_AT, days_written


@dataclass
class Importance:
    name: StrategyName = "importance"

    def plan(self, context: GcContext) -> list[GcAction]:
        rated_at = context.sidecar.store.meta(RATED_AT)
        since = float(rated_at) if rated_at else None
        written = days_written(context.entries)
        due = [
            RatedEntry(
                id=entry.id,
                text=entry.text,
                category=context.categories.get(entry.id),
                kind=entry.kind,
                day=date.fromisoformat(entry.day) if entry.day else None,
                days_written=written[entry.id],
            )
            for entry in context.entries
            if since is None or entry.updated_at > since
        ]
        size = context.config.importance.batch_size
        actions: list[GcAction] = []
        for start in range(0, len(due), size):
            batch = due[start : start + size]
            wanted = {entry.id for entry in batch}
            by_value: dict[float, list[int]] = defaultdict(list)
            for entry_id, value in context.engine.rater.rate(batch).items():
                if entry_id in wanted:  # an id the batch does not hold names nothing
                    by_value[round(min(1.0, max(0.0, value)), 3)].append(entry_id)
            actions.extend(
                GcAction(
                    strategy=self.name, op="rate", ids=ids, importance=value, reason="rated by the engine"
                )
                for value, ids in sorted(by_value.items())
            )
        return actions
