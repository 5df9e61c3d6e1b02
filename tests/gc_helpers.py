"""GC on a small indexed workspace: a strategy's context over an open sidecar; decide, plan against an
empty MEMORY.md, apply to the sidecar."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime
from typing import Literal

from memory_sleep.config import Config, GcConfig
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.engines.base import Engine, Gardener
from memory_sleep.engines.offline import offline_engine
from memory_sleep.gc.actions import GcContext, StrategyName
from memory_sleep.gc.alike_memo import AlikeMemo
from memory_sleep.gc.apply import GcPlan, apply_to_sidecar, plan_edits
from memory_sleep.gc.run import decide
from memory_sleep.sidecar import Sidecar
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.workspace.memory_doc import MemoryDocument

from .sidecar_helpers import NOW

DAY = 86_400.0


def collect(
    sidecar: Sidecar,
    names: tuple[StrategyName, ...],
    now: float,
    config: GcConfig | None = None,
    dry: bool = False,
) -> GcPlan:
    decision = decide(sidecar, config or GcConfig(), offline_engine(), names, now, 30)
    today = datetime.fromtimestamp(now, UTC).date()
    plan = plan_edits(decision, DocumentEditor(MemoryDocument.parse("# MEMORY.md\n"), today), 0, today)
    if not dry:
        apply_to_sidecar(sidecar, plan, now)
    return plan


def deleted(sidecar: Sidecar) -> dict[str, str]:
    """text: deleted_reason of every soft-deleted entry."""
    rows = sidecar.store.db.execute("SELECT text, deleted_reason FROM entries WHERE deleted_at IS NOT NULL")
    return {text: reason for text, reason in rows}


def noon(day: date) -> float:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp()


def live_entries(sidecar: Sidecar, scope: str = "default") -> tuple[EntryRow, ...]:
    """Every live entry of `scope`, in id order."""
    ids = [row[0] for row in sidecar.store.db.execute("SELECT id FROM entries WHERE deleted_at IS NULL")]
    found = sidecar.store.fetch(ids)
    return tuple(found[i] for i in sorted(found) if found[i].scope == scope)


def gc_context(sidecar: Sidecar, gc: GcConfig | None = None, engine: Engine | None = None) -> GcContext:
    return GcContext(
        sidecar=sidecar,
        entries=live_entries(sidecar),
        scope="default",
        config=gc or Config().memory.gc,
        engine=engine or offline_engine(),
        now=NOW,
        stale_after_days=30,
    )


def with_gardener(context: GcContext, gardener: Gardener, memo: Literal["alike", "judged"]) -> GcContext:
    """`context` asked of the offline engine with another gardener, and the memo `memo` read from what
    `context`'s left (a new one if it has none): the next GC pass's."""
    last = getattr(context, memo)
    return dataclasses.replace(
        context,
        engine=dataclasses.replace(offline_engine(), gardener=gardener),
        **{memo: AlikeMemo(last.dumped() if last is not None else None)},
    )


def texts(sidecar: Sidecar, ids: list[int]) -> list[str]:
    found = sidecar.store.fetch(ids)
    return [found[i].text for i in ids]
