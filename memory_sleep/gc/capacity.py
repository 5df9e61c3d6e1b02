"""Capacity: at most `max_entries` live entries per scope (0: unlimited). Over it, the unused entries
(never returned by recall, not referenced by a note in the last `stale_after_days`) of lowest
retention go first: confidence (importance, decayed by age), halved for an entry with many near
duplicates. Never an open action, never an entry a note referenced lately."""

from __future__ import annotations

from dataclasses import dataclass

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.entries import neighbour_counts
from memory_sleep.gc.signals import DAY, confidence, is_protected, last_used


@dataclass
class Capacity:
    name: StrategyName = "capacity"

    def plan(self, context: GcContext) -> list[GcAction]:
        limit = context.config.capacity.max_entries
        over = len(context.entries) - limit
        if limit == 0 or over <= 0:
            return []
        recent = context.now - context.stale_after_days * DAY
        half_life = context.config.decay.half_life_days
        neighbours = neighbour_counts(context.sidecar.store, context.scope)
        candidates = sorted(
            (
                confidence(entry.importance, last_used(entry, context), context.now, half_life)
                * (1.0 - 0.5 * (1.0 - 1.0 / (1.0 + neighbours.get(entry.id, 0)))),
                entry.id,
            )
            for entry in context.entries
            if entry.access_count == 0
            and context.used.get(entry.id, 0.0) < recent
            and not is_protected(entry, context)
        )
        chosen = [entry_id for _, entry_id in candidates[:over]]
        if not chosen:
            return []
        reason = f"over max_entries {limit} in scope {context.scope}: lowest retention, unused"
        return [GcAction(strategy=self.name, op="soft_delete", ids=chosen, reason=reason)]
