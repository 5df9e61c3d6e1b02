"""Helpers for the reliability tests: real `memory-sleep` processes and workspace comparisons."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import FIXTURE_WORKSPACE, REPO

TODAY = "2026-11-25"
# sleep-log.json keys that differ between two runs of the same work (the run id and the forgetting
# pass's counts and id include its time, and are absent when a test runs without the sidecar)
VOLATILE_LOG_KEYS = ("lastRun", "runId", "durationSeconds", "forgetting", "sidecarPasses")


def copy_fixture(target: Path) -> Path:
    """A copy of the example workspace; copytree keeps mtimes, so state files match between copies."""
    shutil.copytree(FIXTURE_WORKSPACE, target)
    return target


def cli(
    *arguments: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    crash_before_write: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m memory_sleep ARGUMENTS` in a real process; with `crash_before_write` N, through
    tests/crash_launcher.py, which kills it (exit 137) just before the safe writer's write N (from 0)."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MEMORY_SLEEP_")}
    module = (
        ["memory_sleep"] if crash_before_write is None else ["tests.crash_launcher", str(crash_before_write)]
    )
    return subprocess.run(
        [sys.executable, "-m", *module, *arguments],
        env={**environment, **(env or {})},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_command(workspace: Path, *options: str, quiet: bool = True) -> list[str]:
    """The arguments of an offline `run` on the fixture's day."""
    return [
        "run",
        str(workspace),
        "--today",
        TODAY,
        "--engine",
        "offline",
        *(["-q"] if quiet else []),
        *options,
    ]


TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def is_compared(relative: str) -> bool:
    """User files, and the tool's own state files (not snapshots, the lock, the sidecar or caches)."""
    parts = relative.split("/")
    if TEMPORARY.match(parts[-1]):
        return False  # a killed atomic_write's temp file: never a version of a file; the next run sweeps it
    if ".sleep" not in parts:
        return True
    inside = parts[parts.index(".sleep") + 1 :]
    return inside in (["state.json"], ["MEMORY.last-run.md"]) or (len(inside) == 2 and inside[0] == "notes")


def normalized(relative: str, data: bytes) -> bytes:
    """sleep-log.json without the keys that differ between two identical runs."""
    if not relative.endswith("sleep-log.json"):
        return data
    log = json.loads(data)
    for record in [log, *log.get("history", [])]:
        for key in VOLATILE_LOG_KEYS:
            record.pop(key, None)
    return json.dumps(log, sort_keys=True).encode()


def comparable_tree(folder: Path) -> dict[str, bytes]:
    """Every compared file of a workspace, normalized."""
    tree = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and not path.is_symlink() and is_compared(relative):
            tree[relative] = normalized(relative, path.read_bytes())
    return tree


def mixed_files(now: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes]) -> list[str]:
    """Files that are neither their old nor their new version (a file absent on both sides must stay absent)."""
    return sorted(
        path for path in set(now) | set(old) | set(new) if now.get(path) not in (old.get(path), new.get(path))
    )


def changed_count(now: dict[str, bytes], old: dict[str, bytes]) -> int:
    return sum(1 for path in set(now) | set(old) if now.get(path) != old.get(path))


def sleep_log(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "memory" / "sleep-log.json").read_text())  # type: ignore[no-any-return]
