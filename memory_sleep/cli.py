"""The memory-sleep command line: argument parsing only; the work happens in the modules it calls."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from datetime import date
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
@click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Pretend today is this date (reproducible runs). Default: today.",
)
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
        done = [m for m in writer.manifests() if m.status == "done"]
        click.echo(
            "\n".join(f"would restore {f.path}" for f in done[-1].files) if done else "Nothing to undo."
        )
        return
    from .lock import workspace_lock

    with workspace_lock(space.state_dir, config.lock_timeout_secs):
        manifest = writer.undo(force=force)
    click.echo(f"Undid run {manifest.run_id}: restored {len(manifest.files)} files.")


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def status(workspace: Path, as_json: bool) -> None:
    """Show the last run, counts, and what is pending for the next one."""
    space = Workspace.open(workspace)
    report = workspace_status(space, _config(space, None))
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
        return
    for key, value in report.items():
        click.echo(f"{key}: {value}")


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Count what would be added, updated or removed; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_handle_errors
def index(workspace: Path, dry_run: bool, as_json: bool) -> None:
    """Index MEMORY.md entries, weekly summaries and daily-note items into the vector sidecar.

    Incremental: only changed files are read and only changed items embedded. `memory-sleep run`
    does this too, after writing the markdown.
    """
    from .sidecar import display, open_sidecar

    with open_sidecar(workspace) as sidecar:
        report = sidecar.index(dry_run=dry_run)
    if as_json:
        click.echo(json.dumps(display.index_dict(report), indent=2))
        return
    click.echo("\n".join(display.index_lines(report, dry_run)))


@main.command(context_settings=CONTEXT)
@click.argument("query")
@WORKSPACE_ARG
@click.option("-k", "k", type=click.IntRange(1, 1000), default=5, show_default=True, help="How many results.")
@click.option("--scope", help="Only entries of this scope (a user or agent id). Default: every scope.")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "vector", "text"]),
    default="hybrid",
    show_default=True,
    help="Vector and full-text fused, or one of them alone.",
)
@click.option("--dry-run", is_flag=True, help="Search only: log no query and count no access.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@_handle_errors
def recall(
    query: str, workspace: Path, k: int, scope: str | None, mode: str, dry_run: bool, as_json: bool
) -> None:
    """Search the sidecar for QUERY; print ranked entries with source file, line and date.

    Each recall is logged (query, embedding, time, returned ids and ranks) and counts an access of
    every entry it returns: the forgetting pass scores and replays that log.
    """
    from .sidecar import display, open_sidecar

    with open_sidecar(workspace) as sidecar:
        find = sidecar.search if dry_run else sidecar.recall
        hits = find(query, k=k, scope=scope, mode=mode)  # type: ignore[arg-type]
    if as_json:
        click.echo(json.dumps([hit.as_dict() for hit in hits], indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(display.hit_lines(hits)))


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def stats(workspace: Path, as_json: bool) -> None:
    """Show what the vector sidecar holds: entries, soft-deleted, by source and scope, queries, size."""
    from .sidecar import display, open_sidecar

    with open_sidecar(workspace) as sidecar:
        report = sidecar.stats()
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo("\n".join(display.stats_lines(report)))


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Score and judge every entry; soft-delete nothing.")
@click.option(
    "--all", "explain_all", is_flag=True, help="List every entry, not only those below the threshold."
)
@click.option(
    "--rebuild-density",
    is_flag=True,
    help="Finish building the density counts however long it takes (a resumable background job at 1M).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the pass as JSON.")
@_handle_errors
def forget(workspace: Path, dry_run: bool, explain_all: bool, rebuild_density: bool, as_json: bool) -> None:
    """Run a forgetting pass (SleepGate) now, due or not, and print each entry's scores and verdict.

    Entries scoring below [memory.forgetting] retention_threshold are soft-deleted (kept in SQLite,
    out of recall) unless a replayed logged query needs them (load-bearing) or they are the last of
    their near-duplicate cluster. `memory-sleep restore` brings them back.
    """
    from .sidecar import open_sidecar
    from .sleepgate import display
    from .sleepgate.session import forget as forget_now

    space = Workspace.open(workspace)
    config = _config(space, None)
    settings = config.memory.forgetting
    with open_sidecar(space.root, config) as sidecar:
        budget = None if rebuild_density else settings.rebuild_budget_secs
        report = forget_now(sidecar, settings, dry_run, explain_all, budget)
    if as_json:
        click.echo(json.dumps(display.pass_dict(report), indent=2))
        return
    click.echo("\n".join(display.pass_lines(report, explain_all)))


@main.command(context_settings=CONTEXT)
@click.argument("ids", nargs=-1, type=int)
@click.option(
    "-w",
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    help="The workspace (default: this folder).",
)
@click.option("--pass", "pass_id", metavar="PASS_ID", help="Every entry a forgetting pass soft-deleted.")
@click.option(
    "--since", metavar="TIME", help="Every entry forgotten at or after TIME (ISO date or date-time)."
)
@click.option("--dry-run", is_flag=True, help="Say what would be restored; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_handle_errors
def restore(
    ids: tuple[int, ...],
    workspace: Path,
    pass_id: str | None,
    since: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Bring forgotten entries back exactly: restore ID..., --pass PASS_ID or --since TIME.

    The entries return to recall with their text, embedding, access counts and history unchanged.
    """
    from .sidecar import open_sidecar
    from .sleepgate import display
    from .sleepgate.session import restore as restore_now

    if sum(bool(choice) for choice in (ids, pass_id, since)) != 1:
        raise click.UsageError("Name entries to restore: IDs, --pass PASS_ID or --since TIME (one of them).")
    moment = _parse_time(since) if since else None
    with open_sidecar(workspace) as sidecar:
        report = restore_now(sidecar, list(ids), pass_id, moment, dry_run)
    if as_json:
        click.echo(json.dumps({"restored": report.restored, "skipped": report.skipped}, indent=2))
        return
    click.echo("\n".join(display.restore_lines(report, dry_run)))


