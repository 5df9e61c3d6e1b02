"""memory-sleep run as a user runs it: on a fresh copy of a workspace, twice, timed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from memory_sleep.workspace.layout import Workspace, discover

# the tool's own bookkeeping, which every run rewrites by design
BOOKKEEPING = ("memory/.sleep/", "memory/sleep-log.json")
LEFT_OUT = ("SOURCE.txt",)  # the license file travels with the data, not into the user's workspace
PROVIDER_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Run:
    exit_code: int
    status: str  # "ok", "refused", "failed", or "no record" when the CLI printed none
    seconds: float
    changed: tuple[str, ...]  # workspace files (bookkeeping aside) whose bytes the run changed
    output: str

    @property
    def refused(self) -> bool:
        return self.exit_code != 0 or self.status != "ok"


def first_morning(folder: Path) -> date:
    """The day after the workspace's last note: the runs are dated as if the user ran the tool then."""
    return max(note.day for note in discover(Workspace.open(folder)).notes) + timedelta(days=1)


def fresh_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*LEFT_OUT))
    return target


def fingerprint(folder: Path) -> dict[str, str]:
    prints = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and not relative.startswith(BOOKKEEPING):
            prints[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return prints


def run_cli(folder: Path, today: date) -> Run:
    """`memory-sleep run --engine offline --today DAY --json FOLDER` in a child process."""
    before = fingerprint(folder)
    env = {key: value for key, value in os.environ.items() if key not in PROVIDER_KEYS}
    command = [sys.executable, "-m", "memory_sleep", "run", "--engine", "offline"]
    command += ["--today", today.isoformat(), "--json", str(folder)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - started
    after = fingerprint(folder)
    changed = tuple(
        sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    )
    return Run(done.returncode, _status(done.stdout), seconds, changed, done.stdout + done.stderr)


def _status(stdout: str) -> str:
    try:
        record = json.loads(stdout)
    except ValueError:
        return "no record"
    return str(record.get("status", "no record")) if isinstance(record, dict) else "no record"
