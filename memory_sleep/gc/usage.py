"""Usage decay: entries neither returned by recall nor referenced by a note (nor restored) for
`unused_days` go, open actions aside."""

from __future__ import annotations

from dataclasses import dataclass

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.signals import DAY, is_protected, last_used


@dataclass
class Usage:
    name: StrategyName = "usage"

    def plan(self, context: GcContext) -> list[GcAction]:
        days = context.config.usage.unused_days
        horizon = context.now - days * DAY
        unused = [
            entry.id
            for entry in context.entries
            if last_used(entry, context) < horizon and not is_protected(entry, context)
        ]
        if not unused:
            return []
        reason = f"neither recalled nor referenced for {days} days"
        return [GcAction(strategy=self.name, op="soft_delete", ids=unused, reason=reason)]
