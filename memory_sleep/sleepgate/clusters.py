"""Near-duplicate clusters among candidates: a redundant candidate may go only if a neighbour stays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..sidecar.vectors import VectorIndex

BLOCK = 1024


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
    firsts, seconds = _pairs(index, rows, threshold, codes)  # positions into rows, each pair once
    inside = np.bincount(firsts, minlength=len(rows)) + np.bincount(seconds, minlength=len(rows))
    enclosed = inside >= neighbours[rows]
    keep = enclosed[firsts] & enclosed[seconds]
    firsts, seconds = firsts[keep], seconds[keep]
    linked: dict[int, list[int]] = {}
    for a, b in zip(firsts.tolist(), seconds.tolist(), strict=True):
        linked.setdefault(a, []).append(b)
        linked.setdefault(b, []).append(a)
    order = np.flatnonzero(enclosed)
    order = order[np.argsort(-retention[rows[order]], kind="stable")]
    staying: set[int] = set()
    for position in order.tolist():
        if not any(other in staying for other in linked.get(position, ())):
            staying.add(position)
    return {int(rows[position]) for position in staying}


def _pairs(
    index: VectorIndex, rows: npt.NDArray[np.intp], threshold: float, codes: npt.NDArray[np.int32] | None
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Near pairs (i < j) among `rows`, as positions into it, in blocks."""
    vectors = index.matrix[rows]
    firsts: list[npt.NDArray[np.intp]] = []
    seconds: list[npt.NDArray[np.intp]] = []
    for start in range(0, len(rows), BLOCK):
        block = vectors[start : start + BLOCK]
        near = (block @ vectors[start:].T) >= threshold
        a, b = np.nonzero(near)
        a, b = a + start, b + start
        keep = b > a
        if codes is not None:
            keep &= codes[rows[a]] == codes[rows[b]]
        firsts.append(a[keep])
        seconds.append(b[keep])
    return np.concatenate(firsts), np.concatenate(seconds)
