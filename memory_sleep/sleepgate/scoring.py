"""Retention signals, each in [0, 1], and the composite score that decides who is a candidate."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memory_sleep.config import ForgettingConfig, RetentionWeights

Floats = npt.NDArray[np.float64]
DAY = 86_400.0


def recency(touched: Floats, now: float, half_life_days: float) -> Floats:
    """0.5 ** (days since last written, accessed or restored / half-life): 1 now, 0.5 after a half-life."""
    age_days = np.maximum(0.0, (now - touched) / DAY)
    result: Floats = np.power(0.5, age_days / half_life_days)
    return result


def frequency(access_counts: npt.NDArray[np.int64], saturation: int) -> Floats:
    """log(1 + accesses) / log(1 + saturation), capped at 1: the first recalls count most."""
    result: Floats = np.minimum(1.0, np.log1p(access_counts.astype(np.float64)) / math.log1p(saturation))
    return result


def density(neighbours: npt.NDArray[np.int64]) -> Floats:
    """1 - 1 / (1 + near neighbours): 0 for a unique entry, 0.5 with one near-duplicate, towards 1."""
    result: Floats = 1.0 - 1.0 / (1.0 + np.maximum(neighbours, 0).astype(np.float64))
    return result


def retention(recent: Floats, frequent: Floats, dense: Floats, weights: RetentionWeights) -> Floats:
    """The weighted mean of recency, frequency and uniqueness (1 - density)."""
    total = weights.recency + weights.frequency + weights.density
    if total <= 0:
        return np.ones_like(recent)
    result: Floats = (
        weights.recency * recent + weights.frequency * frequent + weights.density * (1.0 - dense)
    ) / total
    return result


@dataclass(frozen=True)
class Scores:
    """Every live entry's signals, aligned with the vector index's rows."""

    recency: Floats
    frequency: Floats
    density: Floats
    retention: Floats
    neighbours: npt.NDArray[np.int64]
    access_counts: npt.NDArray[np.int64]


def importance_factor(importance: Floats) -> Floats:
    """min(1, 0.5 + importance): an entry the engine rated at least 0.5 keeps its score; one rated
    less loses up to half of it (0.3, a plain note's default, keeps 0.8)."""
    result: Floats = np.minimum(1.0, 0.5 + np.clip(importance, 0.0, 1.0))
    return result


def score(
    touched: Floats,
    access_counts: npt.NDArray[np.int64],
    neighbours: npt.NDArray[np.int64],
    config: ForgettingConfig,
    now: float,
    importance: Floats | None = None,
) -> Scores:
    """Each entry's three signals and composite retention under the pass's settings, weighed by the
    entry's importance (GC's rating) when given."""
    recent = recency(touched, now, config.half_life_days)
    frequent = frequency(access_counts, config.frequency_saturation)
    dense = density(neighbours)
    kept = retention(recent, frequent, dense, config.weights)
    if importance is not None:
        kept = kept * importance_factor(importance)
    return Scores(recent, frequent, dense, kept, neighbours, access_counts)
