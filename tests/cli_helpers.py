"""The command tree of the CLI, for tests that check every verb."""

from __future__ import annotations

from collections.abc import Iterator

import click

from memory_sleep.cli.main import main


def verbs(group: click.Group = main, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every command as its full name ("run", "cron install"), groups included."""
    for name, command in sorted(group.commands.items()):
        full = f"{prefix}{name}"
        yield full, command
        if isinstance(command, click.Group):
            yield from verbs(command, f"{full} ")


def verb_names() -> set[str]:
    return {name for name, _ in verbs()}
