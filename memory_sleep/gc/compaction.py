"""Compaction: entries that say one thing become one canonical statement (issue 19, item 5).

Clusters come from the sidecar's vectors: entries of one kind (MEMORY.md entries with each other, note
items with each other) whose embeddings are at least `[memory.gc.compaction] similarity` alike, every
member with every other. The engine words each cluster as one statement, or says it is not one
thing; a statement that drops a number, date, name, handle or open action of an original is not
applied but listed for review.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.alike_memo import asked_once
from memory_sleep.gc.lossless import lossless_action
from memory_sleep.gc.neighbours import alike_pairs, entry_view, with_vectors
from memory_sleep.models import EntryView
from memory_sleep.sidecar.rows import EntryRow, Vectors
from memory_sleep.text import counted

COMPACTED_KINDS = ("memory", "note")
MAX_CLUSTER = 12  # a cluster larger than this is a topic, not a repeated statement


class Compaction:
    name: StrategyName = "compaction"

    def plan(self, context: GcContext) -> list[GcAction]:
        clusters = alike_clusters(context)
        if not clusters:
            return []
        views = [[entry_view(row, f"E{n}") for n, row in enumerate(rows, start=1)] for rows in clusters]
        merged = _merged(context, views)
        return [
            lossless_action(
                self.name, "merge", rows, text, counted(len(rows), "alike entry", "alike entries")
            )
            for rows, text in zip(clusters, merged, strict=True)
            if text is not None
        ]


def _merged(context: GcContext, views: list[list[EntryView]]) -> list[str | None]:
    """The engine's statement of each cluster; one it declined last pass, shown the same way, is
    declined again without asking (its answer depends on what it is shown)."""
    engine = f"{context.engine.name} {context.engine.model}"
    return asked_once(
        context.alike, engine, views, context.engine.gardener.merge, lambda text: text is None, None
    )


def alike_clusters(context: GcContext) -> list[list[EntryRow]]:
    """Groups of live, still valid entries of one kind, each member at least `similarity` alike to
    every other (oldest first within a group)."""
    threshold = context.config.compaction.similarity
    index = context.sidecar.vectors()
    clusters: list[list[EntryRow]] = []
    for kind in COMPACTED_KINDS:
        rows = [e for e in context.entries if e.kind == kind and e.valid_to is None and not e.discarded]
        kept, matrix = with_vectors(rows, index)
        ids = [row.id for row in kept]
        pairs = (
            context.alike.pairs(f"{context.scope}/{kind}", ids, matrix, threshold)
            if context.alike is not None
            else alike_pairs(matrix, threshold)
        )
        for members in _complete_groups(matrix, pairs, threshold):
            clusters.append(sorted((kept[i] for i in members), key=lambda row: (row.day or "", row.id)))
    return clusters


def _complete_groups(
    matrix: Vectors, pairs: Sequence[tuple[int, int, float]], threshold: float
) -> list[list[int]]:
    """Most alike pairs first: a pair starts a group, or one of it joins the other's group when it is
    alike to all of that group; two groups never join (that is how chains of near-misses grow)."""
    group_of: dict[int, list[int]] = {}
    groups: list[list[int]] = []
    for first, second, _ in pairs:
        if first in group_of and second in group_of:
            continue
        if first not in group_of and second not in group_of:
            group = [first, second]
            groups.append(group)
            group_of.update({first: group, second: group})
            continue
        grouped, single = (first, second) if first in group_of else (second, first)
        group = group_of[grouped]
        alike = matrix[group] @ matrix[single]
        if len(group) < MAX_CLUSTER and bool(np.all(alike >= threshold)):
            group.append(single)
            group_of[single] = group
    return groups
