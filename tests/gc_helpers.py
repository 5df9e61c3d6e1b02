"""Shared helpers for the garbage-collection strategy tests: a context over an open sidecar."""

from __future__ import annotations

from memory_sleep.config import Config, GcConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.offline import offline_engine
from memory_sleep.gc.actions import GcContext
from memory_sleep.sidecar import Sidecar
from memory_sleep.sidecar.rows import EntryRow

from .sidecar_helpers import NOW


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


def texts(sidecar: Sidecar, ids: list[int]) -> list[str]:
    found = sidecar.store.fetch(ids)
    return [found[i].text for i in ids]
