"""Time decay: confidence = importance x 0.5^(age / half_life_days), age counted from an entry's
last use. Recall leaves out what falls under `recall_threshold` (when it is set); this strategy
soft-deletes it, open actions aside, so that the store holds what recall can still return."""

from __future__ import annotations

from dataclasses import dataclass

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.signals import confidence, is_protected, last_used


@dataclass
class Decay:
    name: StrategyName = "decay"

    def plan(self, context: GcContext) -> list[GcAction]:
        settings = context.config.decay
        threshold = settings.recall_threshold
        if threshold is None:
            return []
        faded = [
            entry.id
            for entry in context.entries
            if not is_protected(entry, context)
            and confidence(entry.importance, last_used(entry, context), context.now, settings.half_life_days)
            < threshold
        ]
        if not faded:
            return []
        reason = f"confidence under recall_threshold {threshold} (half-life {settings.half_life_days:g} days)"
        return [GcAction(strategy=self.name, op="soft_delete", ids=faded, reason=reason)]
