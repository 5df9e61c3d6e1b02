"""Counting near pairs (cosine at or above a threshold) with blocked matmuls whose buffers stay
small next to the vectors: all pairs of a matrix (symmetric, resumable row block by row block), and
a set of probe vectors against some or all rows."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.store import Vectors

Counts = npt.NDArray[np.int64]
Codes = npt.NDArray[np.int32]
Positions = npt.NDArray[np.intp]
ROW_BLOCK = 1024
COLUMN_BLOCK = 32_768
MIN_BUFFER = 2**20


def block_columns(rows: int, matrix: Vectors) -> int:
    """Columns per block: a float32 score buffer and its boolean mask (5 bytes a cell) within an
    eighth of the raw vectors (1 MB at least), so a pass adds well under the matrix's own size."""
    budget = max(MIN_BUFFER, matrix.nbytes // 8)
    return int(max(256, min(COLUMN_BLOCK, budget // (5 * max(rows, 1)))))


@dataclass
class PairLog:
    """Near pairs found by a count, as (first, second) row positions, while they number at most
    `limit`: removals right after a full count then cost a lookup instead of another matmul."""

    limit: int
    firsts: list[npt.NDArray[np.int32]] = field(default_factory=list)
    seconds: list[npt.NDArray[np.int32]] = field(default_factory=list)
    size: int = 0
    overflowed: bool = False

    def add(self, firsts: Positions, seconds: Positions) -> None:
        if self.overflowed:
            return
        self.size += len(firsts)
        if self.size > self.limit:
            self.overflowed = True
            self.firsts.clear()
            self.seconds.clear()
            return
        self.firsts.append(firsts.astype(np.int32))
        self.seconds.append(seconds.astype(np.int32))

    def pairs(self) -> tuple[Positions, Positions] | None:
        if self.overflowed:
            return None
        if not self.firsts:
            return np.zeros(0, np.intp), np.zeros(0, np.intp)
        return np.concatenate(self.firsts).astype(np.intp), np.concatenate(self.seconds).astype(np.intp)


def _near(
    block: Vectors, columns: Vectors, threshold: float, scores: Vectors, mask: npt.NDArray[np.bool_]
) -> tuple[Positions, Positions]:
    """(row, column) of every pair at or above the threshold. Near pairs are rare, so listing them
    from the flat mask (far faster than a 2-D nonzero) and counting with bincount wins."""
    shape = (len(block), len(columns))
    size = shape[0] * shape[1]
    out = scores.reshape(-1)[:size].reshape(shape)  # contiguous: a strided `out` leaves BLAS
    np.matmul(block, columns.T, out=out)
    flat = mask.reshape(-1)[:size]
    np.greater_equal(out.reshape(-1), threshold, out=flat)
    hits = np.flatnonzero(flat)
    return hits // shape[1], hits % shape[1]


def _rows(matrix: Vectors, order: Positions | None, start: int, stop: int) -> Vectors:
    return matrix[start:stop] if order is None else matrix[order[start:stop]]


def all_pairs(
    matrix: Vectors,
    codes: Codes | None,
    threshold: float,
    counts: Counts,
    start_row: int = 0,
    deadline: float | None = None,
    order: Positions | None = None,
    log: PairLog | None = None,
) -> int:
    """Add each row's near-neighbour count to `counts`, row block by row block from `start_row`,
    using symmetry: block [r, e) meets only rows from r on, so when it is done every pair with an
    end before e has been counted once. `order` lists the matrix rows to count, in build order
    (default: all, as they are); `counts` and `codes` follow it. Stops after the block that passes
    the deadline and returns the next row to do (the row count when done)."""
    total = len(matrix) if order is None else len(order)
    step = block_columns(ROW_BLOCK, matrix)
    scores = np.empty((ROW_BLOCK, step), dtype=np.float32)
    mask = np.empty((ROW_BLOCK, step), dtype=bool)
    row = start_row
    while row < total:
        end = min(row + ROW_BLOCK, total)
        block = _rows(matrix, order, row, end)
        for column in range(row, total, step):
            stop = min(column + step, total)
            rows, cols = _near(block, _rows(matrix, order, column, stop), threshold, scores, mask)
            rows, cols = rows + row, cols + column
            keep = cols > rows  # each pair once, never an entry with itself
            if codes is not None:
                keep &= codes[rows] == codes[cols]
            rows, cols = rows[keep], cols[keep]
            counts[row:end] += np.bincount(rows - row, minlength=end - row)
            counts[column:stop] += np.bincount(cols - column, minlength=stop - column)
            if log is not None:
                log.add(rows, cols)
        row = end
        if deadline is not None and time.monotonic() >= deadline:
            break
    return row


def against(
    probes: Vectors,
    probe_codes: Codes | None,
    matrix: Vectors,
    codes: Codes | None,
    threshold: float,
    columns: Positions | None = None,
    log: PairLog | None = None,
) -> tuple[Counts, Counts]:
    """(near rows per probe, near probes per matrix row) between probes and the matrix rows listed
    in `columns` (default: all); rows not listed get 0. `log` collects (probe, matrix row) pairs."""
    per_probe = np.zeros(len(probes), dtype=np.int64)
    per_row = np.zeros(len(matrix), dtype=np.int64)
    total = len(matrix) if columns is None else len(columns)
    if len(probes) == 0 or total == 0:
        return per_probe, per_row
    base = 0 if columns is None else int(columns[0])
    if columns is not None and columns[-1] - base == total - 1 and bool(np.all(np.diff(columns) == 1)):
        columns = None  # a run of rows: slices, no gathering
    step = block_columns(ROW_BLOCK, matrix)
    scores = np.empty((ROW_BLOCK, step), dtype=np.float32)
    mask = np.empty((ROW_BLOCK, step), dtype=bool)
    for first in range(0, len(probes), ROW_BLOCK):
        last = min(first + ROW_BLOCK, len(probes))
        for column in range(0, total, step):
            stop = min(column + step, total)
            if columns is None:
                targets, chunk = np.arange(base + column, base + stop), matrix[base + column : base + stop]
            else:
                targets, chunk = columns[column:stop], matrix[columns[column:stop]]
            rows, cols = _near(probes[first:last], chunk, threshold, scores, mask)
            if probe_codes is not None and codes is not None:
                keep = probe_codes[rows + first] == codes[targets[cols]]
                rows, cols = rows[keep], cols[keep]
            per_probe[first:last] += np.bincount(rows, minlength=last - first)
            np.add.at(per_row, targets[cols], 1)
            if log is not None:
                log.add(rows + first, targets[cols])
    return per_probe, per_row
