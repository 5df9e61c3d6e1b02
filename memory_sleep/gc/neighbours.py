"""Which entries are alike, from the sidecar's vectors, and entries as an engine is shown them.

Similarities are computed in blocks of rows, at most BLOCK_FLOATS of them at a time (16 MB), never
the whole n x n matrix of a scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import date

import numpy as np

from memory_sleep.models import EntryView
from memory_sleep.sidecar.rows import CONTEXT_JOIN, EntryRow, Vectors
from memory_sleep.sidecar.statement import statement
from memory_sleep.sidecar.vectors import VectorIndex

BLOCK_FLOATS = 4_000_000
SAMPLE_STRIDE = 8  # within_reach's sample: on 365 days of notes, a quarter of the rows left to rank


def with_vectors(rows: Sequence[EntryRow], index: VectorIndex) -> tuple[list[EntryRow], Vectors]:
    """The rows that have a vector in `index` (live, embedded by its embedder), and those vectors."""
    if not rows or len(index) == 0:
        return [], np.zeros((0, index.matrix.shape[1]), dtype=np.float32)
    wanted = np.array([row.id for row in rows], dtype=np.int64)
    positions = np.minimum(np.searchsorted(index.ids, wanted), len(index.ids) - 1)
    found = index.ids[positions] == wanted
    kept = [row for row, present in zip(rows, found, strict=True) if present]
    return kept, index.matrix[positions[found]]


def _blocks(matrix: Vectors, rows: Sequence[int] | None = None) -> Iterator[tuple[list[int], Vectors]]:
    """The similarities of `rows` (every row by default) to every row, a block of rows at a time, with
    the blocks' row indexes."""
    wanted = range(len(matrix)) if rows is None else rows
    size = max(1, BLOCK_FLOATS // max(1, len(matrix)))
    for start in range(0, len(wanted), size):
        chosen = list(wanted[start : start + size])
        yield chosen, (matrix[start : start + size] if rows is None else matrix[chosen]) @ matrix.T


def alike_pairs(matrix: Vectors, threshold: float) -> list[tuple[int, int, float]]:
    """(i, j, similarity) of the rows at least `threshold` alike, i < j, most alike first."""
    return alike_pairs_with(matrix, threshold, None)


def alike_pairs_with(
    matrix: Vectors, threshold: float, rows: Sequence[int] | None
) -> list[tuple[int, int, float]]:
    """`alike_pairs`, only those holding one of `rows` (None: every row)."""
    among = frozenset(rows if rows is not None else ())
    found: list[tuple[int, int, float]] = []
    for chosen, block in _blocks(matrix, rows):
        at, columns = np.nonzero(block >= threshold - _ROUNDING)
        for row, column in zip(at.tolist(), columns.tolist(), strict=True):
            own = chosen[row]
            if own < column or (rows is not None and own != column and column not in among):
                first, second = min(own, column), max(own, column)
                alike = similarity(matrix[first], matrix[second])
                if alike >= threshold:
                    found.append((first, second, alike))
    return sorted(found, key=lambda pair: (-pair[2], pair[0], pair[1]))


_ROUNDING = 1e-4  # how far a block product's float32 similarity may stray from `similarity`


def similarity(first: Vectors, second: Vectors) -> float:
    """The cosine similarity of two unit vectors, the same bits whatever else is compared with them
    (a matrix product's rounding depends on the block's shape and the BLAS threads)."""
    return float(np.float32(np.dot(first.astype(np.float64), second.astype(np.float64))))


def nearest(
    matrix: Vectors, k: int, rows: Sequence[int] | None = None, targets: Sequence[int] | None = None
) -> list[list[int]]:
    """For each of `rows` (every row by default), the (at most) `k` other rows most alike to it, most
    alike first. With `targets`, a row that is not one of them and has `k` rows each more alike to it
    than every target is gets none: no target is among its nearest, ties or not, so its row of
    similarities is not ranked (the rows ranked see the same block products, so the same nearest)."""
    n = min(k, len(matrix) - 1)
    if n <= 0:
        return [[] for _ in (range(len(matrix)) if rows is None else rows)]
    aimed = None if targets is None else np.asarray(targets, dtype=np.intp)
    found: list[list[int]] = []
    for chosen, block in _blocks(matrix, rows):
        block[np.arange(len(block)), chosen] = -np.inf  # not itself
        ranked = np.arange(len(block))
        if aimed is not None:
            nearest_target = block[:, aimed].max(axis=1, initial=-np.inf)
            beyond = np.count_nonzero(block > nearest_target[:, None], axis=1) >= n
            ranked = np.flatnonzero(~beyond | np.isin(chosen, aimed))
        scores = block[ranked]
        best = np.argpartition(scores, block.shape[1] - n, axis=1)[:, block.shape[1] - n :]
        order = np.argsort(-np.take_along_axis(scores, best, axis=1), axis=1, kind="stable")
        rows_found: list[list[int]] = [[] for _ in chosen]
        for at, neighbours in zip(
            ranked.tolist(), np.take_along_axis(best, order, axis=1).tolist(), strict=True
        ):
            rows_found[at] = neighbours
        found.extend(rows_found)
    return found


def within_reach(matrix: Vectors, targets: Sequence[int], k: int) -> list[int]:
    """The rows whose `k` nearest (as `nearest` finds them) may include one of the `targets` rows, the
    targets among them. A row is left out only when `k` rows of a sample (every SAMPLE_STRIDE-th row
    and the targets) are each more alike to it than every target is: then no target is among its
    nearest, ties or not, and its whole row of similarities need not be ranked."""
    n = min(k, len(matrix) - 1)
    if n <= 0 or not targets:
        return list(targets)
    sample = np.unique(np.concatenate([np.asarray(targets), np.arange(0, len(matrix), SAMPLE_STRIDE)]))
    at_target = np.searchsorted(sample, np.asarray(targets))
    reach = np.zeros(len(matrix), dtype=bool)
    reach[list(targets)] = True
    size = max(1, BLOCK_FLOATS // len(sample))
    for start in range(0, len(matrix), size):
        block = matrix[start : start + size] @ matrix[sample].T
        own = np.searchsorted(sample, np.arange(start, start + len(block)))
        sampled = (own < len(sample)) & (
            sample[np.minimum(own, len(sample) - 1)] == np.arange(start, start + len(block))
        )
        block[np.flatnonzero(sampled), own[sampled]] = -np.inf  # not itself
        if block.shape[1] <= n:
            reach[start : start + len(block)] = True
            continue
        floor = np.partition(block, block.shape[1] - n, axis=1)[:, block.shape[1] - n]
        reach[start : start + len(block)] |= block[:, at_target].max(axis=1) >= floor
    return np.flatnonzero(reach).tolist()


def entry_view(row: EntryRow, ref: str, written_from: EntryRow | None = None) -> EntryView:
    """The entry as an engine sees it: `ref` stands for its id within one call. Its source is the
    note item it was written from (`written_from`; a note's item is its own) and that item's
    headings and lead-in, its place in its note: a MEMORY.md entry's section says only what it is."""
    day = date.fromisoformat(row.day) if row.day else None
    item = row if row.kind == "note" else written_from
    if item is None:
        return EntryView(ref=ref, section=row.context, topic=None, text=row.text, day=day)
    return EntryView(
        ref=ref,
        section=row.context,
        topic=None,
        text=row.text,
        day=day,
        source=f"{item.source_path}:{item.line_start}",
        source_headings=tuple(item.context.split(CONTEXT_JOIN)) if item.context else (),
    )


def written_from(entries: Sequence[EntryRow], rows: Iterable[EntryRow]) -> dict[int, EntryRow]:
    """For each MEMORY.md entry of `rows`, the note item among `entries` it was written from: the
    first of its day's that states its words (without a stamp, list marks or its history)."""
    wanted = {row.id: row for row in rows if row.kind == "memory" and row.day}
    days = {row.day for row in wanted.values()}
    said: dict[tuple[str | None, frozenset[str]], EntryRow] = {}
    for entry in entries:
        if entry.kind == "note" and entry.day in days and not entry.discarded:
            said.setdefault((entry.day, statement(entry).words), entry)
    found = {row.id: said.get((row.day, statement(row).words)) for row in wanted.values()}
    return {entry_id: item for entry_id, item in found.items() if item is not None}


def in_time_order(rows: Sequence[EntryRow]) -> list[EntryRow]:
    """Oldest first: by the day each became true, undated first, then as indexed."""
    return sorted(rows, key=lambda row: (row.day or "", row.created_at, row.id))
