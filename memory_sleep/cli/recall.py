"""CLI verbs of the vector sidecar and SleepGate: index, migrate, recall, stats, forget, restore."""

from __future__ import annotations

import json
import os
from contextlib import nullcontext
from datetime import date, datetime
from pathlib import Path

import click

from memory_sleep.cli.main import (
    CONTEXT,
    TODAY_OPTION,
    WAIT_OPTION,
    WORKSPACE_ARG,
    _config,
    _handle_errors,
    clock_for,
    main,
)
from memory_sleep.errors import MemorySleepError, WorkspaceError
from memory_sleep.workspace.layout import Workspace


@main.command(context_settings=CONTEXT, short_help="Bring the vector sidecar up to date with the files.")
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Count what would be added, updated or removed; write nothing.")
@TODAY_OPTION
@WAIT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_handle_errors
def index(workspace: Path, dry_run: bool, today: datetime | None, wait: float | None, as_json: bool) -> None:
    """Index MEMORY.md (the tool's entries and what you wrote), weekly summaries and daily-note items
    into the vector sidecar.

    Incremental: only changed files are read and only changed items embedded. `memory-sleep run`
    does this too, after writing the markdown; while a run holds the workspace, `index` waits for
    it (`--wait`) or stops and says so, rather than index files the run is rewriting.
    """
    from memory_sleep.sidecar import display, open_sidecar
    from memory_sleep.workspace.lock import workspace_lock

    space = Workspace.open(workspace)
    timeout = _config(space, None).lock_timeout_secs if wait is None else wait
    held = nullcontext() if dry_run else workspace_lock(space.state_dir, timeout)
    with held, open_sidecar(workspace, clock=clock_for(today)) as sidecar:
        report = sidecar.index(dry_run=dry_run)
    if as_json:
        click.echo(json.dumps(display.index_dict(report), indent=2))
        return
    click.echo("\n".join(display.index_lines(report, dry_run)))


@main.command(context_settings=CONTEXT, short_help="Bring the sidecar's schema up to date.")
@WORKSPACE_ARG
@_handle_errors
def migrate(workspace: Path) -> None:
    """Bring the sidecar's schema up to date: the SQLite file, or with `[sidecar] store = "postgres"`
    the shared database (its tables, then the HNSW index). Safe to rerun, and from many agents at
    once: one migrates, the others wait and find nothing left to do."""
    from memory_sleep.config import load_config
    from memory_sleep.sidecar.store import DB_NAME, upgrade_sqlite

    space = Workspace.open(workspace)
    settings = load_config(space.config_file).sidecar
    if settings.store == "postgres":
        from memory_sleep.sidecar.pg.connect import resolve_dsn, shown
        from memory_sleep.sidecar.pg.health import upgrade

        dsn = resolve_dsn(settings.dsn)
        from memory_sleep.sidecar.embed import build_embedder

        dimensions = settings.dimensions or build_embedder(settings).dimensions
        done, where = upgrade(dsn, dimensions), shown(dsn)
    else:
        path = space.check_state_dir() / DB_NAME
        done, where = upgrade_sqlite(path), space.relative(path)
    click.echo(f"{where}: " + (f"applied {', '.join(done)}" if done else "up to date"))


def _words(context: click.Context, parameter: click.Parameter, query: str) -> str:
    if not query.strip():
        raise click.BadParameter('empty: give the words to search for, e.g. recall "billing cutover".')
    return query


