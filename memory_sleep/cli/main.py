"""The memory-sleep command line: argument parsing only; the work happens in the modules it calls."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memory_sleep.cycle import PHASES
from memory_sleep.errors import MemorySleepError
from memory_sleep.text import counted
from memory_sleep.workspace.layout import Workspace

if TYPE_CHECKING:
    from memory_sleep.config import Config

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
# the run's operation counts as the REM line says them: an item kept but not sure to last is no entry
_OPERATIONS = {"left": "kept in the notes only"}
WORKSPACE_ARG = click.argument(
    "workspace", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)
TODAY_OPTION = click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    metavar="YYYY-MM-DD",
    help="Pretend today is this date (reproducible output on any date). Default: today.",
)
WAIT_OPTION = click.option(
    "--wait",
    type=float,
    help="Seconds to wait for another run's lock before giving up. Default: 0.",
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
        from memory_sleep.cycle.outcome import Attempt, recorded_outcome

        today = kwargs["today"].date() if kwargs.get("today") else date.today()
        attempt = Attempt(
            kwargs["workspace"], today, kwargs.get("engine"), dry_run=kwargs.get("dry_run", False)
        )
        with recorded_outcome(attempt):
            return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _config(workspace: Workspace, config_file: Path | None) -> Config:
    from memory_sleep.config import load_config  # pydantic: a recall reads its settings without it

    return load_config(config_file or workspace.config_file, required=config_file is not None)


VERB_MODULES = {  # the verbs of modules of their own (memory_sleep/cli/NAME.py), which register on `main`
    **dict.fromkeys(("index", "migrate", "recall", "stats", "forget", "restore"), "recall"),
    **dict.fromkeys(("forget-scope", "purge"), "forget"),
    **dict.fromkeys(("gc", "review"), "gc"),
    "redact": "redact",
    **dict.fromkeys(("init", "doctor", "cron", "skill", "mcp"), "setup"),
}


class Verbs(click.Group):
    """The verbs of this module and of `VERB_MODULES`. Only the module of the verb a command line
    names is imported, so a recall skips what gc, forget-scope or setup need; help imports them all."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *VERB_MODULES})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands:  # an unknown name imports them all: "Did you mean" offers any verb
            for module in {VERB_MODULES[name]} if name in VERB_MODULES else set(VERB_MODULES.values()):
                importlib.import_module(f"memory_sleep.cli.{module}")
        return super().get_command(ctx, name)


@click.group(cls=Verbs, context_settings=CONTEXT)
@click.version_option(package_name="memory-sleep")
def main() -> None:
    """Consolidate an AI agent's daily notes into compact long-term memory, the way sleep does.

    \b
    First time:
      memory-sleep init DIR      then write notes to DIR/memory/YYYY-MM-DD.md
      memory-sleep run DIR       consolidate them (`memory-sleep undo DIR` reverts a run)
      memory-sleep doctor DIR    what is wrong, and what to do about it

    Exit codes: 0 ok, 1 a problem the message explains (nothing half-written), 2 wrong usage,
    3 decisions waiting for the agent (`run --engine agent`: answer them, then run again), 130 a run
    stopped with Ctrl-C.
    """


