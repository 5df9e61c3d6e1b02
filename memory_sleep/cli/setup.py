"""CLI verbs that set a workspace up and wire it to agents: init, doctor, cron, skill, mcp."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import click

from memory_sleep.cli.main import CONTEXT, TODAY_OPTION, WORKSPACE_ARG, _config, _handle_errors, main
from memory_sleep.workspace.layout import Workspace


@main.command(
    context_settings=CONTEXT, short_help="Create a workspace: MEMORY.md, memory/, memory-sleep.toml."
)
@WORKSPACE_ARG
@click.option("--dry-run", is_flag=True, help="Say what would be created; create nothing.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@_handle_errors
def init(workspace: Path, dry_run: bool, quiet: bool) -> None:
    """Create a workspace: MEMORY.md, memory/ and a memory-sleep.toml listing every key, commented out.

    Never overwrites: files already there are left as they are and listed.
    """
    from memory_sleep.cli.scaffold import init_workspace

    report = init_workspace(workspace, dry_run=dry_run)
    if quiet:
        return
    verb = "Would create" if dry_run else "Created"
    click.echo(f"{verb} in {report.root}: {', '.join(report.created) or 'nothing'}")
    if report.kept:
        click.echo(f"Already there, left alone: {', '.join(report.kept)}")
    if report.created and not dry_run:
        click.echo(
            f"Next: write daily notes to {report.root / 'memory'}/YYYY-MM-DD.md, then `memory-sleep run "
            f"{report.root}`; `memory-sleep cron install {report.root}` runs it nightly."
        )


@main.command(context_settings=CONTEXT, short_help="Check a workspace and say what to fix.")
@WORKSPACE_ARG
@TODAY_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@_handle_errors
def doctor(workspace: Path, today: datetime | None, as_json: bool) -> None:
    """Check WORKSPACE and say what to fix: config, API keys, lock, sidecar, file sizes, notes, cron.

    Exit code 1 when something must be fixed (a FAIL line); warnings alone exit 0.
    """
    from memory_sleep.cli.doctor import diagnose

    report = diagnose(Workspace.locate(workspace), today=today.date() if today else None)
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(report.lines()))
    if report.failures:
        sys.exit(1)


@main.group(context_settings=CONTEXT, short_help="Schedule the nightly run (a crontab line per workspace).")
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
    from memory_sleep.cli import cron as scheduling

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
    from memory_sleep.cli import cron as scheduling

    change = scheduling.remove(scheduling.default_crontab(), Workspace.locate(workspace), dry_run=dry_run)
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
    from memory_sleep.cli import cron as scheduling
    from memory_sleep.cycle.schedule import due_check

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
    from memory_sleep.cli.cron import cron_prompt as render

    space = Workspace.open(workspace)
    click.echo(render(space, _config(space, None)), nl=False)


@main.command(context_settings=CONTEXT, short_help="Print SKILL.md, the agent skill.")
@_handle_errors
def skill() -> None:
    """Print SKILL.md, the agent skill: save it as ~/.claude/skills/memory-sleep/SKILL.md (see README.md)."""
    from memory_sleep.cli.scaffold import skill_text

    click.echo(skill_text(), nl=False)


@main.command(context_settings=CONTEXT, short_help="Serve a workspace to an agent over MCP (stdio).")
@WORKSPACE_ARG
@_handle_errors
def mcp(workspace: Path) -> None:
    """Serve WORKSPACE to an agent over MCP (stdio).

    \b
    Tools: `recall`, `remember`, `consolidate`, `status`, `briefing`, `forget_scope`;
    without an API key, `consolidate_as_agent`, `decision_request` and `answer_decision`
    (the host agent makes the decisions, as `run --engine agent`).

    Configure your agent to start `memory-sleep mcp /path/to/workspace`; see README.md.
    """
    from memory_sleep.cli.mcp_server import serve

    serve(workspace)
