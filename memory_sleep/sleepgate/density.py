"""Semantic density: for every live entry, how many other live entries of its scope lie within the
similarity threshold. Rebuilt once with a blocked, symmetric all-pairs matmul (resumable from a
checkpoint), then kept exact incrementally: new, changed and removed entries are compared with the
live matrix once, which adjusts their own counts and their neighbours'."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..sidecar.store import Store, Vectors
from ..sidecar.vectors import VectorIndex
from . import state

log = logging.getLogger("memory_sleep")
Counts = npt.NDArray[np.int64]
Codes = npt.NDArray[np.int32]
ROW_BLOCK = 1024
COLUMN_BLOCK = 32_768
CHECKPOINT = "density-build.npz"


@dataclass
class DensityResult:
    """Neighbour counts aligned with the index rows, or why they are not ready yet."""

    counts: Counts | None
    mode: str  # "incremental", "rebuilt" or "building"
    seconds: float = 0.0
    progress: float = 1.0
    changed: int = 0
    writes: list[tuple[int, int]] = field(default_factory=list)
    drop: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)


def _column_block(rows: int, total: int) -> int:
    """Columns per block: a score buffer of at most ~1/8 of the raw vectors (4 MB at least), so the
    pass's peak memory stays well under twice the matrix."""
    budget = max(4 * 2**20, total * 384 * 4 // 8)
    return int(max(1024, min(COLUMN_BLOCK, budget // (4 * max(rows, 1)))))


def _near_pairs(
    block: Vectors,
    columns: Vectors,
    threshold: float,
    scores: Vectors,
    near: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """(row, column) of every pair at or above the threshold. Near pairs are rare, so listing them
    and counting with bincount beats reducing a dense boolean matrix along both axes."""
    shape = (len(block), len(columns))
    size = shape[0] * shape[1]
    out = scores.reshape(-1)[:size].reshape(shape)  # contiguous: a strided `out` leaves BLAS
    np.matmul(block, columns.T, out=out)
    mask = near.reshape(-1)[:size].reshape(shape)
    np.greater_equal(out, threshold, out=mask)
    rows, cols = np.nonzero(mask)
    return rows, cols


def all_pairs(
    matrix: Vectors,
    codes: Codes | None,
    threshold: float,
    counts: Counts,
    start_row: int = 0,
    deadline: float | None = None,
) -> int:
    """Add each row's neighbour count to `counts`, block row by block row from `start_row`, using
    symmetry (block i meets only columns from i on). Returns the next row to do (len(matrix) when done)."""
    total = len(matrix)
    step = _column_block(ROW_BLOCK, total)
    scores = np.empty((ROW_BLOCK, step), dtype=np.float32)
    near = np.empty((ROW_BLOCK, step), dtype=bool)
    row = start_row
    while row < total:
        if deadline is not None and time.monotonic() >= deadline:
            break
        end = min(row + ROW_BLOCK, total)
        for column in range(row, total, step):
            stop = min(column + step, total)
            rows, cols = _near_pairs(matrix[row:end], matrix[column:stop], threshold, scores, near)
            rows, cols = rows + row, cols + column
            keep = cols > rows  # each pair once, never an entry with itself
            if codes is not None:
                keep &= codes[rows] == codes[cols]
            rows, cols = rows[keep], cols[keep]
            counts[row:end] += np.bincount(rows - row, minlength=end - row)
            counts[column:stop] += np.bincount(cols - column, minlength=stop - column)
        row = end
    return row


def against(
    probes: Vectors, probe_codes: Codes | None, matrix: Vectors, codes: Codes | None, threshold: float
) -> tuple[Counts, Counts]:
    """(near rows per probe, near probes per row) between probes and the whole matrix."""
    per_probe = np.zeros(len(probes), dtype=np.int64)
    per_row = np.zeros(len(matrix), dtype=np.int64)
    if len(probes) == 0:
        return per_probe, per_row
    step = _column_block(ROW_BLOCK, len(matrix))
    scores = np.empty((ROW_BLOCK, step), dtype=np.float32)
    near = np.empty((ROW_BLOCK, step), dtype=bool)
    for first in range(0, len(probes), ROW_BLOCK):
        last = min(first + ROW_BLOCK, len(probes))
        for column in range(0, len(matrix), step):
            stop = min(column + step, len(matrix))
            rows, cols = _near_pairs(probes[first:last], matrix[column:stop], threshold, scores, near)
            if probe_codes is not None and codes is not None:
                keep = probe_codes[rows + first] == codes[cols + column]
                rows, cols = rows[keep], cols[keep]
            per_probe[first:last] += np.bincount(rows, minlength=last - first)
            per_row[column:stop] += np.bincount(cols, minlength=stop - column)
    return per_probe, per_row


def _codes(index: VectorIndex) -> Codes | None:
    return index.scope_codes if len(index.scope_names) > 1 else None


def _positions(
    index: VectorIndex, ids: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Row of each id in the index, and whether it is there."""
    if len(index.ids) == 0:
        return np.zeros(len(ids), dtype=np.intp), np.zeros(len(ids), dtype=bool)
    positions = np.minimum(np.searchsorted(index.ids, ids), len(index.ids) - 1)
    return positions, index.ids[positions] == ids


def _code_of(index: VectorIndex, scope: str) -> int:
    return index.scope_names.index(scope) if scope in index.scope_names else -1


def update(store: Store, index: VectorIndex, threshold: float) -> DensityResult:
    """Bring stored counts up to the live index: count new and changed entries against every live
    row, take removed ones (and changed ones' old embeddings) out of their neighbours' counts."""
    started = time.perf_counter()
    counted_ids, counted = state.density_counts(store)
    retired = state.retired_embeddings(store)
    positions, live = _positions(index, counted_ids)
    changed = np.array([entry_id in retired for entry_id in counted_ids.tolist()], dtype=bool)
    kept = live & ~changed
    counts = np.full(len(index.ids), -1, dtype=np.int64)
    counts[positions[kept]] = counted[kept]
    added = np.flatnonzero(counts < 0)
    removed_ids = counted_ids[~kept]
    old = state.stored_embeddings(store, [int(i) for i in removed_ids if int(i) not in retired])
    old.update({int(i): retired[int(i)] for i in removed_ids if int(i) in retired})
    lost = [int(i) for i in removed_ids if int(i) not in old]
    if lost:
        log.debug(
            "sleepgate: %d hard-deleted entries left their neighbours' counts high until a rebuild", len(lost)
        )
    dim = index.matrix.shape[1]
    gone = [int(i) for i in removed_ids if int(i) in old and len(old[int(i)][1]) == dim * 4]
    gone_vectors = np.zeros((len(gone), dim), dtype=np.float32)
    for row, entry_id in enumerate(gone):
        gone_vectors[row] = np.frombuffer(old[entry_id][1], dtype="<f4")
    codes = _codes(index)
    added_codes = gone_codes = None
    if codes is not None:
        added_codes = codes[added]
        gone_codes = np.array([_code_of(index, old[i][0]) for i in gone], dtype=np.int32)
    per_probe, per_row_new = against(index.matrix[added], added_codes, index.matrix, codes, threshold)
    _, per_row_gone = against(gone_vectors, gone_codes, index.matrix, codes, threshold)
    delta = per_row_new - per_row_gone
    is_new = np.zeros(len(index.ids), dtype=bool)
    is_new[added] = True
    touched = np.flatnonzero(~is_new & (delta != 0))
    counts[touched] += delta[touched]
    counts[added] = per_probe - 1  # each new row met itself
    np.maximum(counts, 0, out=counts)
    writes = [(int(index.ids[p]), int(counts[p])) for p in np.concatenate([touched, added])]
    return DensityResult(
        counts,
        "incremental",
        time.perf_counter() - started,
        changed=len(added) + len(gone),
        writes=writes,
        drop=[int(i) for i in removed_ids],
        retired=list(retired),
    )


def save(
    store: Store, result: DensityResult, threshold: float, embedder: str, replace_all: bool = False
) -> None:
    """Write what `update` or a finished rebuild computed (inside the caller's transaction)."""
    state.write_density(store, result.writes, result.drop, result.retired, replace_all=replace_all)
    store.set_meta("density_threshold", repr(threshold))
    store.set_meta("density_embedder", embedder)


def is_built(store: Store, threshold: float, embedder: str) -> bool:
    return store.meta("density_threshold") == repr(threshold) and store.meta("density_embedder") == embedder


@dataclass
class _Build:
    ids: npt.NDArray[np.int64]
    counts: Counts
    next_row: int


def rebuild(
    store: Store,
    index: VectorIndex,
    threshold: float,
    embedder: str,
    folder: Path | None,
    budget_secs: float | None,
) -> DensityResult:
    """All-pairs counts, resumed from the checkpoint in `folder` if one matches; stops at the budget
    (saving a checkpoint) and returns mode "building" with its progress, or the finished counts."""
    started = time.perf_counter()
    build = _load_checkpoint(folder, threshold, embedder, index)
    if build is None:
        with store.transaction():
            state.clear_retired(store)  # edits from now on are changes against this snapshot
        build = _Build(index.ids.copy(), np.zeros(len(index.ids), dtype=np.int64), 0)
    deadline = None if budget_secs is None else time.monotonic() + budget_secs
    build.next_row = all_pairs(index.matrix, _codes(index), threshold, build.counts, build.next_row, deadline)
    total = len(build.ids)
    if build.next_row < total:
        _save_checkpoint(folder, threshold, embedder, build)
        progress = build.next_row / total if total else 1.0
        return DensityResult(None, "building", time.perf_counter() - started, progress)
    result = DensityResult(build.counts, "rebuilt", time.perf_counter() - started)
    result.writes = list(zip(build.ids.tolist(), build.counts.tolist(), strict=True))
    result.changed = total
    if folder is not None:
        (folder / CHECKPOINT).unlink(missing_ok=True)
    return result


def _load_checkpoint(
    folder: Path | None, threshold: float, embedder: str, index: VectorIndex
) -> _Build | None:
    """A saved build for this threshold and embedder over exactly the index's current rows
    (a build whose rows changed meanwhile starts over: its finished blocks no longer add up)."""
    if folder is None:
        return None
    try:
        with np.load(folder / CHECKPOINT) as saved:
            if float(saved["threshold"]) != threshold or str(saved["embedder"]) != embedder:
                return None
            ids, counts, next_row = saved["ids"], saved["counts"], int(saved["next_row"])
    except (FileNotFoundError, OSError, ValueError, KeyError):
        return None
    if len(ids) != len(index.ids) or not np.array_equal(ids, index.ids):
        return None
    return _Build(ids, counts.astype(np.int64), next_row)


def _save_checkpoint(folder: Path | None, threshold: float, embedder: str, build: _Build) -> None:
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / (CHECKPOINT + ".tmp")
    with open(temporary, "wb") as handle:
        np.savez(
            handle,
            ids=build.ids,
            counts=build.counts,
            next_row=np.int64(build.next_row),
            threshold=np.float64(threshold),
            embedder=np.array(embedder),
        )
    temporary.replace(folder / CHECKPOINT)


def forget_rows(
    store: Store, index: VectorIndex, rows: npt.NDArray[np.intp], counts: Counts, threshold: float
) -> None:
    """Take soft-deleted rows out of their neighbours' stored counts (inside the caller's transaction),
    so the next update starts from the live set and a nightly pass pays only for the day's changes."""
    if len(rows) == 0:
        return
    codes = _codes(index)
    _, per_row = against(
        index.matrix[rows], None if codes is None else codes[rows], index.matrix, codes, threshold
    )
    gone = np.zeros(len(index.ids), dtype=bool)
    gone[rows] = True
    touched = np.flatnonzero(~gone & (per_row > 0))
    counts[touched] = np.maximum(counts[touched] - per_row[touched], 0)
    state.write_density(
        store,
        [(int(index.ids[p]), int(counts[p])) for p in touched],
        [int(index.ids[p]) for p in rows],
        [],
    )