@main.command(context_settings=CONTEXT, short_help="Run the sleep cycle (NREM, REM, cleanup) on a workspace.")
@WORKSPACE_ARG
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the edit plan and the diff of every file the run would change; write nothing.",
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
    type=click.Choice(["auto", "offline", "anthropic", "openai", "agent"]),
    help="Engine for the decisions; `agent`: you (the host agent) answer its requests, no API key. "
    "Default: config, else auto.",
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
@WAIT_OPTION
@click.option(
    "--accept-memory-reset",
    is_flag=True,
    help="Go on when MEMORY.md was emptied or cut since the last run (refused otherwise), from it as it is now.",
)
@click.option(
    "--accept-mass-change",
    is_flag=True,
    help="Go on when one note would rewrite or archive more of MEMORY.md than max_rewrite_share "
    "(refused otherwise: a note of many similar lines).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's record as JSON.")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Say more: each item discarded (routine, debug and heartbeat lines only counted) or kept in the notes"
    " only, with the reason; every warning and file.",
)
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
    accept_memory_reset: bool,
    accept_mass_change: bool,
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
        from memory_sleep.cycle.schedule import due_check

        check = due_check(space, config)
        if not check.due:
            if verbose:
                click.echo(f"Not due: {check.reason()}.")
            return
        click.echo(check.header(space), err=True)
    from memory_sleep.cycle.runner import RunOptions, run_cycle
    from memory_sleep.engines.select import build_engine
    from memory_sleep.workspace.sleep_log import engine_line, snake_case_record

    options = RunOptions(
        today=today.date() if today else date.today(),
        phases=tuple(phases) or PHASES,
        dry_run=dry_run,
        accept_memory_reset=accept_memory_reset,
        accept_mass_change=accept_mass_change,
    )
    try:
        with _progress(quiet or as_json) as progress:
            report = run_cycle(
                space, config, build_engine(config.engine, space.root, progress), options, progress
            )
    except KeyboardInterrupt:
        click.echo(
            "Interrupted: nothing was written."
            if dry_run
            else "Interrupted: the run stopped before it finished. The next `memory-sleep run` first rolls "
            "back anything it left half-written (`memory-sleep undo` only rolls it back).",
            err=True,
        )
        sys.exit(130)
    if report.waiting:
        _stop_for_the_agent(space, report.waiting, options.today, as_json)
    if if_due and not dry_run:
        from memory_sleep.cycle.schedule import mark_success

        mark_success(space)  # a run with nothing to do writes no sleep-log record; the schedule counts it
    if as_json and dry_run:
        plan = [edit.model_dump(mode="json", exclude_none=True) for edit in report.plan]
        click.echo(json.dumps({"plan": plan, "record": snake_case_record(report.record)}, indent=2))
        return
    if as_json:
        click.echo(json.dumps(snake_case_record(report.record), indent=2))
        return
    if dry_run:
        click.echo(report.plan_text() + (report.diff() or "No file would change.\n"), nl=False)
        if verbose:
            click.echo(report.verdicts_text(), nl=False)
        return
    if quiet:
        return
    record = report.record
    for run_id in report.rolled_back:
        click.echo(f"Recovered: rolled back run {run_id}, which had stopped half-way.")
    click.echo(engine_line(record))
    if not report.changes:
        click.echo("Nothing to do: no new or changed notes since the last run.")
        _report_warnings(record.warnings, verbose)  # a note still skipped, unread, says so each run
        _report_strays(report.strays, verbose)
        return
    ops = ", ".join(f"{n:,} {_OPERATIONS.get(op, op)}" for op, n in record.operations.items() if n)
    click.echo(
        f"NREM: {counted(record.dailyFilesProcessed, 'note')} read, {counted(record.itemsKept, 'item')} kept, "
        f"{record.itemsDiscarded:,} discarded"
    )
    click.echo(
        f"REM: {ops or 'no entry added or changed'}; {record.entriesArchived:,} archived; MEMORY.md {record.memoryMdSizeBefore:,} -> {record.memoryMdSizeAfter:,} bytes"
    )
    click.echo(
        f"Cleanup: {counted(len(record.weeklyFilesWritten), 'weekly summary', 'weekly summaries')}, "
        + (
            f"briefing written to {space.briefing.relative_to(space.root)}"
            if record.briefingGenerated
            else "briefing skipped"
        )
    )
    if verbose:
        click.echo(report.verdicts_text(), nl=False)
    _report_warnings(record.warnings, verbose)
    _report_strays(report.strays, verbose)


def _report_warnings(warnings: list[str], verbose: int) -> None:
    shown = warnings if verbose else warnings[:5]
    for warning in shown:
        click.echo(f"Warning: {warning}", err=True)
    if len(warnings) > len(shown):
        click.echo(
            f"({counted(len(warnings) - len(shown), 'more warning')}: -v shows all, memory/sleep-log.json keeps them)",
            err=True,
        )


def _report_strays(strays: list[str], verbose: int) -> None:
    """With -v, every file of memory/ a run left alone; else those that look like daily notes, which a
    run does not read: a note saved under a wrong name would otherwise never be consolidated, unsaid."""
    from memory_sleep.cli.doctor.file_checks import note_names

    misnamed = [stray for stray in strays if note_names(stray.removeprefix("memory/"))]
    if strays and verbose:
        click.echo(f"Left alone (not daily notes): {', '.join(strays)}")
    elif misnamed:
        click.echo(
            f"Warning: not read, not named memory/YYYY-MM-DD.md: {', '.join(misnamed)}; "
            "`memory-sleep doctor` says what to rename them to.",
            err=True,
        )


