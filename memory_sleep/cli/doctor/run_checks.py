"""Doctor's checks of what runs left behind: the last run's outcome, the lock, a MEMORY.md cut since,
and decisions waiting for the agent."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from memory_sleep.cli.doctor.report import Check
from memory_sleep.config import Config
from memory_sleep.text import counted
from memory_sleep.workspace.layout import Workspace, unwritable


def last_run(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.workspace.sleep_log import read_sleep_log

    if not workspace.sleep_log.exists():
        yield Check("last run", "warn", "never run here", f"`memory-sleep run {workspace.root}`")
        return
    log = read_sleep_log(workspace.sleep_log.read_bytes())
    if log is None:
        yield Check(
            "last run",
            "warn",
            "memory/sleep-log.json: not in a shape this version reads",
            "the next run starts a new one; move the old file away to keep it",
        )
        return
    when = log.lastRun.isoformat(timespec="seconds")
    if log.status == "ok":
        yield Check(
            "last run", "ok", f"{when} ok, engine {log.engine}, {counted(log.itemsKept, 'item')} kept"
        )
    else:
        from memory_sleep.workspace.writer import STOPPED, SafeWriter

        manifests = SafeWriter(workspace.root, workspace.state_dir / "snapshots").manifests()
        left = (
            "it first rolls back what that run left half-written"
            if any(m.status in STOPPED for m in manifests)
            else "that run changed nothing"
        )
        yield Check(
            "last run",
            "fail",
            f"{when} {log.status}: {(log.error or '').removeprefix('Refused: ')}",  # not "refused: Refused:"
            f"fix what the error names, then `memory-sleep run` ({left})",
        )


def lock(workspace: Workspace) -> Iterator[Check]:
    from filelock import FileLock, Timeout

    from memory_sleep.workspace.writer import STOPPED, SafeWriter

    state = workspace.state_dir
    holder_file = state / "lock.holder"
    holder = _read_holder(holder_file)
    if not state.is_dir():
        yield Check("lock", "ok", "free (no run yet)")
        return
    if unwritable(state):
        yield Check("lock", "ok", "not checked: the workspace is read-only (see layout), so no run can start")
        return
    lock = FileLock(state / "lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        who = f"pid {holder.get('pid')} since {holder.get('since')}" if holder else "holder unknown"
        yield Check("lock", "warn", f"a run is in progress ({who})", "wait for it; runs never overlap")
        return  # its manifest is open until it ends: not a run that stopped half-way
    else:
        lock.release()
        if holder_file.exists():
            yield Check(
                "lock",
                "warn",
                f"stale lock record in {workspace.relative(holder_file)} "
                f"({_describe_holder(holder)}): a run was killed",
                "nothing to do: the lock is free and the next run recovers; delete the file to silence this",
            )
        else:
            yield Check("lock", "ok", "free")
    unfinished = [
        m.run_id for m in SafeWriter(workspace.root, state / "snapshots").manifests() if m.status in STOPPED
    ]
    if unfinished:
        yield Check(
            "lock",
            "warn",
            f"run {unfinished[-1]} stopped half-way",
            "the next `memory-sleep run` (or `memory-sleep undo`) rolls it back first",
        )


def _read_holder(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe_holder(holder: dict[str, object]) -> str:
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return "holder unknown"
    if holder.get("host") == socket.gethostname():
        try:
            os.kill(pid, 0)
            alive = "still running, but not holding the lock"
        except ProcessLookupError:
            alive = "no longer running"
        except PermissionError:
            alive = "running as another user"
        return f"pid {pid}, {alive}"
    return f"pid {pid} on {holder.get('host')}"


def memory_loss(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.cycle.memory_loss import find_loss

    memory = workspace.memory_md
    loss = find_loss(
        workspace, memory.read_text(encoding="utf-8", errors="replace") if memory.is_file() else ""
    )
    if loss:
        yield Check(
            "MEMORY.md",
            "fail",
            f"{loss.finding()}: emptied or cut since; runs refuse it",
            f"`{loss.restore_command()}` restores the last run's version; or `memory-sleep run "
            "--accept-memory-reset` goes on from it as it is",
        )


def agent_requests(workspace: Workspace, config: Config) -> Iterator[Check]:
    """Decisions a run with `--engine agent` left for the agent: nothing is applied until they are answered."""
    from memory_sleep.engines.agent import AGENT_DIR, waiting_requests

    waiting, expired = waiting_requests(workspace.root, config.engine.agent.expire_hours)
    if waiting:
        rejected = sum(bool(request.problems) for request in waiting)
        yield Check(
            "agent",
            "warn",
            f"{counted(len(waiting), 'decision request')} waiting for the agent in {AGENT_DIR.as_posix()}/pending"
            + (f" ({rejected} with a rejected answer)" if rejected else "")
            + "; the run they belong to applies nothing until they are answered",
            "answer each in its answer_file (SKILL.md), then `memory-sleep run --engine agent`",
        )
    if expired:
        yield Check(
            "agent",
            "warn",
            f"{counted(expired, 'decision request')} expired unanswered ([engine.agent] expire_hours)",
            "the next `memory-sleep run --engine agent` drops them and asks afresh",
        )
