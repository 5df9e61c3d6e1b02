"""A density count in progress: entries in build order, their counts so far, how far it got,
and the near pairs it found."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Ids = npt.NDArray[np.int64]
Counts = npt.NDArray[np.int64]


@dataclass
class Build:
    """Entries in build order and their neighbour counts; pairs with an end among the first
    `next_row` are all counted (a finished build has next_row == len(ids)). `pairs` lists the near
    pairs counted, by id, while they are few enough to keep (None: not kept)."""

    ids: Ids
    counts: Counts
    next_row: int
    pairs: tuple[Ids, Ids] | None = None

    def keep_pairs(self, firsts: Ids, seconds: Ids) -> None:
        """Add newly counted pairs, or stop keeping pairs once there are too many to be worth it."""
        if self.pairs is None:
            return
        if len(self.pairs[0]) + len(firsts) > pair_limit(len(self.ids)):
            self.pairs = None
            return
        self.pairs = (np.concatenate([self.pairs[0], firsts]), np.concatenate([self.pairs[1], seconds]))

    @property
    def done(self) -> bool:
        return self.next_row >= len(self.ids)


def pair_limit(entries: int) -> int:
    """Pairs a build keeps (16 bytes each): a few per entry, beyond which data this redundant pays
    for a recount of removals instead."""
    return 4 * entries + 100_000
