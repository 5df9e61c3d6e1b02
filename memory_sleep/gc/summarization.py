"""Summarization: past `[memory.gc.summarization] archive_limit` archived entries in a scope, its oldest
`batch` become one summary entry, as Letta summarizes evicted messages (issue 19, item 8).

Archived entries are the records archive.md keeps of what left MEMORY.md. Batches are taken oldest
first until the archive is back under its limit (a summary is an entry of its own, not an archive
record).
A summary that drops a number, date, name, handle or open action of an original is not applied but
listed for review.
"""

from __future__ import annotations

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.lossless import lossless_action
from memory_sleep.gc.neighbours import entry_view, in_time_order
from memory_sleep.text import counted

ARCHIVED_KIND = "archive"


class Summarization:
    name: StrategyName = "summarization"

    def plan(self, context: GcContext) -> list[GcAction]:
        settings = context.config.summarization
        archived = in_time_order([entry for entry in context.entries if entry.kind == ARCHIVED_KIND])
        actions = []
        while len(archived) > settings.archive_limit:  # at least 2 left: the limit is at least 1
            batch, archived = archived[: settings.batch], archived[settings.batch :]
            views = [entry_view(row, f"E{n}") for n, row in enumerate(batch, start=1)]
            summary = context.engine.gardener.summarize(views)
            what = f"the oldest {counted(len(batch), 'archived entry', 'archived entries')}"
            actions.append(lossless_action(self.name, "summarize", batch, summary, what))
        return actions
