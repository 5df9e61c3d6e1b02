"""Near-duplicate clusters among candidates: a redundant candidate may go only if a neighbour stays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..sidecar.vectors import VectorIndex

BLOCK = 4096


def last_of_clusters(
    index: VectorIndex,
    candidates: Sequence[int],
    neighbours: npt.NDArray[np.int64],
    retention: npt.NDArray[np.float64],
    threshold: float,
) -> set[int]:
    """Candidates (index rows) to keep so that every forgotten near-duplicate has a surviving
    neighbour. A candidate with a neighbour that is not a candidate needs nothing; among candidates
    whose neighbours are all candidates, the best scorer of each group stays."""
    rows = np.array([c for c in candidates if neighbours[c] > 0], dtype=np.intp)
    if len(rows) == 0:
        return set()
    codes = index.scope_codes if len(index.scope_names) > 1 else None
    inside = np.zeros(len(rows), dtype=np.int64)
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        near = _near(index, block, rows, threshold, codes)
        inside[start : start + len(block)] = np.count_nonzero(near, axis=1) - 1  # itself
    enclosed = rows[inside >= neighbours[rows]]
    if len(enclosed) == 0:
        return set()
    order = enclosed[np.argsort(-retention[enclosed], kind="stable")]
    survivors: set[int] = set()
    staying = np.zeros(len(index.ids), dtype=bool)
    for start in range(0, len(order), BLOCK):
        block = order[start : start + BLOCK]
        near = _near(index, block, order, threshold, codes)
        for offset, row in enumerate(block):
            if not staying[order[near[offset]]].any():
                survivors.add(int(row))
                staying[row] = True
    return survivors


def _near(
    index: VectorIndex,
    block: npt.NDArray[np.intp],
    rows: npt.NDArray[np.intp],
    threshold: float,
    codes: npt.NDArray[np.int32] | None,
) -> npt.NDArray[np.bool_]:
    near: npt.NDArray[np.bool_] = (index.matrix[block] @ index.matrix[rows].T) >= threshold
    if codes is not None:
        near &= codes[block][:, None] == codes[rows][None, :]
    return near
