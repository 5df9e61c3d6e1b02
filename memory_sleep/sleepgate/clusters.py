"""Near-duplicate clusters among candidates: a redundant candidate may go only if a neighbour stays."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memory_sleep.sleepgate.density import Groups
from memory_sleep.sleepgate.pairs import PairLog, Positions, all_pairs


def last_of_clusters(
    index: Groups,
    candidates: Sequence[int],
    neighbours: npt.NDArray[np.int64],
    retention: npt.NDArray[np.float64],
    threshold: float,
    near: tuple[Positions, Positions] | None = None,
) -> set[int]:
    """Candidates (index rows) to keep so that every forgotten near-duplicate has a surviving
    neighbour. A candidate with a neighbour that is not a candidate needs nothing; among candidates
    whose neighbours are all candidates, the best scorer of each group stays. `near` (every near
    pair of the index, by row, when a rebuild just listed them) saves counting pairs again."""
    rows = np.array([c for c in candidates if neighbours[c] > 0], dtype=np.intp)
    if len(rows) == 0:
        return set()
    firsts, seconds = _pairs_among(index, rows, threshold, near)  # positions into rows
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


def _pairs_among(
    index: Groups, rows: Positions, threshold: float, near: tuple[Positions, Positions] | None
) -> tuple[Positions, Positions]:
    """Near pairs among `rows`, each once, as positions into `rows`."""
    if near is not None:
        position = np.full(len(index.ids), -1, dtype=np.intp)
        position[rows] = np.arange(len(rows))
        firsts, seconds = position[near[0]], position[near[1]]
        inside = (firsts >= 0) & (seconds >= 0)
        return firsts[inside], seconds[inside]
    codes = index.scope_codes[rows] if len(index.scope_names) > 1 else None
    found = PairLog(limit=sys.maxsize)
    all_pairs(index.matrix, codes, threshold, np.zeros(len(rows), dtype=np.int64), order=rows, log=found)
    return found.pairs() or (np.zeros(0, np.intp), np.zeros(0, np.intp))
