"""`memory-sleep doctor`: read-only checks of a workspace, each with what to do about it.

Levels: `ok`; `warn`, worth knowing, nothing breaks; `fail`, something a run skips or cannot do until
it is fixed (the command then exits 1). A check that itself crashes is reported as a failure of that
check, never as a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import date

from memory_sleep.cli.doctor import file_checks, run_checks, setup_checks
from memory_sleep.cli.doctor.report import Check, Diagnosis
from memory_sleep.config import Config, load_config
from memory_sleep.errors import MemorySleepError
from memory_sleep.workspace.layout import Workspace

__all__ = ["Check", "Diagnosis", "diagnose"]


def diagnose(workspace: Workspace, crontab: object | None = None, today: date | None = None) -> Diagnosis:
    """Run every check; `crontab` is a cron.Crontab (default: MEMORY_SLEEP_CRONTAB or the user's)."""
    today = today or date.today()
    report = Diagnosis(str(workspace.root))
    config, config_check = _config(workspace)
    report.checks.append(config_check)
    steps: list[tuple[str, Callable[[], Iterator[Check]]]] = [
        ("layout", lambda: setup_checks.layout(workspace)),
        ("engine", lambda: setup_checks.engine(config)),
        ("last run", lambda: run_checks.last_run(workspace)),
        ("lock", lambda: run_checks.lock(workspace)),
        ("MEMORY.md", lambda: run_checks.memory_loss(workspace)),
        ("agent", lambda: run_checks.agent_requests(workspace, config)),
        ("sizes", lambda: file_checks.sizes(workspace, config)),
        ("notes", lambda: file_checks.notes(workspace, config, today)),
        ("secrets", lambda: file_checks.secrets(workspace)),
        ("sidecar", lambda: file_checks.sidecar(workspace, config)),
        ("cron", lambda: setup_checks.cron(workspace, config, crontab)),
    ]
    if workspace.layout_problem():  # not a workspace at all, or MEMORY.md not a file: the rest would mislead
        steps = steps[:1]
    for area, step in steps:
        try:
            report.checks.extend(step())
        except Exception as error:  # a broken check must not hide the others
            report.checks.append(
                Check(
                    area,
                    "fail",
                    f"the check itself failed ({type(error).__name__}: {error})",
                    "rerun with MEMORY_SLEEP_DEBUG=1 and report it",
                )
            )
            if os.environ.get("MEMORY_SLEEP_DEBUG") == "1":
                raise
    return report


def _config(workspace: Workspace) -> tuple[Config, Check]:
    path = workspace.config_file
    if not path.exists():
        return Config(), Check("config", "ok", "no memory-sleep.toml: every key at its default")
    try:
        return load_config(path), Check("config", "ok", f"{path.name}: valid")
    except MemorySleepError as error:
        return Config(), Check(
            "config", "fail", str(error), "the other checks below assume the defaults until it is fixed"
        )
