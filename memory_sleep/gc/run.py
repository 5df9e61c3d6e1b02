"""One GC run's decisions: every selected strategy, in STRATEGIES order, on each scope's live entries.

Strategies change nothing; a later strategy sees what an earlier one decided (an entry already
removed is not counted against capacity; a fresh rating is what decay reads). `apply.py` turns the
actions into plan edits and sidecar writes.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memory_sleep.config import GcConfig
from memory_sleep.engines.base import Engine
from memory_sleep.errors import ConfigError
from memory_sleep.gc.actions import STRATEGIES, GcAction, GcContext, StrategyName
from memory_sleep.gc.alike_memo import JUDGED_KEY, MEMO_KEY, AlikeMemo
from memory_sleep.gc.entries import categories, live_by_scope, memory_section, replacing, restored_at
from memory_sleep.gc.note_categories import CACHE_KEY, NoteCategories
from memory_sleep.gc.registry import REGISTRY
from memory_sleep.sidecar.recall import Sidecar
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sleepgate.undo import unused_pass_id
from memory_sleep.workspace.state import StateStore

REMOVING = ("soft_delete", "merge", "summarize")


@dataclass
class GcDecision:
    """What one GC run decided (and, once applied, did)."""

    pass_id: str
    strategies: tuple[StrategyName, ...]
    entries: int = 0
    scopes: int = 0
    actions: list[GcAction] = field(default_factory=list)
    rows: dict[int, EntryRow] = field(default_factory=dict)  # every live entry, as read
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)  # actions left for a later run, and why
    note_categories: str | None = None  # the note-state files' categories as read, kept for the next run
    alike_pairs: str | None = None  # compaction's pairs, kept for the next run
    judged_pairs: str | None = None  # contradiction's pairs judged to change nothing, kept for the next run

    def counts(self) -> dict[str, int]:
        """Entries each strategy removed, marked or rated, for sleep-log.json and reports."""
        counted: dict[str, int] = {}
        for action in self.actions:
            key = f"{action.strategy}_{action.op}"
            counted[key] = counted.get(key, 0) + len(action.ids)
        return counted


def new_pass_id(now: float) -> str:
    return "gc-" + datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S%fZ")


def selected(names: Sequence[str], config: GcConfig) -> tuple[StrategyName, ...]:
    """The strategies to run, in their order: `all` is every enabled registered one; a named one
    runs even when disabled (it was asked for). ConfigError for a name no strategy has."""
    unknown = [name for name in names if name != "all" and name not in STRATEGIES]
    if unknown:
        raise ConfigError(f"No GC strategy {unknown[0]!r}: choose from {', '.join(STRATEGIES)} or all.")
    missing = [name for name in names if name in STRATEGIES and name not in REGISTRY]
    if missing:
        raise ConfigError(f"GC strategy {missing[0]!r} is not built into this version of memory-sleep.")
    if "all" in names:
        return tuple(name for name in STRATEGIES if name in REGISTRY and getattr(config, name).enabled)
    return tuple(name for name in STRATEGIES if name in names)


def decide(
    sidecar: Sidecar,
    config: GcConfig,
    engine: Engine,
    strategies: Sequence[StrategyName],
    now: float,
    stale_after_days: int,
    memory_uses: Mapping[tuple[str | None, str], float] | None = None,
) -> GcDecision:
    """Every strategy's actions on every scope of the sidecar, as the last index left it.
    `memory_uses`: when a note last referenced each entry of MEMORY.md, by (section, text)."""
    started = time.perf_counter()
    decision = GcDecision(unused_pass_id(sidecar.store, new_pass_id(now)), tuple(strategies))
    scopes = live_by_scope(sidecar.store)
    decision.scopes = len(scopes)
    uses = restored_at(sidecar.store)
    for entries in scopes.values():
        for entry in entries:
            moment = (memory_uses or {}).get((memory_section(entry), entry.text))
            if moment is not None:
                uses[entry.id] = max(moment, uses.get(entry.id, 0.0))
    current = replacing(sidecar.workspace, (entry for entries in scopes.values() for entry in entries))
    notes = (
        NoteCategories(StateStore(sidecar.workspace.state_dir), sidecar.store.meta(CACHE_KEY))
        if sidecar.workspace is not None
        else None
    )
    alike = AlikeMemo(sidecar.store.meta(MEMO_KEY))
    judged = AlikeMemo(sidecar.store.meta(JUDGED_KEY))
    for scope, entries in sorted(scopes.items()):
        decision.entries += len(entries)
        decision.rows.update((entry.id, entry) for entry in entries)
        context = GcContext(
            sidecar,
            tuple(entries),
            scope,
            config,
            engine,
            now,
            stale_after_days,
            uses,
            categories(entries, notes),
            current,
            alike,
            judged,
        )
        for name in strategies:
            actions = REGISTRY[name].plan(context)
            decision.actions.extend(actions)
            context = _after(context, actions)
    decision.note_categories = notes.dumped() if notes is not None else None
    decision.alike_pairs = alike.dumped() if "compaction" in strategies else None
    decision.judged_pairs = judged.dumped() if "contradiction" in strategies else None
    decision.seconds = time.perf_counter() - started
    return decision


def _after(context: GcContext, actions: Sequence[GcAction]) -> GcContext:
    """The context a later strategy sees: entries removed are gone, ratings are the new ones."""
    if not actions:
        return context
    gone = {
        entry_id for action in actions if action.op in (*REMOVING, "supersede") for entry_id in action.ids
    }
    rated = {
        entry_id: action.importance
        for action in actions
        if action.op == "rate" and action.importance is not None
        for entry_id in action.ids
    }
    entries = tuple(
        _rated(entry, rated[entry.id]) if entry.id in rated else entry
        for entry in context.entries
        if entry.id not in gone
    )
    return dataclasses.replace(context, entries=entries)


def _rated(entry: EntryRow, importance: float) -> EntryRow:
    """A copy with a new importance: dataclasses.replace re-runs __init__ and cost a third of a
    100k-entry run."""
    copy = object.__new__(EntryRow)
    copy.__dict__.update(entry.__dict__, importance=importance)
    return copy
