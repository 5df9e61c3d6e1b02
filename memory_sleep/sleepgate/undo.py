"""Undo of a run's sidecar passes: what SleepGate's forgetting pass and a GC run changed in the
sidecar, put back as it was before the run (`memory-sleep undo`, with the run's files).

A GC run keeps, in the transaction of its changes, what it changed and the values it overwrote (an
undo record in the meta table); SleepGate's pass needs none: its soft deletes and its pass record
carry its id. Undoing is one transaction and touches only what a pass still holds, so an undo asked
twice, or interrupted and asked again, ends in the same state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from memory_sleep.gc.entries import set_importance
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sleepgate import state

RECORD_KEY = "gc_undo:"  # + pass id: the meta key of a GC run's undo record
UNDONE = "undone"  # soft-delete reason of an entry a pass inserted, once the pass is undone
Ending = tuple[str | None, str | None, str | None]  # valid_to, status, ended_by


class PassChanges(BaseModel):
    """What a GC run changed in the sidecar, with the values it overwrote."""

    model_config = ConfigDict(extra="forbid")

    deleted: list[int] = Field(default_factory=list)  # soft-deleted by the run
    inserted: list[int] = Field(default_factory=list)  # merged statements and summaries it added
    meta: dict[str, str | None] = Field(default_factory=dict)  # marks it set: value before (None: unset)
    # ratings it set: the entries by rating before (a first rating covers every entry, of few ratings)
    importance: dict[float, list[int]] = Field(default_factory=dict)
    endings: dict[int, Ending] = Field(default_factory=dict)  # validity it set: validity before
    # `memory-sleep restore`: the entries it brought back, as they were deleted (at, reason, pass),
    # and when each was last restored before (None: never)
    restored: dict[int, tuple[float, str, str | None]] = Field(default_factory=dict)
    restored_at: dict[int, float | None] = Field(default_factory=dict)


def before_pass(
    store: SidecarStore, rated: Iterable[EntryRow], ended: Iterable[int], marks: Sequence[str]
) -> PassChanges:
    """The values a GC run is about to overwrite, inside its transaction before it writes: `rated`
    as the run read them (the run alone rates), the validity of `ended` and the meta `marks`."""
    importance: dict[float, list[int]] = defaultdict(list)
    for entry in rated:
        importance[entry.importance].append(entry.id)
    rows = store.fetch(ended)
    return PassChanges(
        meta={key: store.meta(key) for key in marks},
        importance=importance,
        endings={i: (row.valid_to, row.status, row.ended_by) for i, row in rows.items()},
    )


def keep_record(store: SidecarStore, pass_id: str, changes: PassChanges, keep: int) -> None:
    """Save a pass's undo record (inside its transaction: a GC run's, a restore's, a forgetting pass's
    restores); records beyond the newest `keep` go, as the snapshots of runs that can no longer be
    undone do. Newest by the time in the pass id ("gc-20261125T...", "forget-20261129T...-2"), not
    by its kind: sorted by key, a forgetting pass's record went before thirty GC runs' at once."""
    store.set_meta(RECORD_KEY + pass_id, changes.model_dump_json())
    keys = sorted(store.meta_keys(RECORD_KEY), key=lambda key: key.partition("-")[2])
    for key in keys[: max(0, len(keys) - keep)]:
        store.delete_meta(key)


def record_exists(store: SidecarStore, pass_id: str) -> bool:
    """Whether a GC run with this id can still be undone."""
    return store.meta(RECORD_KEY + pass_id) is not None


def unused_pass_id(store: SidecarStore, first: str) -> str:
    """`first` (a pass id made from the clock), or it with a suffix when a pass has it already. Runs of
    one day share a clock (the day's noon with --today), so a later pass of the day takes "-2", "-3"
    while the earlier one can still be restored or undone: undo tells them apart."""
    candidate, number = first, 1
    while record_exists(store, candidate) or state.pass_exists(store, candidate):
        number += 1
        candidate = f"{first}-{number}"
    return candidate


@dataclass
class UndoReport:
    restored: int = 0  # entries live again
    removed: int = 0  # entries the passes inserted, soft-deleted again
    deleted: int = 0  # entries a restore brought back, deleted again as they were
    passes: list[str] = field(default_factory=list)  # those the sidecar held (a run may stop before one)


def held_passes(store: SidecarStore, pass_ids: Sequence[str]) -> list[str]:
    """Those of `pass_ids` the sidecar holds, which an undo would put back (a run may stop, or find
    nothing to do, before a pass it named was made)."""
    return [i for i in pass_ids if record_exists(store, i) or state.pass_exists(store, i)]


def undo_passes(store: SidecarStore, pass_ids: Sequence[str], now: float) -> UndoReport:
    """Put the sidecar back as it was before these passes (newest first), in one transaction; the
    report names those the sidecar held (none, asked again)."""
    report = UndoReport()
    with store.transaction():
        report.passes = held_passes(store, pass_ids)
        for pass_id in pass_ids:
            raw = store.meta(RECORD_KEY + pass_id)
            changes = PassChanges.model_validate_json(raw) if raw else PassChanges()
            rows = store.fetch(changes.deleted)
            ours = [i for i in changes.deleted if i in rows and rows[i].deleted_pass == pass_id]
            forgotten = [
                i for i, why in state.forgotten_ids(store, pass_id=pass_id) if why == state.FORGOTTEN
            ]
            report.restored += store.restore([*ours, *forgotten])
            report.removed += store.soft_delete(changes.inserted, UNDONE, now)
            report.deleted += _delete_again(store, changes)
            set_importance(store, {i: value for value, ids in changes.importance.items() for i in ids})
            store.db.executemany(
                "UPDATE entries SET valid_to = ?, status = ?, ended_by = ? WHERE id = ?",
                [(*ending, entry_id) for entry_id, ending in changes.endings.items()],
            )
            for key, value in changes.meta.items():
                if value is None:
                    store.delete_meta(key)
                else:
                    store.set_meta(key, value)
            store.delete_meta(RECORD_KEY + pass_id)
            state.drop_pass(store, pass_id)
    return report


def _delete_again(store: SidecarStore, changes: PassChanges) -> int:
    """Undo of a restore: its entries deleted again as they were, their last restore as it was."""
    deleted: dict[tuple[float, str, str | None], list[int]] = defaultdict(list)
    for entry_id, how in changes.restored.items():
        deleted[how].append(entry_id)
    count = sum(store.soft_delete(ids, reason, at, by) for (at, reason, by), ids in deleted.items())
    store.db.executemany(
        "DELETE FROM entry_restores WHERE entry_id = ?",
        [(i,) for i, at in changes.restored_at.items() if at is None],
    )
    for entry_id, at in changes.restored_at.items():
        if at is not None:
            state.note_restores(store, [entry_id], at)
    return count
