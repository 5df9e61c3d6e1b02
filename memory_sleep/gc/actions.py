"""What a garbage-collection strategy decides, as data: actions that the GC run checks and applies.

A strategy reads the live entries of one scope (`GcContext`) and returns `GcAction`s; it changes
nothing itself. The GC run applies them in one place: soft deletes and links in the sidecar (every
one restorable, `memory-sleep restore --pass ID`), and, for entries of MEMORY.md, edits of the
run's plan (archive, update, supersede), so that snapshots, undo, sleep-log.json and the loss guard
cover them like any other change. Meaning (which entries say the same thing, which one supersedes
another, what a merge or a summary says, how useful an entry is) is decided by the engine, never
by a strategy's own rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field, model_validator

from memory_sleep.models import Strict

if TYPE_CHECKING:
    from memory_sleep.config import GcConfig
    from memory_sleep.engines.base import Engine
    from memory_sleep.gc.alike_memo import AlikeMemo
    from memory_sleep.sidecar.recall import Sidecar
    from memory_sleep.sidecar.rows import EntryRow

StrategyName = Literal[
    "ttl", "decay", "usage", "capacity", "compaction", "contradiction", "importance", "summarization"
]
STRATEGIES: tuple[StrategyName, ...] = (
    "ttl",
    "importance",
    "decay",
    "usage",
    "contradiction",
    "compaction",
    "capacity",
    "summarization",
)  # the order a full cycle runs them in: ratings first, capacity after what frees room anyway

GcOp = Literal["soft_delete", "merge", "supersede", "rate", "summarize", "review"]


class GcAction(Strict):
    """One decision of one strategy about sidecar entries (ids as the sidecar stores them)."""

    strategy: StrategyName
    op: GcOp = Field(
        description="soft_delete: take `ids` out of recall (restorable); merge: `ids` say one thing, "
        "`text` is the canonical statement, the originals are soft-deleted and linked to it; supersede: "
        "`ids` (one older entry) stopped being true, `into` is the newer entry; rate: set `importance` "
        "of `ids`; summarize: `text` replaces the archived `ids`, soft-deleted and linked; review: an "
        "uncertain judgement, listed for a person (status, briefing warnings), never applied"
    )
    ids: list[int] = Field(min_length=1)
    reason: str = Field(min_length=1, description="why, in words a person reads in the report")
    into: int | None = Field(default=None, description="supersede and review: the newer entry")
    text: str | None = Field(default=None, description="merge and summarize: the statement kept")
    importance: float | None = Field(default=None, ge=0, le=1, description="rate: the new importance")
    day: date | None = Field(default=None, description="the day the change took effect")

    @model_validator(mode="after")
    def _shape(self) -> GcAction:
        if (self.op in ("merge", "summarize")) != (self.text is not None):
            raise ValueError("merge and summarize, and only they, carry the statement they keep")
        if (self.op == "rate") != (self.importance is not None):
            raise ValueError("rate, and only it, carries an importance")
        if self.op == "supersede" and (self.into is None or len(self.ids) != 1):
            raise ValueError("supersede names one older entry and the newer one (`into`)")
        return self


@dataclass(frozen=True)
class GcContext:
    """What a strategy reads: one scope's live entries of an open sidecar, the settings, the engine."""

    sidecar: Sidecar
    entries: tuple[EntryRow, ...]
    scope: str
    config: GcConfig
    engine: Engine
    now: float  # Unix seconds; strategies never read the clock themselves
    stale_after_days: int
    used: Mapping[int, float] = field(default_factory=dict)  # id: a note's last reference, or a restore
    categories: Mapping[int, str] = field(default_factory=dict)  # id: category, or why NREM discarded it
    replacing: frozenset[int] = frozenset()  # still-valid lines that superseded an entry (current values)
    alike: AlikeMemo | None = None  # compaction's pairs of the last pass, and this pass's
    judged: AlikeMemo | None = None  # contradiction's pairs judged to change nothing, declined the same way


class Strategy(Protocol):
    name: StrategyName

    def plan(self, context: GcContext) -> list[GcAction]:
        """The strategy's actions on the scope; empty when it has nothing to do."""
        ...