def _stop_for_the_agent(space: Workspace, batches: list[str], today: date, as_json: bool) -> None:
    """Exit 3 ("decisions waiting", not a failure) after saying which requests wait and how to answer."""
    from memory_sleep.engines.agent import EXIT_WAITING, AgentDesk, waiting_text

    desk = AgentDesk(space.root)
    requests = [request for batch in batches if (request := desk.request(batch))]
    if as_json:
        click.echo(json.dumps({"status": "waiting", "requests": [r.summary() for r in requests]}, indent=2))
    else:
        command = f"memory-sleep run {space.root} --engine agent --today {today.isoformat()}"
        click.echo(waiting_text(requests, command))
    sys.exit(EXIT_WAITING)


@main.command(context_settings=CONTEXT, short_help="Take back the last run that changed anything.")
@WORKSPACE_ARG
@click.option(
    "--force",
    is_flag=True,
    help="Restore even files edited since the run (their current versions are kept in the snapshot).",
)
@click.option("--dry-run", is_flag=True, help="Show which files would be restored; change nothing.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors and warnings.")
@_handle_errors
def undo(workspace: Path, force: bool, dry_run: bool, quiet: bool) -> None:
    """Restore every file the last run changed (or created) to how it was before that run, and undo
    its passes on the sidecar (forgotten and GC-removed entries come back, GC's merges and marks go).

    Each undo takes back one more run: a second undo undoes the run before. --dry-run shows which run
    is next."""
    from memory_sleep.cycle.undo import held_run_passes, undo_last_run, undo_target, undone_text
    from memory_sleep.workspace.writer import STOPPED, SafeWriter, SnapshotFile

    space = Workspace.open(workspace)
    config = _config(space, None)
    if dry_run:
        writer = SafeWriter(space.root, space.state_dir / "snapshots", keep=config.keep_snapshots)
        stopped = [manifest for manifest in writer.manifests() if manifest.status in STOPPED]
        targets = list(reversed(stopped)) or writer.undo_targets()
        first: dict[str, SnapshotFile] = {}  # each file as the oldest run to undo found it
        for manifest in reversed(targets):
            for file in manifest.files:
                first.setdefault(file.path, file)
        lines = [
            f"would finish undoing run {m.run_id}"
            if m.status == "undoing"
            else f"would roll back run {m.run_id}, which stopped before it finished"
            for m in stopped
        ]
        lines += [f"would undo {undo_target(m)}" for m in targets if m.status not in STOPPED]
        lines += [
            f"would remove {path} (the run created it)"
            if file.before_sha256 is None
            else f"would restore {path}"
            for path, file in first.items()
        ]
        passes = held_run_passes(space, config, writer, targets)
        lines += [f"would undo sidecar pass {pass_id}" for pass_id in passes]
        click.echo("\n".join(lines) or "Nothing to undo.")
        return
    outcome = undo_last_run(space, config, force=force)
    for warning in outcome.warnings:
        click.echo(f"Warning: {warning}", err=True)
    if not quiet:
        click.echo(undone_text(outcome))


@main.command(context_settings=CONTEXT, short_help="Show the last run and what is pending for the next one.")
@WORKSPACE_ARG
@TODAY_OPTION
@click.option(
    "--pending", is_flag=True, help="List only the notes not consolidated yet (new or edited), one per line."
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def status(workspace: Path, today: datetime | None, pending: bool, as_json: bool) -> None:
    """Show the last run, counts, and what is pending for the next one."""
    from memory_sleep.cli.status import status_lines, workspace_status

    space = Workspace.open(workspace)
    report = workspace_status(space, _config(space, None), today.date() if today else date.today())
    if as_json:
        click.echo(json.dumps({"pending_notes": report["pending_notes"]} if pending else report, indent=2))
    elif pending:
        for note in report["pending_notes"]:
            click.echo(note)
        if not report["pending_notes"]:
            click.echo("No note waiting: every daily note is consolidated.", err=True)
    else:
        click.echo("\n".join(status_lines(report)))


@contextlib.contextmanager
def _progress(silent: bool) -> Iterator[Callable[[str], None] | None]:
    """On a terminal, one line on stderr saying what the run waits on and for how long; else nothing."""
    if silent or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, ProgressColumn, Task, TextColumn
    from rich.table import Column
    from rich.text import Text

    class Waited(ProgressColumn):  # first, so that a long description cut at the edge never hides it
        def render(self, task: Task) -> Text:
            seconds = int(task.elapsed or 0)
            return Text(f"… {seconds:>3} s" if seconds else "…", style="dim")

    with Progress(
        Waited(table_column=Column(min_width=7, no_wrap=True)),
        TextColumn("[dim]{task.description}", table_column=Column(ratio=1, no_wrap=True)),
        console=Console(stderr=True),
        transient=True,
    ) as line:
        task = line.add_task("reading the workspace")
        yield lambda stage: line.reset(task, description=stage)
