"""Each retention signal moves the composite score the right way."""

from __future__ import annotations

import numpy as np
import pytest

from memory_sleep.config import RetentionWeights
from memory_sleep.sleepgate import scoring

from .sleepgate_helpers import DAY, NOW, forget, store_with, unit

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

WEIGHTS = RetentionWeights()


def composite(recent: float, accesses: int, neighbours: int) -> float:
    score = scoring.retention(
        np.array([recent]),
        scoring.frequency(np.array([accesses]), 20),
        scoring.density(np.array([neighbours])),
        WEIGHTS,
    )
    return float(score[0])


def test_signals_stay_in_unit_range() -> None:
    touched = np.array([NOW, NOW - 30 * DAY, NOW - 3000 * DAY, NOW + DAY])
    recent = scoring.recency(touched, NOW, 30.0)
    assert recent[0] == 1.0 and abs(recent[1] - 0.5) < 1e-9 and 0 <= recent[2] < 0.01 and recent[3] == 1.0
    frequent = scoring.frequency(np.array([0, 1, 20, 10_000]), 20)
    assert frequent[0] == 0.0 and 0 < frequent[1] < frequent[2] == 1.0 == frequent[3]
    dense = scoring.density(np.array([0, 1, 3]))
    assert list(dense) == [0.0, 0.5, 0.75]


def test_each_signal_moves_the_score_the_right_way() -> None:
    base = composite(0.2, 1, 1)
    assert composite(0.9, 1, 1) > base  # more recent: higher
    assert composite(0.2, 15, 1) > base  # accessed more: higher
    assert composite(0.2, 1, 6) < base  # more near-duplicates: lower
    assert composite(0.2, 1, 0) > base  # unique: higher


def test_pass_scores_recency_and_access_from_the_store() -> None:
    vectors = [unit(i) for i in range(3)]
    store, ids = store_with(vectors)
    store.db.execute("UPDATE entries SET updated_at = ? WHERE id = ?", (NOW, ids[1]))
    store.record_access([ids[2]] * 5, NOW - 365 * DAY)
    report = forget(store, dry_run=True)
    score = {v.id: v for v in report.verdicts}
    assert score[ids[1]].recency > score[ids[0]].recency
    assert score[ids[2]].frequency > score[ids[0]].frequency
    assert score[ids[1]].retention > score[ids[0]].retention
    assert score[ids[2]].retention > score[ids[0]].retention


def test_a_near_duplicate_lowers_density_score() -> None:
    base = unit(1)
    store, ids = store_with([base, unit(2, base, 0.01), unit(3)])
    report = forget(store, dry_run=True)
    score = {v.id: v for v in report.verdicts}
    assert score[ids[0]].neighbours == 1 and score[ids[2]].neighbours == 0
    assert score[ids[0]].retention < score[ids[2]].retention