def _parse_time(text: str) -> float:
    from datetime import datetime

    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: give an ISO date or date-time, e.g. 2026-11-24 or 2026-11-24T04:00",
            param_hint="--since",
        ) from None


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Say what would be created; create nothing.")
@_handle_errors
def init(workspace: Path, dry_run: bool) -> None:
    """Create a workspace: MEMORY.md, memory/ and a memory-sleep.toml listing every key, commented out.

    Never overwrites: files already there are left as they are and listed.
    """
    from .scaffold import init_workspace

    report = init_workspace(workspace, dry_run=dry_run)
    verb = "Would create" if dry_run else "Created"
    click.echo(f"{verb} in {report.root}: {', '.join(report.created) or 'nothing'}")
    if report.kept:
        click.echo(f"Already there, left alone: {', '.join(report.kept)}")
    if report.created and not dry_run:
        click.echo(
            f"Next: write daily notes to {report.root / 'memory'}/YYYY-MM-DD.md, then `memory-sleep run "
            f"{report.root}`; `memory-sleep cron install {report.root}` runs it nightly."
        )


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@_handle_errors
def doctor(workspace: Path, as_json: bool) -> None:
    """Check WORKSPACE and say what to fix: config, API keys, lock, sidecar, file sizes, notes, cron.

    Exit code 1 when something must be fixed (a FAIL line); warnings alone exit 0.
    """
    from .doctor import diagnose

    report = diagnose(Workspace.open(workspace))
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(report.lines()))
    if report.failures:
        sys.exit(1)


@main.group(context_settings=CONTEXT)
def cron() -> None:
    """Schedule the nightly run: one crontab line per workspace, output in memory/.sleep/cron.log.

    The line runs `memory-sleep run WORKSPACE --if-due`, so running it more often than daily is safe.
    MEMORY_SLEEP_CRONTAB=FILE manages that file instead of your crontab.
    """


