"""What `memory-sleep status` reports: the last run, counts, and what the next run will pick up."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_sleep.config import Config
from memory_sleep.gc.review import open_reviews, read_reviews, review_line
from memory_sleep.sidecar import index_failure
from memory_sleep.workspace.atomic import sha256
from memory_sleep.workspace.layout import NoteFile, Workspace, discover
from memory_sleep.workspace.note_read import NoteReadError, decode, read_bytes
from memory_sleep.workspace.note_secrets import Sighting, by_note, sightings_in_notes
from memory_sleep.workspace.sleep_log import read_sleep_log
from memory_sleep.workspace.state import StateStore


def workspace_status(workspace: Workspace, config: Config, today: date) -> dict[str, Any]:
    """The report as JSON-ready data: snake_case keys, numbers as numbers, null for nothing."""
    from memory_sleep.engines.agent import waiting_requests

    state = StateStore(workspace.state_dir).load_workspace()
    waiting, expired = waiting_requests(workspace.root, config.engine.agent.expire_hours)
    found = discover(workspace)
    log = read_sleep_log(workspace.sleep_log.read_bytes() if workspace.sleep_log.exists() else None)
    notes = StateStore(workspace.state_dir)
    changed = {
        note.relative: _unreadable(note, config.max_note_bytes)
        for note in found.notes
        if _changed(note, state.seen.get(note.name), notes)
    }
    pending = [relative for relative, problem in changed.items() if problem is None]
    unreadable = [problem for problem in changed.values() if problem is not None]  # no run will read them
    secrets = sightings_in_notes(found.notes, workspace)
    recent = [n.relative for n in found.notes if n.day >= today - timedelta(days=config.lookback_days)]
    behind = [said] if (said := index_failure.behind(workspace.state_dir)) else []
    last_run = (
        {"at": log.lastRun.isoformat(), "status": log.status, "engine": log.engine, "error": log.error}
        if log
        else None
    )
    return {
        "workspace": str(workspace.root),
        "last_run": last_run,
        "daily_notes": len(found.notes),
        "pending_notes": pending,
        "unreadable_notes": [relative for relative, problem in changed.items() if problem is not None],
        "recent_notes_reread": len(recent),
        "kept_items_awaiting_rem": sum(len(ids) for ids in state.pending.values()),
        "memory_entries_tracked": len(state.entries),
        "notes_folded_into_weekly": len(state.folded),
        "memory_md_bytes": workspace.memory_md.stat().st_size if workspace.memory_md.exists() else 0,
        "stray_files": list(found.strays),
        "problems": [*workspace.links(), *map(str, found.problems), *unreadable, *behind],
        "secrets_in_notes": [{"note": s.note, "line": s.line, "kind": s.kind} for s in secrets],
        "decisions_waiting": [request.summary() for request in waiting],
        "decisions_expired": expired,
        "gc_reviews": [review_line(review) for review in open_reviews(read_reviews(workspace))],
    }


def _reviews_line(reviews: list[str]) -> str:
    return "none" if not reviews else "".join(f"\n  {line}" for line in reviews)


def _unreadable(note: NoteFile, max_bytes: int) -> str | None:
    """The run's warning for a note it cannot read (so no run consolidates it), or None."""
    try:
        decode(note.relative, read_bytes(note.path, note.relative, max_bytes), max_bytes)
    except NoteReadError as error:
        return str(error)
    return None


def _changed(note: NoteFile, seen: tuple[int, int] | None, notes: StateStore) -> bool:
    """A note no run has read, or one edited since: its size or time changed (the test the run itself
    uses to skip old notes) and its bytes too (a note copied or restored as it was is consolidated;
    the next run reads it and changes nothing)."""
    if seen is None:
        return True
    stat = note.path.stat()
    if (stat.st_size, stat.st_mtime_ns) == tuple(seen):
        return False
    read = notes.load_note(note.name)
    return read is None or read.size != stat.st_size or read.sha256 != _sha256(note.path)


def _sha256(path: Path) -> str:
    try:
        return sha256(path.read_bytes())
    except OSError:
        return ""  # unreadable: `_unreadable` says why


def _first_five(names: list[str]) -> str:
    return ", ".join(names[:5]) + (", …" if len(names) > 5 else "")


def status_lines(report: dict[str, Any]) -> list[str]:
    """The report for a person: one labelled line per figure."""
    run = report["last_run"]
    pending = report["pending_notes"]
    return [
        f"workspace: {report['workspace']}",
        f"last run: {_seconds(run['at'])} ({run['status']}, engine {run['engine']})"
        if run
        else "last run: never",
        *([f"last error: {run['error']}"] if run and run["error"] else []),
        f"daily notes: {report['daily_notes']}",
        f"notes not consolidated yet: {len(pending)}"
        + (f" ({_first_five(pending)}; --pending lists them)" if pending else "")
        + (
            f"; {len(unread)} more that no run can read ({_first_five(unread)}: see problems)"
            if (unread := report["unreadable_notes"])
            else ""
        ),
        f"recent notes re-read each run: {report['recent_notes_reread']}",
        f"kept items awaiting REM: {report['kept_items_awaiting_rem']}",
        f"MEMORY.md entries tracked: {report['memory_entries_tracked']}",
        f"notes folded into weekly summaries: {report['notes_folded_into_weekly']}",
        f"MEMORY.md bytes: {report['memory_md_bytes']}",
        f"stray files (left alone): {', '.join(report['stray_files']) or 'none'}",
        f"problems: {'; '.join(report['problems']) or 'none'}",
        f"secrets in notes: {_secrets_line(report['secrets_in_notes'])}",
        f"decisions waiting for the agent: {_waiting_line(report['decisions_waiting'], report['decisions_expired'])}",
        f"GC judgements to review: {_reviews_line(report['gc_reviews'])}",
    ]


def _seconds(moment: str) -> str:
    """An ISO time to the second, as doctor shows it (the JSON keeps the microseconds)."""
    return datetime.fromisoformat(moment).isoformat(timespec="seconds")


def _waiting_line(waiting: list[dict[str, Any]], expired: int) -> str:
    if not waiting and not expired:
        return "none"
    rejected = sum(bool(request["problems"]) for request in waiting)
    parts = [f"{len(waiting)} in memory/.sleep/agent/pending"]
    if rejected:
        parts.append(f"{rejected} with a rejected answer")
    if expired:
        parts.append(f"{expired} expired")
    return ", ".join(parts) + " (answer them, then `memory-sleep run --engine agent`)"


def _secrets_line(found: list[dict[str, Any]]) -> str:
    if not found:
        return "none"
    sightings = [Sighting(note=s["note"], line=s["line"], kind=s["kind"]) for s in found]
    listed = "; ".join(f"{note} {where}" for note, where in by_note(sightings))
    return f"{listed} (`memory-sleep redact` removes them)"
