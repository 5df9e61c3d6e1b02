"""The memory-sleep command line: argument parsing only; the work happens in the modules it calls."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from .config import Config, load_config
from .engines.select import build_engine
from .errors import MemorySleepError
from .runner import PHASES, RunOptions, run_cycle
from .sleep_log import engine_line
from .status import workspace_status
from .workspace import Workspace
from .writer import SafeWriter

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
WORKSPACE_ARG = click.argument(
    "workspace", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)
TODAY_OPTION = click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Pretend today is this date (reproducible output on any date). Default: today.",
)


def clock_for(today: datetime | None) -> Callable[[], float]:
    """The clock a verb runs on: the real one, or noon UTC of `--today` for output that never ages."""
    if today is None:
        return time.time
    moment = datetime(today.year, today.month, today.day, 12, tzinfo=UTC).timestamp()
    return lambda: moment


def _handle_errors(command: F) -> F:
    """Turn MemorySleepError into a one-line message and exit code 1; MEMORY_SLEEP_DEBUG=1 re-raises."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except MemorySleepError as error:
            if os.environ.get("MEMORY_SLEEP_DEBUG") == "1":
                raise
            click.echo(f"Error: {error}", err=True)
            sys.exit(1)
        except (KeyboardInterrupt, click.exceptions.Exit, click.ClickException):
            raise
        except BrokenPipeError:  # output piped into `head` or the like, which stopped reading
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as error:
            if os.environ.get("MEMORY_SLEEP_DEBUG") == "1":
                raise
            click.echo(
                f"Error: unexpected {type(error).__name__}: {error}. Nothing was written after the failure; "
                "rerun with MEMORY_SLEEP_DEBUG=1 for the traceback and report it.",
                err=True,
            )
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def _record_failures(command: F) -> F:
    """A run that raises leaves a `failed` record with its error in memory/sleep-log.json (outcome.py)."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from .outcome import Attempt, recorded_outcome

        today = kwargs["today"].date() if kwargs.get("today") else date.today()
        attempt = Attempt(
            kwargs["workspace"], today, kwargs.get("engine"), dry_run=kwargs.get("dry_run", False)
        )
        with recorded_outcome(attempt):
            return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _config(workspace: Workspace, config_file: Path | None) -> Config:
    return load_config(config_file or workspace.config_file, required=config_file is not None)


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="memory-sleep")
def main() -> None:
    """Consolidate an AI agent's daily notes into compact long-term memory, the way sleep does.

    Exit codes: 0 ok, 1 a problem the message explains (nothing half-written), 2 wrong usage.
    """


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the diff of every file the run would change; write nothing.",
)
@click.option(
    "--phase",
    "phases",
    multiple=True,
    type=click.Choice(PHASES),
    help="Run only this phase (repeatable). Default: all three.",
)
@TODAY_OPTION
@click.option(
    "--engine",
    type=click.Choice(["auto", "offline", "anthropic", "openai"]),
    help="Engine for the decisions. Default: config, else auto.",
)
@click.option(
    "--model", help="Model name for an LLM engine. Default: [engine] model, else the provider's default."
)
@click.option(
    "--require-llm",
    is_flag=True,
    help="Fail (exit 1, nothing changed) instead of deciding offline when no model provider can be used.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file. Default: WORKSPACE/memory-sleep.toml.",
)
@click.option(
    "--wait",
    type=float,
    help="Seconds to wait for another run's lock before giving up. Default: 0.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's record as JSON.")
@click.option("-v", "--verbose", count=True, help="Say more (every warning and file).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option(
    "--if-due",
    is_flag=True,
    help="Run only if [schedule] interval_secs (23.5 h) have passed since the last successful run; "
    "for cron, where an hourly schedule is then safe.",
)
@_handle_errors
@_record_failures
def run(
    workspace: Path,
    dry_run: bool,
    phases: tuple[str, ...],
    today: Any,
    engine: str | None,
    model: str | None,
    require_llm: bool,
    config_file: Path | None,
    wait: float | None,
    as_json: bool,
    verbose: int,
    quiet: bool,
    if_due: bool,
) -> None:
    """Run the sleep cycle (NREM, REM, cleanup) on WORKSPACE (default: this folder).

    Reads memory/YYYY-MM-DD*.md, updates MEMORY.md, memory/weekly/, memory/briefing.md, memory/archive.md
    and memory/sleep-log.json. Every changed file is snapshotted first: `memory-sleep undo` reverts the run.
    """
    space = Workspace.open(workspace)
    config = _config(space, config_file)
    if engine:
        config.engine.name = engine  # type: ignore[assignment]
    if model:
        config.engine.model = model
    if require_llm:
        config.engine.require_llm = True
    if wait is not None:
        config.lock_timeout_secs = wait
    if if_due:
        from .schedule import due_check

        check = due_check(space, config)
        if not check.due:
            if verbose:
                click.echo(f"Not due: {check.reason()}.")
            return
        click.echo(check.header(space), err=True)
    options = RunOptions(
        today=today.date() if today else date.today(),
        phases=tuple(phases) or PHASES,
        dry_run=dry_run,
    )
    progress = _progress(quiet or as_json)
    report = run_cycle(space, config, build_engine(config.engine, space.root), options, progress)
    if if_due and not dry_run:
        from .schedule import mark_success

        mark_success(space)  # a run with nothing to do writes no sleep-log record; the schedule counts it
    if as_json:
        click.echo(report.record.model_dump_json(indent=2))
        return
    if dry_run:
        click.echo(report.diff() or "No file would change.", nl=False)
        return
    if quiet:
        return
    record = report.record
    for run_id in report.rolled_back:
        click.echo(f"Recovered: rolled back run {run_id}, which had stopped half-way.")
    click.echo(engine_line(record))
    if not report.changes:
        click.echo("Nothing to do: no new or changed notes since the last run.")
        return
    ops = ", ".join(f"{n} {op}" for op, n in record.operations.items() if n) or "no changes"
    click.echo(
        f"NREM: {record.dailyFilesProcessed} notes read, {record.itemsKept} items kept, {record.itemsDiscarded} discarded"
    )
    click.echo(
        f"REM: {ops}; {record.entriesArchived} archived; MEMORY.md {record.memoryMdSizeBefore:,} -> {record.memoryMdSizeAfter:,} bytes"
    )
    click.echo(
        f"Cleanup: {len(record.weeklyFilesWritten)} weekly summaries, briefing {'written' if record.briefingGenerated else 'skipped'}"
    )
    shown = record.warnings if verbose else record.warnings[:5]
    for warning in shown:
        click.echo(f"Warning: {warning}", err=True)
    if len(record.warnings) > len(shown):
        click.echo(
            f"({len(record.warnings) - len(shown)} more warnings: -v shows all, memory/sleep-log.json keeps them)",
            err=True,
        )
    if report.strays and verbose:
        click.echo(f"Left alone (not daily notes): {', '.join(report.strays)}")


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option(
    "--force",
    is_flag=True,
    help="Restore even files edited since the run (their current versions are kept in the snapshot).",
)
@click.option("--dry-run", is_flag=True, help="Show which files would be restored; change nothing.")
@_handle_errors
def undo(workspace: Path, force: bool, dry_run: bool) -> None:
    """Restore every file the last run changed (or created) to how it was before that run."""
    space = Workspace.open(workspace)
    config = _config(space, None)
    writer = SafeWriter(space.root, space.state_dir / "snapshots", keep=config.keep_snapshots)
    if dry_run:
        paths = dict.fromkeys(f.path for m in reversed(writer.undo_targets()) for f in m.files)
        click.echo("\n".join(f"would restore {path}" for path in paths) or "Nothing to undo.")
        return
    from .lock import workspace_lock

    with workspace_lock(space.state_dir, config.lock_timeout_secs):
        manifest = writer.undo(force=force)
    click.echo(f"Undid run {manifest.run_id}: restored {len(manifest.files)} files.")


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@TODAY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def status(workspace: Path, today: datetime | None, as_json: bool) -> None:
    """Show the last run, counts, and what is pending for the next one."""
    space = Workspace.open(workspace)
    report = workspace_status(space, _config(space, None), today.date() if today else date.today())
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
        return
    for key, value in report.items():
        click.echo(f"{key}: {value}")


def _progress(silent: bool) -> Callable[[str], None] | None:
    if silent or not sys.stderr.isatty():
        return None
    from rich.console import Console

    console = Console(stderr=True)
    return lambda stage: console.print(f"[dim]… {stage}[/dim]")


# the other verbs live in modules of their own and register themselves on `main`
from . import cli_recall, cli_setup  # noqa: E402, F401
