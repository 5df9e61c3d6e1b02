"""CLI verbs of hard deletion: forget-scope and purge. Both say what they would delete with --dry-run,
and delete only with --yes (or a yes typed at the terminal's prompt)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memory_sleep.cli.main import CONTEXT, TODAY_OPTION, WORKSPACE_ARG, _handle_errors, clock_for, main

if TYPE_CHECKING:
    from memory_sleep.forget.report import ErasureReport

_AGE = re.compile(r"^(\d+(?:\.\d+)?)([dwh]?)$")
_DAYS = {"d": 1.0, "": 1.0, "w": 7.0, "h": 1 / 24}
YES = click.option("--yes", is_flag=True, help="Delete without asking (needed when not on a terminal).")
DRY_RUN = click.option("--dry-run", is_flag=True, help="Say exactly what would be deleted; delete nothing.")
JSON = click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")


def _days(context: click.Context, parameter: click.Parameter, value: str) -> float:
    match = _AGE.match(value.strip())
    if not match:
        raise click.BadParameter(f"{value!r}: give an age such as 90d, 12w or 36h.")
    return float(match.group(1)) * _DAYS[match.group(2)]


@main.command(
    "forget-scope",
    context_settings=CONTEXT,
    short_help="Delete everything of one scope (user or agent) for good.",
)
@click.argument("scope")
@WORKSPACE_ARG
@DRY_RUN
@YES
@TODAY_OPTION
@JSON
@_handle_errors
def forget_scope(
    scope: str, workspace: Path, dry_run: bool, yes: bool, today: datetime | None, as_json: bool
) -> None:
    """Delete for good everything of SCOPE (a user or agent id): cannot be undone.

    Removes the notes whose front matter says `scope: SCOPE`, and what came from them: MEMORY.md
    entries, archive and weekly lines, briefing lines, the tool's state, the sidecar's rows, vectors,
    full-text terms and logged queries, the response cache; rewrites every snapshot without it (undo
    cannot bring it back); VACUUMs the sidecar and empties its WAL; logs the counts (not the text) in
    sleep-log.json; then checks that none of the text is left in any file under the workspace.
    """
    from memory_sleep.forget import forget_scope as forget_now

    def act(dry: bool) -> ErasureReport:
        return forget_now(workspace, scope, dry_run=dry, clock=clock_for(today))

    _confirmed(act, dry_run, yes, as_json, f"Delete everything of scope {scope!r} for good?")


@main.command(context_settings=CONTEXT, short_help="Delete for good the entries soft-deleted long ago.")
@WORKSPACE_ARG
@click.option(
    "--older-than",
    "older_than",
    required=True,
    callback=_days,
    metavar="AGE",
    help="Entries soft-deleted longer ago than this: 90d, 12w, 36h.",
)
@DRY_RUN
@YES
@TODAY_OPTION
@JSON
@_handle_errors
def purge(
    workspace: Path, older_than: float, dry_run: bool, yes: bool, today: datetime | None, as_json: bool
) -> None:
    """Delete for good the sidecar entries soft-deleted over AGE ago: cannot be undone.

    Their rows, vectors and full-text terms go, then the sidecar is VACUUMed and its WAL emptied; the
    counts are logged in sleep-log.json. Entries whose item is still in its file are kept (purged,
    they would come back at the next index). The markdown, archive.md included, is left as it is.
    """
    from memory_sleep.forget import purge as purge_now

    def act(dry: bool) -> ErasureReport:
        return purge_now(workspace, older_than, dry_run=dry, clock=clock_for(today))

    _confirmed(act, dry_run, yes, as_json, "Delete these entries for good?")


def _confirmed(
    act: Callable[[bool], ErasureReport], dry_run: bool, yes: bool, as_json: bool, question: str
) -> None:
    """Dry run; or with --yes, delete; or on a terminal, show the dry run and ask; else refuse."""
    if dry_run or (not yes and sys.stdin.isatty()):
        preview = act(True)
        _show(preview, as_json)
        if dry_run or not any(preview.removed.values()):
            return
        if not click.confirm(question + " This cannot be undone.", default=False, err=True):
            click.echo("Nothing was deleted.", err=True)
            return
    elif not yes:
        raise click.UsageError(
            "this deletes for good: add --yes to confirm (or --dry-run to see what would go)."
        )
    _show(act(False), as_json)


def _show(report: ErasureReport, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        click.echo("\n".join(report.lines()))
