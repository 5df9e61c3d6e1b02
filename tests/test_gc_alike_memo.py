"""Compaction's pairs kept between passes: a pass compares only the rows whose vector changed, and
finds exactly the pairs comparing every row with every other finds."""

from __future__ import annotations

import numpy as np
import pytest

from memory_sleep.gc import alike_memo
from memory_sleep.gc.alike_memo import AlikeMemo
from memory_sleep.gc.neighbours import alike_pairs
from memory_sleep.sidecar.embed import l2_normalise

THRESHOLD = 0.85


def _rows(generator: np.random.Generator, count: int) -> np.ndarray:
    centres = generator.normal(size=(max(1, count // 4), 16))
    return centres[generator.integers(0, len(centres), count)] + generator.normal(scale=0.2, size=(count, 16))


@pytest.mark.parametrize("seed", range(5))
def test_a_pass_after_changes_finds_what_comparing_everything_finds(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = np.random.default_rng(seed)
    vectors = dict(enumerate(l2_normalise(_rows(generator, 80)), start=1))
    first = AlikeMemo(None)
    ids = sorted(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    assert first.pairs("default/note", ids, matrix, THRESHOLD) == alike_pairs(matrix, THRESHOLD)

    for gone in generator.choice(ids, 10, replace=False).tolist():  # deleted or superseded
        del vectors[gone]
    for edited in generator.choice(sorted(vectors), 5, replace=False).tolist():  # re-embedded
        vectors[edited] = l2_normalise(_rows(generator, 1))[0]
    vectors.update(enumerate(l2_normalise(_rows(generator, 12)), start=100))  # new
    vectors[200] = vectors[ids[3]] if ids[3] in vectors else vectors[100]  # a repeat: similarity 1
    ids = sorted(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    expected = alike_pairs(matrix, THRESHOLD)

    def everything(*_: object) -> None:
        raise AssertionError("compared every row again")

    monkeypatch.setattr(alike_memo, "alike_pairs", everything)
    assert AlikeMemo(first.dumped()).pairs("default/note", ids, matrix, THRESHOLD) == expected


def test_another_threshold_or_group_or_a_damaged_memo_compares_everything() -> None:
    matrix = l2_normalise(_rows(np.random.default_rng(0), 30))
    ids = list(range(30))
    memo = AlikeMemo(None)
    memo.pairs("default/note", ids, matrix, THRESHOLD)
    for cached, group, threshold in [
        (memo.dumped(), "default/note", 0.9),
        (memo.dumped(), "default/memory", THRESHOLD),
        ('{"version": 1, "groups": 2}', "default/note", THRESHOLD),
        ("{", "default/note", THRESHOLD),
    ]:
        assert AlikeMemo(cached).pairs(group, ids, matrix, threshold) == alike_pairs(matrix, threshold)
