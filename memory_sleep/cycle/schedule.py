"""`run --if-due`: whether the configured interval has passed since the last successful run."""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memory_sleep.config import Config
from memory_sleep.workspace.atomic import atomic_write
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.sleep_log import read_sleep_log

SCHEDULE_FILE = "schedule.json"


@dataclass(frozen=True)
class DueCheck:
    """The answer to "should a scheduled run go ahead now?", with the reason in words."""

    due: bool
    last_success: datetime | None
    next_due: datetime | None

    def header(self, workspace: Workspace) -> str:
        """The line a scheduled run starts its log with: when, where, and why it runs."""
        now = datetime.now().astimezone().isoformat(timespec="seconds")
        return f"{now} memory-sleep run {workspace.root} (due: {self.reason()})"

    def reason(self) -> str:
        if self.last_success is None:
            return "no successful run yet"
        when = self.last_success.isoformat(timespec="seconds")
        if self.due:
            return f"last successful run {when}"
        assert self.next_due is not None
        return f"last successful run {when}; next due after {self.next_due.isoformat(timespec='seconds')}"


def last_success(workspace: Workspace) -> datetime | None:
    """The newest of: the last `ok` run in sleep-log.json, and the last run that found nothing to do.

    A run over unchanged notes writes no sleep-log record, so it leaves its time in
    memory/.sleep/schedule.json; otherwise an hourly schedule would rerun every hour once a quiet day passed.
    """
    found: list[datetime] = []
    log = read_sleep_log(workspace.sleep_log.read_bytes() if workspace.sleep_log.is_file() else None)
    if log is not None:
        found.extend(run.lastRun for run in [log, *log.history] if run.status == "ok")
    marker = workspace.state_dir / SCHEDULE_FILE
    with suppress(OSError, ValueError, KeyError, TypeError):
        found.append(datetime.fromisoformat(json.loads(marker.read_text())["lastSuccess"]))
    return max((_aware(moment) for moment in found), default=None)


def due_check(workspace: Workspace, config: Config, now: datetime | None = None) -> DueCheck:
    """Due when no run has succeeded yet, or `[schedule] interval_secs` have passed since the last one."""
    moment = now or datetime.now(UTC)
    last = last_success(workspace)
    if last is None:
        return DueCheck(True, None, None)
    next_due = last + timedelta(seconds=config.schedule.interval_secs)
    return DueCheck(moment >= next_due, last, next_due)


def mark_success(workspace: Workspace, now: datetime | None = None) -> None:
    """Remember that a scheduled run succeeded now (tool state under memory/.sleep/, outside undo)."""
    moment = (now or datetime.now(UTC)).isoformat()
    atomic_write(workspace.state_dir / SCHEDULE_FILE, json.dumps({"lastSuccess": moment}).encode() + b"\n")


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
