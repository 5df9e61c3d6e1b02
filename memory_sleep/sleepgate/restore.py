"""Bring forgotten entries back exactly: the same row, text, embedding, access count and history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_sleep.errors import MemorySleepError
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sleepgate import state
from memory_sleep.sleepgate.undo import PassChanges, keep_record

UNKNOWN_ENTRY = "no such entry"


@dataclass
class RestoreReport:
    restored: list[int] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)  # id -> why it was left alone


def restore_entries(
    store: SidecarStore,
    now: float,
    ids: Sequence[int] = (),
    pass_id: str | None = None,
    since: float | None = None,
    dry_run: bool = False,
    undo_record: str | None = None,
    keep: int = 30,
) -> RestoreReport:
    """Restore entries the forgetting pass or a GC run (reason `gc:<strategy>`) soft-deleted, named by
    id, by pass, or forgotten since a time.

    Entries the indexer soft-deleted (their note item or file is gone) are left alone: restoring
    them would bring back text the workspace no longer holds. A restored entry counts as freshly
    touched for recency, so the next pass does not forget it again at once. `undo_record`: the id
    under which the restore keeps what it changed, for `memory-sleep undo` (kept for `keep` changes).
    """
    if pass_id is not None and not state.pass_exists(store, pass_id):
        raise MemorySleepError(
            f"No forgetting pass {pass_id}. `memory-sleep stats` lists soft-deleted entries."
        )
    report = RestoreReport()
    found = state.forgotten_ids(store, ids, pass_id, since)
    known = {entry_id for entry_id, _ in found}
    for entry_id in ids:
        if entry_id not in known:
            report.skipped[entry_id] = UNKNOWN_ENTRY
    for entry_id, reason in found:
        if reason == state.FORGOTTEN or (reason or "").startswith("gc:"):
            report.restored.append(entry_id)
        else:
            report.skipped[entry_id] = (
                "not forgotten" if reason is None else f"soft-deleted by the indexer ({reason})"
            )
    if report.restored and not dry_run:
        with store.transaction():
            if undo_record is not None:
                keep_record(store, undo_record, _before_restore(store, report.restored), keep)
            store.restore(report.restored)
            state.note_restores(store, report.restored, now)
    return report


def _before_restore(store: SidecarStore, ids: Sequence[int]) -> PassChanges:
    """How the entries about to be restored were deleted, and when each was last restored."""
    rows = store.fetch(ids)
    last = dict(state.last_restores(store, ids))
    return PassChanges(
        restored={
            i: (row.deleted_at, row.deleted_reason, row.deleted_pass)
            for i, row in rows.items()
            if row.deleted_at is not None and row.deleted_reason is not None
        },
        restored_at={i: last.get(i) for i in ids},
    )
