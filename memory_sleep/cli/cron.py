"""`memory-sleep cron`: one crontab line per workspace, found again by the comment that ends it.

The crontab is reached through the `Crontab` protocol: `SystemCrontab` runs `crontab -l` and
`crontab -`; `FileCrontab` keeps the table in a file (MEMORY_SLEEP_CRONTAB=FILE, used by the tests and
for a dry look); `InMemoryCrontab` is the test double.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memory_sleep.config import Config
from memory_sleep.errors import MemorySleepError
from memory_sleep.workspace.layout import Workspace

CRONTAB_ENV = "MEMORY_SLEEP_CRONTAB"
DEFAULT_AT = "04:00"
MARKER = "# memory-sleep:"
CRON_LOG = "memory/.sleep/cron.log"
_AT = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_FIELD = re.compile(r"^[\d*/,\-A-Za-z]+$")


class ScheduleError(MemorySleepError):
    """The crontab cannot be read or written, or a schedule is malformed."""


class Crontab(Protocol):
    """The current user's crontab as text."""

    def read(self) -> str: ...

    def write(self, text: str) -> None: ...


class SystemCrontab:
    """The real one, through the `crontab` command."""

    def __init__(self, command: str = "crontab") -> None:
        self.command = command

    def _run(self, arguments: list[str], text: str | None = None) -> subprocess.CompletedProcess[str]:
        if shutil.which(self.command) is None:
            raise ScheduleError(
                f"`{self.command}` not found: this system has no cron. Install it (Debian/Ubuntu: "
                "`apt-get install cron`), or let your agent platform schedule `memory-sleep cron prompt`."
            )
        return subprocess.run(
            [self.command, *arguments], input=text, capture_output=True, text=True, check=False
        )

    def read(self) -> str:
        done = self._run(["-l"])
        if done.returncode == 0:
            return done.stdout
        if "no crontab" in done.stderr.lower():
            return ""
        raise ScheduleError(f"`{self.command} -l` failed: {done.stderr.strip() or done.returncode}.")

    def write(self, text: str) -> None:
        done = self._run(["-"], text)
        if done.returncode != 0:
            raise ScheduleError(
                f"`{self.command} -` refused the new table: {done.stderr.strip() or done.returncode}. "
                "Your crontab is unchanged."
            )


class FileCrontab:
    """A crontab kept in a plain file (MEMORY_SLEEP_CRONTAB=FILE)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    def write(self, text: str) -> None:
        from memory_sleep.workspace.atomic import atomic_write

        atomic_write(self.path, text.encode("utf-8"))


class InMemoryCrontab:
    """Test double: the table in a string, with every write kept."""

    def __init__(self, text: str = "") -> None:
        self.text = text
        self.writes: list[str] = []

    def read(self) -> str:
        return self.text

    def write(self, text: str) -> None:
        self.text = text
        self.writes.append(text)


def default_crontab() -> Crontab:
    """MEMORY_SLEEP_CRONTAB=FILE if set, else the user's real crontab."""
    override = os.environ.get(CRONTAB_ENV)
    return FileCrontab(Path(override)) if override else SystemCrontab()


def schedule_for(at: str | None = None, schedule: str | None = None) -> str:
    """The five cron fields: `--at HH:MM` daily (default 04:00), or a whole `--schedule` expression."""
    if schedule is not None:
        fields = schedule.split()
        if len(fields) != 5 or not all(_FIELD.match(field) for field in fields):
            raise ScheduleError(
                f"--schedule {schedule!r}: not five cron fields (minute hour day month weekday). "
                "Example: --schedule '0 * * * *' runs hourly (safe: `run --if-due` skips until due)."
            )
        return " ".join(fields)
    match = _AT.match(at or DEFAULT_AT)
    if not match:
        raise ScheduleError(f"--at {at!r}: not a time of day. Use HH:MM, e.g. --at 04:00.")
    hour, minute = match.groups()
    return f"{int(minute)} {int(hour)} * * *"


