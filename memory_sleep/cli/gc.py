"""`memory-sleep gc`: run garbage-collection strategies now, as a run of their own (undo reverts it)."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import click

from memory_sleep.cli.main import CONTEXT, TODAY_OPTION, WORKSPACE_ARG, _config, _handle_errors, main
from memory_sleep.gc.actions import STRATEGIES
from memory_sleep.workspace.layout import Workspace


@main.command(
    "gc", context_settings=CONTEXT, short_help="Run a garbage-collection strategy, or all enabled ones."
)
@click.argument("strategy", type=click.Choice([*STRATEGIES, "all"]), metavar="STRATEGY|all")
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Print what each strategy would do; change nothing.")
@TODAY_OPTION
@click.option("--engine", type=click.Choice(["auto", "offline", "anthropic", "openai"]), help="Who rates.")
@click.option("--json", "as_json", is_flag=True, help="Print the actions and counts as JSON.")
@_handle_errors
def gc(
    strategy: str, workspace: Path, dry_run: bool, today: datetime | None, engine: str | None, as_json: bool
) -> None:
    """Run a garbage-collection strategy (or all enabled ones) on WORKSPACE now.

    Strategies: ttl (expired entries), importance (the engine rates each entry), decay (confidence
    under [memory.gc.decay] recall_threshold), usage (unused for unused_days), capacity (over
    max_entries per scope; off unless enabled), contradiction (an older entry a newer one
    supersedes), compaction (alike entries merged into one), summarization (the oldest of a full
    archive in one entry). Entries of
    MEMORY.md are archived through an edit plan; others are soft-deleted in the sidecar
    (`memory-sleep restore --pass ID` brings them back). `memory-sleep undo` reverts the whole run. Judgements the
    engine is unsure of are never applied: `memory-sleep review` lists them to dismiss (`status` too).
    """
    from memory_sleep.cycle.runner import RunOptions, run_cycle
    from memory_sleep.engines.select import build_engine
    from memory_sleep.gc.display import gc_dict, gc_lines
    from memory_sleep.gc.run import selected
    from memory_sleep.sidecar import open_sidecar

    space = Workspace.open(workspace)
    config = _config(space, None)
    if engine:
        config.engine.name = engine  # type: ignore[assignment]
    if not config.sidecar.enabled:
        raise click.UsageError("[sidecar] enabled = false: GC works on the sidecar; enable it first.")
    names = selected((strategy,), config.memory.gc)
    if not dry_run:
        with open_sidecar(space.root, config) as sidecar:
            sidecar.index()  # decide on the files as they are now
    options = RunOptions(
        today=today.date() if today else date.today(), phases=(), dry_run=dry_run, gc=names, forget=False
    )
    report = run_cycle(space, config, build_engine(config.engine, space.root), options)
    if as_json:
        click.echo(json.dumps(gc_dict(report, names, dry_run), indent=2))
        return
    click.echo("\n".join(gc_lines(report, names, dry_run)))


@main.command(
    "review",
    context_settings=CONTEXT,
    short_help="List garbage-collection judgements left for you; dismiss them.",
)
@WORKSPACE_ARG
@click.option(
    "--dismiss",
    "numbers",
    multiple=True,
    metavar="N|all",
    help="Dismiss judgement N as listed (repeat for more), or all of them.",
)
@TODAY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the judgements as JSON.")
@_handle_errors
def review(workspace: Path, numbers: tuple[str, ...], today: datetime | None, as_json: bool) -> None:
    """List the garbage-collection judgements left for you (never applied), numbered; dismiss those
    you have looked at.

    A dismissed judgement is no longer listed by `status`, `review` or the morning briefing, and the
    same pair of entries is not raised again; it stays in memory/.sleep/gc-review.json with the day
    you dismissed it, and `memory-sleep undo` takes the dismissal back.
    """
    from memory_sleep.gc import review as reviews_file
    from memory_sleep.workspace.lock import workspace_lock
    from memory_sleep.workspace.writer import FileChange, SafeWriter

    space = Workspace.open(workspace)
    if not numbers:
        waiting = reviews_file.open_reviews(reviews_file.read_reviews(space))
        if as_json:
            click.echo(json.dumps([{"number": n, **r} for n, r in enumerate(waiting, 1)], indent=2))
        elif not waiting:
            click.echo("No judgement waits for review.")
        else:
            click.echo("\n".join(f"{n}. {reviews_file.review_line(r)}" for n, r in enumerate(waiting, 1)))
            click.echo("Dismiss those you have looked at: memory-sleep review --dismiss N [--dismiss N ...]")
        return
    config = _config(space, None)
    writer = SafeWriter(space.root, space.state_dir / "snapshots", keep=config.keep_snapshots)
    with workspace_lock(space.state_dir, config.lock_timeout_secs):
        writer.recover()
        known = reviews_file.read_reviews(space)
        count = len(reviews_file.open_reviews(known))
        chosen = list(range(1, count + 1)) if "all" in numbers else [_number(n) for n in numbers]
        try:
            listed = reviews_file.dismissed(known, chosen, today.date() if today else date.today())
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--dismiss") from None
        if chosen:
            path = space.relative(space.state_dir / reviews_file.REVIEW_FILE)
            writer.apply(
                writer.new_run_id(), [FileChange(path, reviews_file.render(listed))], action="review"
            )
    done = len(set(chosen))
    click.echo(f"Dismissed {done} of {count}; {count - done} left for review.")


def _number(text: str) -> int:
    if not text.isdigit():
        raise click.BadParameter(
            f"{text!r}: give a number `memory-sleep review` lists, or all", param_hint="--dismiss"
        )
    return int(text)
