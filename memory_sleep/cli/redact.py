"""The `redact` verb: take secrets pasted into daily notes out of the notes themselves, on request."""

from __future__ import annotations

import json
from pathlib import Path

import click

from memory_sleep.cli.main import CONTEXT, _config, _handle_errors, main
from memory_sleep.errors import WorkspaceError
from memory_sleep.text import counted
from memory_sleep.workspace.layout import NoteFile, Workspace, discover


@main.command(context_settings=CONTEXT, short_help="Replace secrets pasted into daily notes, in place.")
@click.argument("target", type=click.Path(exists=True, path_type=Path), default=".", required=False)
@click.option("--dry-run", is_flag=True, help="List each secret (note, line, kind); change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the secrets found as JSON.")
@_handle_errors
def redact(target: Path, dry_run: bool, as_json: bool) -> None:
    """Replace secrets pasted into daily notes with "[redacted KIND]", in place.

    TARGET is one daily note, or a workspace (default: this folder) for all its notes. Each changed note
    is snapshotted first: `memory-sleep undo` puts the secrets back. No secret is ever printed.
    """
    from memory_sleep.workspace.note_secrets import redact_notes

    space, notes = _notes_of(target)
    report = redact_notes(space, _config(space, None), notes, dry_run)
    if as_json:
        click.echo(json.dumps([s.as_dict() for s in report.sightings], indent=2))
        return
    if not report.sightings:
        click.echo(f"No secrets in plain text in {counted(len(notes), 'note')}.")
        return
    verb = "would redact" if dry_run else "redacted"
    for sighting in report.sightings:
        click.echo(f"{sighting.note}:{sighting.line}: {verb} {sighting.kind}")
    if report.manifest is not None:
        click.echo(
            f"Redacted {counted(len(report.sightings), 'secret')} in {counted(len(report.changes), 'note')} "
            "(snapshot kept: `memory-sleep undo` puts them back)."
        )


def _notes_of(target: Path) -> tuple[Workspace, list[NoteFile]]:
    """The workspace and the daily notes TARGET names: one note, or all of a workspace's."""
    if target.is_dir():
        space = Workspace.open(target)
        return space, discover(space).notes
    resolved = target.resolve()
    space = Workspace.open(resolved.parent.parent)
    notes = [note for note in discover(space).notes if note.path.resolve() == resolved]
    if not notes:
        raise WorkspaceError(
            f"{target}: not a daily note (memory/YYYY-MM-DD*.md of a workspace). "
            "Give a daily note, or the workspace for all its notes."
        )
    return space, notes
