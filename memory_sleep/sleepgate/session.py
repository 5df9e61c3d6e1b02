"""A pass on an open sidecar: when it is due, running it, and keeping the vector cache in step."""

from __future__ import annotations

import numpy as np

from ..config import ForgettingConfig
from ..sidecar.recall import Sidecar
from ..sidecar.vectors import VectorIndex
from . import state
from .forget import PassReport, run_pass
from .restore import RestoreReport, restore_entries


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
    explain_all: bool = False,
    rebuild_budget_secs: float | None = None,
) -> PassReport:
    """Run a pass now on the sidecar's live index, then drop the forgotten rows from its vector cache."""
    index = sidecar.vectors()
    report = run_pass(
        sidecar.store,
        index,
        config,
        sidecar.embedder.id,
        sidecar.clock(),
        sidecar.cache_dir,
        dry_run=dry_run,
        rebuild_budget_secs=rebuild_budget_secs,
        explain_all=explain_all,
    )
    if report.forgotten_ids and not dry_run:
        _drop_rows(sidecar, index, report.forgotten_ids)
    return report


def restore(
    sidecar: Sidecar,
    ids: list[int],
    pass_id: str | None,
    since: float | None,
    dry_run: bool = False,
) -> RestoreReport:
    """Restore forgotten entries and patch them back into the vector cache."""
    generation = sidecar.store.generation()
    report = restore_entries(sidecar.store, sidecar.clock(), ids, pass_id, since, dry_run)
    if report.restored and not dry_run:
        sidecar._refresh(generation, set(report.restored))
    return report


def _drop_rows(sidecar: Sidecar, index: VectorIndex, ids: list[int]) -> None:
    """Compact the matrix in place (no second copy of the vectors) and save it as the new generation."""
    keep = ~np.isin(index.ids, np.array(ids, dtype=np.int64))
    kept = int(keep.sum())
    rows = np.flatnonzero(keep)
    for start in range(0, kept, 65_536):
        chunk = rows[start : start + 65_536]
        index.matrix[start : start + len(chunk)] = index.matrix[chunk]
    compacted = VectorIndex(
        index.ids[keep],
        index.scope_codes[keep],
        index.scope_names,
        index.matrix[:kept],
        sidecar.store.generation(),
    )
    sidecar._vectors = compacted
    if sidecar.cache_dir is not None:
        compacted.save(sidecar.cache_dir)
