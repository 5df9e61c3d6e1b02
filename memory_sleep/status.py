"""What `memory-sleep status` reports: the last run, counts, and what the next run will pick up."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from .config import Config
from .note_secrets import by_note, sightings_in_notes
from .sleep_log import read_sleep_log
from .state import StateStore
from .workspace import Workspace, discover


def workspace_status(workspace: Workspace, config: Config, today: date) -> dict[str, Any]:
    state = StateStore(workspace.state_dir).load_workspace()
    found = discover(workspace)
    log = read_sleep_log(workspace.sleep_log.read_bytes() if workspace.sleep_log.exists() else None)
    unread = [n.relative for n in found.notes if n.name not in state.seen]
    secrets = sightings_in_notes(found.notes, workspace)
    recent = [n.relative for n in found.notes if n.day >= today - timedelta(days=config.lookback_days)]
    return {
        "workspace": str(workspace.root),
        "last run": f"{log.lastRun.isoformat()} ({log.status}, engine {log.engine})" if log else "never",
        **({"last error": log.error} if log and log.error else {}),
        "daily notes": len(found.notes),
        "notes never processed": len(unread),
        "recent notes re-read each run": len(recent),
        "kept items awaiting REM": sum(len(ids) for ids in state.pending.values()),
        "MEMORY.md entries tracked": len(state.entries),
        "notes folded into weekly summaries": len(state.folded),
        "MEMORY.md bytes": workspace.memory_md.stat().st_size if workspace.memory_md.exists() else 0,
        "stray files (left alone)": ", ".join(found.strays) or "none",
        "problems": "; ".join(found.problems) or "none",
        "secrets in notes": "; ".join(f"{note} {where}" for note, where in by_note(secrets))
        + " (`memory-sleep redact` removes them)"
        if secrets
        else "none",
    }
