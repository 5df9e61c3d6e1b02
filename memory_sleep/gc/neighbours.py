"""Which entries are alike, from the sidecar's vectors, and entries as an engine is shown them.

Similarities are computed in blocks of rows, at most BLOCK_FLOATS of them at a time (16 MB), never
the whole n x n matrix of a scope.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date

import numpy as np

from memory_sleep.models import EntryView
from memory_sleep.sidecar.rows import EntryRow, Vectors
from memory_sleep.sidecar.vectors import VectorIndex

BLOCK_FLOATS = 4_000_000


def with_vectors(rows: Sequence[EntryRow], index: VectorIndex) -> tuple[list[EntryRow], Vectors]:
    """The rows that have a vector in `index` (live, embedded by its embedder), and those vectors."""
    if not rows or len(index) == 0:
        return [], np.zeros((0, index.matrix.shape[1]), dtype=np.float32)
    wanted = np.array([row.id for row in rows], dtype=np.int64)
    positions = np.minimum(np.searchsorted(index.ids, wanted), len(index.ids) - 1)
    found = index.ids[positions] == wanted
    kept = [row for row, present in zip(rows, found, strict=True) if present]
    return kept, index.matrix[positions[found]]


def _blocks(matrix: Vectors) -> Iterator[tuple[int, Vectors]]:
    rows = max(1, BLOCK_FLOATS // max(1, len(matrix)))
    for start in range(0, len(matrix), rows):
        yield start, matrix[start : start + rows] @ matrix.T


def alike_pairs(matrix: Vectors, threshold: float) -> list[tuple[int, int, float]]:
    """(i, j, similarity) of the rows at least `threshold` alike, i < j, most alike first."""
    found: list[tuple[int, int, float]] = []
    for start, block in _blocks(matrix):
        rows, columns = np.nonzero(block >= threshold)
        for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
            if start + row < column:
                found.append((start + row, column, float(block[row, column])))
    return sorted(found, key=lambda pair: (-pair[2], pair[0], pair[1]))


def nearest(matrix: Vectors, k: int) -> list[list[int]]:
    """For each row, the (at most) `k` other rows most alike to it, most alike first."""
    n = min(k, len(matrix) - 1)
    if n <= 0:
        return [[] for _ in range(len(matrix))]
    found: list[list[int]] = []
    for start, block in _blocks(matrix):
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf  # not itself
        best = np.argpartition(block, block.shape[1] - n, axis=1)[:, block.shape[1] - n :]
        order = np.argsort(-np.take_along_axis(block, best, axis=1), axis=1, kind="stable")
        found.extend(np.take_along_axis(best, order, axis=1).tolist())
    return found


def entry_view(row: EntryRow, ref: str) -> EntryView:
    """The entry as an engine sees it: `ref` stands for its id within one call."""
    day = date.fromisoformat(row.day) if row.day else None
    return EntryView(ref=ref, section=row.context, topic=None, text=row.text, day=day)


def in_time_order(rows: Sequence[EntryRow]) -> list[EntryRow]:
    """Oldest first: by the day each became true, undated first, then as indexed."""
    return sorted(rows, key=lambda row: (row.day or "", row.created_at, row.id))
