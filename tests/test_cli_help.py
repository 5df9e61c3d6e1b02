"""Every CLI verb has help text, is documented in the README, and follows the house rules for options."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main

from .cli_helpers import verbs
from .conftest import REPO

REPORTING = {"run", "status", "doctor", "index", "recall", "stats", "cron show"}
WRITING = {"run", "undo", "index", "init", "cron install", "cron remove"}


def readme_text() -> str:
    """README.md plus the README-*.md parts not yet merged into it."""
    return "\n".join(
        path.read_text(encoding="utf-8") for name in ("README.md",) if (path := REPO / name).exists()
    )


@pytest.mark.parametrize("verb", [name for name, _ in verbs()])
def test_every_verb_has_help_and_is_documented(verb: str) -> None:
    command = dict(verbs())[verb]
    assert command.help and command.help.strip(), f"{verb}: no docstring"
    assert not command.help.startswith("TODO")
    result = CliRunner().invoke(main, [*verb.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert command.help.splitlines()[0][:40] in " ".join(result.output.split())
    assert f"memory-sleep {verb}" in readme_text(), f"`memory-sleep {verb}` is not in the README"


def test_reporting_commands_take_json_and_writing_commands_dry_run() -> None:
    options = {
        name: {opt for param in command.params for opt in getattr(param, "opts", [])}
        for name, command in verbs()
    }
    for verb in REPORTING:
        assert "--json" in options[verb], verb
    for verb in WRITING:
        assert "--dry-run" in options[verb], verb


def test_usage_errors_exit_2_and_a_missing_workspace_exits_1(tmp_path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    assert runner.invoke(main, ["doctor", "--no-such-option"]).exit_code == 2
    result = runner.invoke(
        main, ["cron", "install", str(tmp_path), "--at", "04:00", "--schedule", "0 4 * * *"]
    )
    assert result.exit_code == 2 and "not both" in result.output
    missing = runner.invoke(main, ["doctor", str(tmp_path / "nowhere")])
    assert missing.exit_code == 1
    assert "nowhere: no such folder. Pass the folder that holds MEMORY.md." in missing.output


def test_shell_completion_is_click_builtin() -> None:
    result = CliRunner().invoke(
        main, [], env={"_MEMORY_SLEEP_COMPLETE": "bash_source"}, prog_name="memory-sleep"
    )
    assert result.exit_code == 0 and "_MEMORY_SLEEP_COMPLETE=bash_complete" in result.output
    assert "_MEMORY_SLEEP_COMPLETE=bash_source memory-sleep" in readme_text()


def test_the_top_help_says_where_to_start_with_verbs_that_exist() -> None:
    result = CliRunner().invoke(main, ["--help"])
    start = result.output.split("First time:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    named = [line.split()[1] for line in start]
    context = click.Context(main)
    assert named == ["init", "run", "doctor"] and all(main.get_command(context, verb) for verb in named)
    assert "DIR/memory/YYYY-MM-DD.md" in start[0]


def test_the_top_help_lists_each_verb_in_a_whole_sentence() -> None:
    """On an 80-column terminal click cuts a verb's first sentence to fit its line ("Schedule the nightly
    run: one crontab line per workspace,..."): every verb says what it does in a short help of its own."""
    result = CliRunner().invoke(main, ["--help"], terminal_width=80)
    listed = result.output.split("Commands:\n", 1)[1]
    assert "..." not in listed
    context = click.Context(main)
    for verb in main.list_commands(context):
        command = main.get_command(context, verb)
        assert command is not None and command.short_help, verb
