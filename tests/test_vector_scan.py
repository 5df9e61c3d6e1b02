"""The vector scan shared with a helper thread gives the very scores and top rows of the scan alone,
whatever share the helper takes: none (busy, then cancelled), some, or most; the top rows are those a
full sort ranks first."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from memory_sleep.sidecar.vectors import BLOCK_ROWS, VectorIndex, highest


def _index(rows: int, seed: int = 0, dim: int = 32) -> VectorIndex:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    matrix[rows // 2 :: 7] = matrix[:1]  # ties: equal rows score equal
    return VectorIndex(
        np.arange(1, rows + 1, dtype=np.int64) * 3,
        np.zeros(rows, dtype=np.int32),
        ["default"],
        matrix,
        generation=1,
    )


@pytest.mark.parametrize("rows", [0, 1, BLOCK_ROWS - 1, BLOCK_ROWS, BLOCK_ROWS + 1, 5 * BLOCK_ROWS + 17])
def test_a_scan_shared_with_a_free_helper_equals_the_scan_alone(rows: int) -> None:
    index = _index(rows)
    query = np.random.default_rng(1).standard_normal(32).astype(np.float32)
    alone = index.similarities(query)
    with ThreadPoolExecutor(max_workers=1) as helper:
        for _ in range(20):  # the helper's share differs from run to run; the scores never do
            assert np.array_equal(index.similarities(query, helper), alone)
            assert index.top(query, 50, helper=helper) == index.top(query, 50)


def test_a_helper_busy_for_the_whole_scan_takes_no_block_and_is_not_waited_for() -> None:
    index = _index(3 * BLOCK_ROWS + 5)
    query = np.random.default_rng(2).standard_normal(32).astype(np.float32)
    release = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as helper:
        busy = helper.submit(release.wait, 30)
        shared = index.similarities(query, helper)  # returns while the helper is still busy
        assert not busy.done()
        release.set()
    assert np.array_equal(shared, index.similarities(query))


def test_top_with_a_helper_keeps_the_scope_and_the_ties() -> None:
    index = _index(2 * BLOCK_ROWS + 3)
    index.scope_codes[::2] = 1
    index.scope_names = ["a", "b"]
    query = np.asarray(index.matrix[0])
    with ThreadPoolExecutor(max_workers=1) as helper:
        for scope in (None, "a", "b", "missing"):
            assert index.top(query, 40, scope, helper) == index.top(query, 40, scope)
    tied = index.top(query, 40)
    assert len({score for _, score in tied[:5]}) == 1  # the copies of row 0 tie at the top


@pytest.mark.parametrize(
    ("rows", "n", "levels"),
    [(1, 1, 400), (50, 50, 400), (9_000, 50, 400), (40_000, 1, 400), (40_000, 3_000, 400), (20_000, 50, 1)],
)
def test_the_highest_scores_are_a_full_sorts_first_ties_in_position_order(
    rows: int, n: int, levels: int
) -> None:
    rng = np.random.default_rng(rows + n)
    scores = rng.integers(0, levels, rows).astype(np.float32)  # many ties; with one level, all tie
    scores[-5:] = 500.0  # the best past the first slice
    expected = np.lexsort((np.arange(rows), -scores))[:n]
    assert highest(scores, n).tolist() == expected.tolist()


def test_a_scoped_top_is_the_best_of_the_scopes_rows_alone() -> None:
    index = _index(20_000)
    index.scope_codes[:15_000] = 1  # the scope's rows all lie past the first slice
    index.scope_names = ["a", "b"]
    query = np.random.default_rng(3).standard_normal(32).astype(np.float32)
    scores = index.similarities(query)
    rows = np.flatnonzero(index.scope_codes == 0)
    expected = rows[np.lexsort((rows, -scores[rows]))][:50]
    assert [entry_id for entry_id, _ in index.top(query, 50, "a")] == index.ids[expected].tolist()
