"""A pass on an open sidecar: when it is due, running it, and keeping the vector cache in step."""

from __future__ import annotations

from memory_sleep.config import ForgettingConfig
from memory_sleep.sidecar.recall import Sidecar
from memory_sleep.sleepgate import state
from memory_sleep.sleepgate.forget import Explain, PassReport, run_pass
from memory_sleep.sleepgate.restore import RestoreReport, restore_entries


def not_due_reason(sidecar: Sidecar, config: ForgettingConfig) -> str | None:
    """Why a scheduled pass should not run now, or None when it is due."""
    if not config.enabled:
        return "disabled ([memory.forgetting] enabled = false)"
    last = state.last_pass_at(sidecar.store)
    if last is None:
        return None
    waited = sidecar.clock() - last
    if waited < config.interval_secs:
        return f"last pass {waited / 3600:.1f} h ago; interval_secs = {config.interval_secs}"
    return None


def forget(
    sidecar: Sidecar,
    config: ForgettingConfig,
    dry_run: bool = False,
    explain: Explain = "candidates",
    rebuild_budget_secs: float | None = None,
    pass_id: str | None = None,
) -> PassReport:
    """Run a pass now on the sidecar's live index, then drop the forgotten rows from its vector cache.
    `pass_id`: the id a caller has already written down (default: a new one)."""
    report = run_pass(
        sidecar.store,
        sidecar.vectors(),
        config,
        sidecar.embedder.id,
        sidecar.clock(),
        dry_run=dry_run,
        rebuild_budget_secs=rebuild_budget_secs,
        explain=explain,
        pass_id=pass_id,
    )
    if report.forgotten_ids and not dry_run:
        sidecar.forget_vectors(report.forgotten_ids)
    return report


def restore(
    sidecar: Sidecar,
    ids: list[int],
    pass_id: str | None,
    since: float | None,
    dry_run: bool = False,
    undo_record: str | None = None,
    keep: int = 30,
) -> RestoreReport:
    """Restore forgotten entries and bring the vector cache up to date with them (`undo_record`:
    the id under which `memory-sleep undo` finds what the restore changed)."""
    report = restore_entries(sidecar.store, sidecar.clock(), ids, pass_id, since, dry_run, undo_record, keep)
    if report.restored and not dry_run:
        sidecar.vectors()
    return report
