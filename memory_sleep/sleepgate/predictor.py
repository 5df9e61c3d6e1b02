"""The compression predictor: replay logged queries against the live vectors once, then judge a
whole batch of deletion candidates together.

Each query's top-(k+m) is computed once. Removing candidates only drops them from those lists and
promotes the next results, so no query is searched again per candidate. A removed entry still
counts as recalled when a near-duplicate (within the density threshold) is in the query's new
top-k; the predictor keeps, one at a time, the best-ranked entry whose loss a query cannot absorb,
until no query's recall@k drops by more than the tolerance. Two near-duplicates that cover for
each other therefore cannot both go if a query needs one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate.pairs import MIN_BUFFER
from memory_sleep.sleepgate.state import LoggedQuery

Positions = npt.NDArray[np.intp]


@dataclass(frozen=True)
class Replay:
    """Each query's best live rows, best first (-1 pads short lists), and the rows it must keep
    recalling: its top-k plus whatever recall actually served it (also found by full-text search)."""

    ranked: npt.NDArray[np.intp]
    k: list[int]
    needed: list[Positions]


@dataclass
class Judgement:
    """Which candidates are load-bearing, and each query's recall@k after the removals (1.0 before)."""

    load_bearing: dict[int, int] = field(default_factory=dict)  # row -> queries that needed it
    recall_after: list[float] = field(default_factory=list)


def _rows_per_block(queries: int, index: VectorIndex) -> int:
    """Index rows scored per block: the scores and argpartition's positions (12 bytes a cell) within
    an eighth of the raw vectors (1 MB at least), and never fewer rows than a top list holds."""
    budget = max(MIN_BUFFER, index.matrix.nbytes // 8)
    return max(256, budget // (12 * max(queries, 1)))


def top_lists(index: VectorIndex, queries: Sequence[LoggedQuery], margin: int) -> npt.NDArray[np.intp]:
    """Rows of each query's top-(k + margin) live entries of its scope, best first, in one blocked pass."""
    depth = max((query.k for query in queries), default=0) + margin
    count = len(index.ids)
    if not queries or count == 0:
        return np.full((len(queries), 0), -1, dtype=np.intp)
    depth = min(depth, count)
    embeddings = np.stack([query.embedding for query in queries]).astype(np.float32)
    scope_codes = np.array(
        [
            -1
            if query.scope is None
            else (index.scope_names.index(query.scope) if query.scope in index.scope_names else -2)
            for query in queries
        ],
        dtype=np.int32,
    )
    scoped = bool(np.any(scope_codes != -1))
    best_scores = np.full((len(queries), depth), -np.inf, dtype=np.float32)
    best_rows = np.full((len(queries), depth), -1, dtype=np.intp)
    step = _rows_per_block(len(queries), index)
    for start in range(0, count, step):
        stop = min(start + step, count)
        scores = embeddings @ index.matrix[start:stop].T  # queries x rows: partitions run along rows
        if scoped:
            allowed = (scope_codes[:, None] == -1) | (
                scope_codes[:, None] == index.scope_codes[None, start:stop]
            )
            scores = np.where(allowed, scores, np.float32(-np.inf))
        take = min(depth, stop - start)
        part = np.argpartition(scores, stop - start - take, axis=1)[:, stop - start - take :]
        merged_scores = np.concatenate([best_scores, np.take_along_axis(scores, part, axis=1)], axis=1)
        merged_rows = np.concatenate([best_rows, part + start], axis=1)
        keep = np.argpartition(merged_scores, merged_scores.shape[1] - depth, axis=1)[:, -depth:]
        best_scores = np.take_along_axis(merged_scores, keep, axis=1)
        best_rows = np.take_along_axis(merged_rows, keep, axis=1)
    order = np.argsort(-best_scores, axis=1, kind="stable")
    best_rows = np.take_along_axis(best_rows, order, axis=1)
    best_rows[~np.isfinite(np.take_along_axis(best_scores, order, axis=1))] = -1
    ranked: npt.NDArray[np.intp] = best_rows
    return ranked


def replay(index: VectorIndex, queries: Sequence[LoggedQuery], margin: int) -> Replay:
    ranked = top_lists(index, queries, margin)
    needed: list[Positions] = []
    for row, query in enumerate(queries):
        top = [int(p) for p in ranked[row, : query.k] if p >= 0]
        served = np.array(query.served, dtype=np.int64)
        if len(served) and len(index.ids):
            positions = np.minimum(np.searchsorted(index.ids, served), len(index.ids) - 1)
            top.extend(int(p) for p in positions[index.ids[positions] == served] if int(p) not in top)
        needed.append(np.array(top, dtype=np.intp))
    return Replay(ranked, [query.k for query in queries], needed)


def judge(
    index: VectorIndex, played: Replay, candidates: Sequence[int], threshold: float, tolerance: float
) -> Judgement:
    """Decide which of `candidates` (index rows) must stay so that no replayed query loses more than
    `tolerance` of its recall@k; the rest can be removed together."""
    removing = np.zeros(len(index.ids), dtype=bool)
    removing[np.asarray(candidates, dtype=np.intp)] = True
    judgement = Judgement()
    touched = [q for q, needed in enumerate(played.needed) if len(needed) and removing[needed].any()]
    settled = {q: 1.0 for q in range(len(played.needed))}
    pending = list(touched)
    while pending:
        again: set[int] = set()
        for q in pending:
            lost = _uncovered(index, played, q, removing, threshold)
            needed = played.needed[q]
            recall = 1.0 - len(lost) / len(needed) if len(needed) else 1.0
            if 1.0 - recall > tolerance + 1e-12:
                keep = lost[0]
                removing[keep] = False
                judgement.load_bearing[keep] = judgement.load_bearing.get(keep, 0) + 1
                again.add(q)
                # keeping a row puts it back in other queries' lists, which may push out a cover
                again.update(t for t in touched if keep in played.ranked[t])
            else:
                settled[q] = recall
        pending = sorted(again)
    judgement.recall_after = [settled[q] for q in range(len(played.needed))]
    return judgement


def _uncovered(
    index: VectorIndex, played: Replay, q: int, removing: npt.NDArray[np.bool_], threshold: float
) -> list[int]:
    """Needed rows of query q being removed with no near-duplicate in its new top-k, best-ranked first."""
    needed = played.needed[q]
    gone = needed[removing[needed]]
    if len(gone) == 0:
        return []
    ranked = played.ranked[q]
    ranked = ranked[ranked >= 0]
    after = ranked[~removing[ranked]][: played.k[q]]
    if len(after) == 0:
        return [int(p) for p in gone]
    similarity = index.matrix[gone] @ index.matrix[after].T
    covered = (similarity >= threshold).any(axis=1)
    return [int(p) for p in gone[~covered]]
