"""Which entries are alike: `nearest` on some rows is what it is on all of them, and `within_reach`
leaves out only rows whose nearest hold none of the targets, however many rows tie."""

from __future__ import annotations

import numpy as np
import pytest

from memory_sleep.gc import neighbours
from memory_sleep.gc.neighbours import nearest, within_reach
from memory_sleep.sidecar.embed import l2_normalise


def _matrix(rows: int, seed: int) -> np.ndarray:
    generator = np.random.default_rng(seed)
    distinct = np.round(generator.normal(size=(rows // 2, 8)), 1)
    repeated = distinct[generator.integers(0, len(distinct), rows)]  # many rows the same: ties
    return l2_normalise(repeated)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 5])
def test_rows_out_of_reach_have_no_target_among_their_nearest(
    seed: int, k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(neighbours, "BLOCK_FLOATS", 500)  # several blocks
    matrix = _matrix(120, seed)
    targets = sorted(np.random.default_rng(seed).choice(120, 3, replace=False).tolist())
    every = nearest(matrix.copy(), k)
    reach = within_reach(matrix, targets, k)
    assert set(targets) <= set(reach) and len(reach) < 120
    assert nearest(matrix.copy(), k, reach) == [every[row] for row in reach]
    for row in set(range(120)) - set(reach):
        assert not set(every[row]) & set(targets)
    # asked for targets, a row in reach that is none goes unranked only when its nearest hold none
    aimed = nearest(matrix.copy(), k, reach, targets)
    for row, found in zip(reach, aimed, strict=True):
        assert found == every[row] or (
            not found and row not in targets and not set(every[row]) & set(targets)
        )
    assert any(not found for found in aimed) and nearest(matrix.copy(), k, reach, []) == [[] for _ in reach]


def test_too_few_rows_to_sample_are_all_in_reach() -> None:
    matrix = _matrix(9, 0)
    assert within_reach(matrix, [4], 5) == list(range(9))
    assert within_reach(matrix, [], 5) == []
