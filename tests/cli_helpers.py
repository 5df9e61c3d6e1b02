"""The command tree of the CLI, for tests that check every verb."""

from __future__ import annotations

from collections.abc import Iterator

import click

from memory_sleep.cli.main import main


def verbs(group: click.Group = main, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every command as its full name ("run", "cron install"), groups included."""
    context = click.Context(group)
    for name in group.list_commands(context):  # the verbs of every module, not only those imported
        command = group.get_command(context, name)
        assert command is not None, name
        full = f"{prefix}{name}"
        yield full, command
        if isinstance(command, click.Group):
            yield from verbs(command, f"{full} ")


def verb_names() -> set[str]:
    return {name for name, _ in verbs()}