def command_prefix() -> list[str]:
    """How cron starts this very installation: its `memory-sleep` script, else `python -m memory_sleep`."""
    script = Path(sys.executable).parent / "memory-sleep"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "memory_sleep"]


def marker(workspace: Workspace) -> str:
    return f"{MARKER}{workspace.root}"


def cron_line(workspace: Workspace, schedule: str, prefix: list[str] | None = None) -> str:
    """The crontab line: run when due, append everything it prints to memory/.sleep/cron.log."""
    if any(character in str(workspace.root) for character in "%\n"):
        # cron turns % into a line break even inside quotes
        raise ScheduleError(
            f"{workspace.root}: cron cannot run a command whose path holds % or a line break. "
            "Move the workspace, or link it from a plain path and install from there."
        )
    log = workspace.root / CRON_LOG
    command = shlex.join([*(prefix or command_prefix()), "run", str(workspace.root), "--if-due"])
    # cron hands the line to /bin/sh; the log's folder may not exist before the first run
    return (
        f"{schedule} mkdir -p {shlex.quote(str(log.parent))} && {command} "
        f">> {shlex.quote(str(log))} 2>&1 {marker(workspace)}"
    )


@dataclass(frozen=True)
class CronChange:
    """What install or remove did (or, with dry_run, would do) to the crontab."""

    before: str | None  # this workspace's line before, if any
    after: str | None  # and after
    written: bool

    @property
    def changed(self) -> bool:
        return self.before != self.after


def find_line(table: str, workspace: Workspace) -> str | None:
    """This workspace's line in the table, if installed."""
    return next((line for line in table.splitlines() if _is_ours(line, workspace)), None)


def install(
    crontab: Crontab,
    workspace: Workspace,
    schedule: str,
    dry_run: bool = False,
    prefix: list[str] | None = None,
) -> CronChange:
    """Add this workspace's line, or replace it (a new time or executable); other lines stay as they are."""
    table = crontab.read()
    before = find_line(table, workspace)
    line = cron_line(workspace, schedule, prefix)
    kept = [existing for existing in table.splitlines() if not _is_ours(existing, workspace)]
    if before is None:
        kept.append(line)
    else:
        kept.insert(table.splitlines().index(before), line)
    change = CronChange(before, line, written=False)
    if change.changed and not dry_run:
        crontab.write("\n".join(kept) + "\n")
        return CronChange(before, line, written=True)
    return change


def remove(crontab: Crontab, workspace: Workspace, dry_run: bool = False) -> CronChange:
    """Take this workspace's line out; every other line stays byte for byte."""
    table = crontab.read()
    before = find_line(table, workspace)
    if before is None or dry_run:
        return CronChange(before, None, written=False)
    kept = [line for line in table.splitlines() if not _is_ours(line, workspace)]
    crontab.write("\n".join(kept) + "\n" if kept else "")
    return CronChange(before, None, written=True)


def line_executable(line: str) -> str | None:
    """The program a memory-sleep line starts (the word after `&&`), to check that it still exists."""
    try:
        words = shlex.split(line.split(MARKER, 1)[0], comments=False)
    except ValueError:
        return None
    return words[words.index("&&") + 1] if "&&" in words and words.index("&&") + 1 < len(words) else None


def _is_ours(line: str, workspace: Workspace) -> bool:
    return line.rstrip().endswith(marker(workspace)) and not line.lstrip().startswith("#")


def cron_prompt(workspace: Workspace, config: Config) -> str:
    """The prompt an agent platform schedules instead of a command, with this workspace's paths filled in."""
    from memory_sleep.engines.prompting import render_prompt

    root = workspace.root
    override = config.engine.prompts_dir
    return render_prompt(
        "cron_prompt.md.j2",
        root / override if override is not None else None,
        workspace=workspace,
        config=config,
        daily_notes=workspace.notes_dir / "YYYY-MM-DD.md",
        topic_notes=workspace.notes_dir / "YYYY-MM-DD-<topic>.md",
        weekly=workspace.weekly_dir / "YYYY-Www.md",
    )