@main.command(context_settings=CONTEXT, short_help="Search memory for a query: what is true now first.")
@click.argument("query", callback=_words)
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
@click.option(
    "--as-of",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    metavar="YYYY-MM-DD",
    help="Answer as memory stood on this date: what was written by then, valid or ended by then.",
)
@click.option(
    "--include-discarded", is_flag=True, help="Also search items the run discarded as noise (routine, debug)."
)
@click.option("--dry-run", is_flag=True, help="Search only: log no query and count no access.")
@TODAY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@_handle_errors
def recall(
    query: str,
    workspace: Path,
    k: int,
    scope: str | None,
    mode: str,
    as_of: datetime | None,
    include_discarded: bool,
    dry_run: bool,
    today: datetime | None,
    as_json: bool,
) -> None:
    """Search memory for QUERY: the notes, MEMORY.md, weekly summaries and the archive, as the last run
    indexed them (the sidecar index, memory/.sleep/sidecar.db by default); print ranked entries with
    source file, line and date.

    What is true now ranks first; a result that stopped being true says so ("superseded 2026-11-25
    by memory/2026-11-25.md:14", "done 2026-11-20 by ..."), and a dated result that a later line
    restates with another value is marked "older, see" that later line, which ranks above it. Each
    recall is logged (query, embedding, time, returned ids and ranks) and counts an access of every
    entry it returns: the forgetting pass scores and replays that log. On a read-only workspace the
    hits are printed with a warning that the recall was not logged.

    Exit codes: 0 when the search ran, found or not ("No match.", `[]` with --json); 1 when nothing
    can be searched (no sidecar yet, or an empty one: the message says what to run first).
    """
    # set before numpy loads OpenBLAS: its worker threads, started then, cost the process ~20 ms of CPU
    # and do no work here (vectors.py multiplies in blocks that OpenBLAS runs on one thread)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not workspace.is_dir() and Path(query).is_dir():
        raise click.UsageError(f'the query comes first: memory-sleep recall "{workspace}" {query}')
    if not workspace.exists() and len(workspace.parts) == 1:  # a bare word: the query's last, unquoted
        raise click.UsageError(
            f"{workspace}: no such folder. A query of several words goes in quotes: memory-sleep recall "
            f'"{query} {workspace}" [WORKSPACE]'
        )
    now = today.date() if today else date.today()
    if as_of and as_of.date() > now:
        raise click.BadParameter(
            f"{as_of.date()} is after today ({now}): memory says what is true by today at the latest. "
            "Leave --as-of out for what is true now, or give a past date.",
            param_hint="--as-of",
        )
    from memory_sleep.sidecar import display, index_failure
    from memory_sleep.sidecar.recall import open_sidecar
    from memory_sleep.sidecar.store import DB_NAME

    space = Workspace.open(workspace)
    built = (space.state_dir / DB_NAME).is_file()
    with open_sidecar(workspace, clock=clock_for(today)) as sidecar:
        unlogged = None if dry_run else sidecar.store.read_only
        find = sidecar.search if dry_run or unlogged else sidecar.recall
        day = as_of.date() if as_of else None
        hits = find(query, k=k, scope=scope, mode=mode, as_of=day, include_discarded=include_discarded)  # type: ignore[arg-type]
        missing = sidecar.config.store == "sqlite" and not built
        empty = None if hits else display.nothing_indexed(missing, sidecar.store.entry_count(), space.root)
    if behind := index_failure.recall_warning(space.state_dir, space.root):
        click.echo(behind, err=True)
    if unlogged:
        click.echo(
            f"Warning: cannot log this recall ({unlogged}): the hits are shown, but forgetting will not "
            "count them as used. Make the workspace writable to log recalls again.",
            err=True,
        )
    if empty:  # cannot search (exit 1), unlike a search that found nothing ("No match.", exit 0)
        raise WorkspaceError(empty)
    if as_json:
        click.echo(json.dumps([hit.as_dict() for hit in hits], indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(display.hit_lines(hits)))


@main.command(context_settings=CONTEXT, short_help="Show what the vector sidecar holds.")
@WORKSPACE_ARG
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_handle_errors
def stats(workspace: Path, as_json: bool) -> None:
    """Show what the vector sidecar holds: entries, soft-deleted, by source and scope, queries, size,
    and the state of forgetting (last pass, density counts)."""
    from memory_sleep.sidecar import display, open_sidecar
    from memory_sleep.sleepgate import display as forgetting_display
    from memory_sleep.sleepgate import state as forgetting_state

    with open_sidecar(workspace) as sidecar:
        report = sidecar.stats()
        forgetting = forgetting_state.status(sidecar.store)
    if as_json:
        click.echo(json.dumps({**report, "forgetting": forgetting}, indent=2))
        return
    click.echo("\n".join([*display.stats_lines(report), forgetting_display.status_line(forgetting)]))


@main.command(
    context_settings=CONTEXT, short_help="Run a forgetting pass (SleepGate) now and show each verdict."
)
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
@TODAY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the pass as JSON.")
@_handle_errors
def forget(
    workspace: Path,
    dry_run: bool,
    explain_all: bool,
    rebuild_density: bool,
    today: datetime | None,
    as_json: bool,
) -> None:
    """Run a forgetting pass (SleepGate) now, due or not, and print each entry's scores and verdict.

    Entries scoring below [memory.forgetting] retention_threshold are soft-deleted (kept in SQLite,
    out of recall) unless a replayed logged query needs them (load-bearing), they are the last of
    their near-duplicate cluster, or they are the latest word on an entry that ended (the line that
    superseded or closed it). `memory-sleep restore` brings them back; `memory-sleep undo` reverts the
    last pass whole, as it does a run.
    """
    from memory_sleep.cycle.forget_run import forget_now
    from memory_sleep.sidecar import open_sidecar
    from memory_sleep.sleepgate import display
    from memory_sleep.sleepgate.forget import Explain
    from memory_sleep.sleepgate.session import forget as forget_dry

    space = Workspace.open(workspace)
    config = _config(space, None)
    budget = None if rebuild_density else config.memory.forgetting.rebuild_budget_secs
    explain: Explain = "all" if explain_all else "candidates"
    if dry_run:
        with open_sidecar(space.root, config, clock=clock_for(today)) as sidecar:
            report = forget_dry(sidecar, config.memory.forgetting, True, explain, budget)
    else:
        report = forget_now(space, config, explain, budget, clock_for(today))
    if as_json:
        click.echo(json.dumps(display.pass_dict(report), indent=2))
        return
    click.echo("\n".join(display.pass_lines(report, explain_all)))


@main.command(context_settings=CONTEXT, short_help="Bring forgotten entries back exactly.")
@click.argument("targets", nargs=-1, metavar="[ID]... [WORKSPACE]")
@click.option(
    "-w",
    "--workspace",
    "workspace_option",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace, as an option (for a folder whose name is a number).",
)
@click.option("--pass", "pass_id", metavar="PASS_ID", help="Every entry a forgetting pass soft-deleted.")
@click.option(
    "--since", metavar="TIME", help="Every entry forgotten at or after TIME (ISO date or date-time)."
)
@click.option("--dry-run", is_flag=True, help="Say what would be restored; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_handle_errors
def restore(
    targets: tuple[str, ...],
    workspace_option: Path | None,
    pass_id: str | None,
    since: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Bring forgotten entries back exactly: restore ID..., --pass PASS_ID or --since TIME.

    The workspace comes last, as for every verb (default: this folder): `restore 12 40 ~/agent`.
    The entries return to recall with their text, embedding, access counts and history unchanged.
    """
    from memory_sleep.cycle.forget_run import restore_now
    from memory_sleep.sidecar import open_sidecar
    from memory_sleep.sleepgate import display
    from memory_sleep.sleepgate.restore import UNKNOWN_ENTRY
    from memory_sleep.sleepgate.session import restore as restore_dry

    ids, workspace = _ids_and_workspace(targets, workspace_option)
    if sum(bool(choice) for choice in (ids, pass_id, since)) != 1:
        raise click.UsageError("Name entries to restore: IDs, --pass PASS_ID or --since TIME (one of them).")
    moment = _parse_time(since) if since else None
    if dry_run:
        with open_sidecar(workspace) as sidecar:
            report = restore_dry(sidecar, list(ids), pass_id, moment, dry_run=True)
    else:
        space = Workspace.open(workspace)
        report = restore_now(space, _config(space, None), list(ids), pass_id, moment)
    if as_json:
        skipped = [{"id": entry_id, "reason": why} for entry_id, why in sorted(report.skipped.items())]
        click.echo(json.dumps({"restored": report.restored, "skipped": skipped}, indent=2))
    else:
        click.echo("\n".join(display.restore_lines(report, dry_run)))
    unknown = [entry_id for entry_id, why in sorted(report.skipped.items()) if why == UNKNOWN_ENTRY]
    if unknown:  # a mistyped id is a failure, whatever else was restored
        raise MemorySleepError(
            f"no entry {', '.join(map(str, unknown))} in the sidecar: the ids are those `forget` and `gc` print; "
            "`restore --since DATE` brings back everything forgotten since DATE."
        )


def _ids_and_workspace(targets: tuple[str, ...], workspace_option: Path | None) -> tuple[list[int], Path]:
    """Entry ids are numbers; a last argument that is not a number is the workspace."""
    workspace = workspace_option
    if targets and not targets[-1].isdigit():
        if workspace is not None:
            raise click.UsageError(f"Two workspaces: {targets[-1]!r} and --workspace {workspace}; give one.")
        workspace, targets = Path(targets[-1]), targets[:-1]
    wrong = [target for target in targets if not target.isdigit()]
    if wrong:
        raise click.BadParameter(
            f"{wrong[0]!r} is not an entry id: give the ids (numbers) first and the workspace last.",
            param_hint="[ID]... [WORKSPACE]",
        )
    return [int(target) for target in targets], workspace or Path(".")


def _parse_time(text: str) -> float:
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: give an ISO date or date-time, e.g. 2026-11-24 or 2026-11-24T04:00",
            param_hint="--since",
        ) from None