@cron.command("install", context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--at", "at", metavar="HH:MM", help="Time of day, local time. Default: 04:00.")
@click.option(
    "--schedule", metavar="'M H D M W'", help="Five cron fields instead, e.g. '0 * * * *' (hourly)."
)
@click.option("--dry-run", is_flag=True, help="Print the line; leave the crontab alone.")
@_handle_errors
def cron_install(workspace: Path, at: str | None, schedule: str | None, dry_run: bool) -> None:
    """Add (or update) this workspace's crontab line; every other line is left as it is."""
    from . import cron as scheduling

    if at and schedule:
        raise click.UsageError("Give --at or --schedule, not both.")
    space = Workspace.open(workspace)
    change = scheduling.install(
        scheduling.default_crontab(), space, scheduling.schedule_for(at, schedule), dry_run=dry_run
    )
    if not change.changed:
        click.echo(f"Already installed: {change.after}")
    elif dry_run:
        click.echo(f"Would install: {change.after}")
    else:
        click.echo(f"{'Updated' if change.before else 'Installed'}: {change.after}")
        click.echo(f"Output goes to {space.root / scheduling.CRON_LOG}; check with `memory-sleep doctor`.")


@cron.command("remove", context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Print the line that would go; leave the crontab alone.")
@_handle_errors
def cron_remove(workspace: Path, dry_run: bool) -> None:
    """Remove this workspace's crontab line; every other line is left as it is."""
    from . import cron as scheduling

    change = scheduling.remove(scheduling.default_crontab(), Workspace.open(workspace), dry_run=dry_run)
    if change.before is None:
        click.echo("No memory-sleep line for this workspace; nothing to remove.")
    else:
        click.echo(f"{'Would remove' if dry_run else 'Removed'}: {change.before}")


@cron.command("show", context_settings=CONTEXT)
@WORKSPACE_ARG
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def cron_show(workspace: Path, as_json: bool) -> None:
    """Show this workspace's crontab line, the log it writes, and when the next run is due."""
    from . import cron as scheduling
    from .schedule import due_check

    space = Workspace.open(workspace)
    line = scheduling.find_line(scheduling.default_crontab().read(), space)
    check = due_check(space, _config(space, None))
    report = {
        "workspace": str(space.root),
        "installed": line is not None,
        "line": line,
        "log": str(space.root / scheduling.CRON_LOG),
        "last_success": check.last_success.isoformat() if check.last_success else None,
        "due_now": check.due,
    }
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(line or f"Not installed. `memory-sleep cron install {space.root}` adds a line for 04:00.")
    click.echo(f"Log: {report['log']}")
    click.echo(f"Run --if-due: {'due now' if check.due else 'not due'} ({check.reason()})")


@cron.command("prompt", context_settings=CONTEXT)
@WORKSPACE_ARG
@_handle_errors
def cron_prompt(workspace: Path) -> None:
    """Print the prompt to schedule on agent platforms that schedule prompts rather than commands."""
    from .cron import cron_prompt as render

    space = Workspace.open(workspace)
    click.echo(render(space, _config(space, None)), nl=False)


@main.command(context_settings=CONTEXT)
@_handle_errors
def skill() -> None:
    """Print SKILL.md, the agent skill: save it as ~/.claude/skills/memory-sleep/SKILL.md (see README.md)."""
    from .scaffold import skill_text

    click.echo(skill_text(), nl=False)


@main.command(context_settings=CONTEXT)
@WORKSPACE_ARG
@_handle_errors
def mcp(workspace: Path) -> None:
    """Serve WORKSPACE to an agent over MCP (stdio): tools recall, remember, consolidate, status, briefing.

    Configure your agent to start `memory-sleep mcp /path/to/workspace`; see README.md.
    """
    from .mcp_server import serve

    serve(workspace)


def _progress(silent: bool) -> Callable[[str], None] | None:
    if silent or not sys.stderr.isatty():
        return None
    from rich.console import Console

    console = Console(stderr=True)
    return lambda stage: console.print(f"[dim]… {stage}[/dim]")
