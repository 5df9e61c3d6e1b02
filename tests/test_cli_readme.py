"""The README's five-minute tour, run on a copy of the example workspace: each command still prints
what the README shows (up to timestamps, run ids and where memory-sleep is installed).

After an intended change of output, rewrite the tour with what the commands print now and review the diff:
    MEMORY_SLEEP_UPDATE_README=1 .venv/bin/python -m pytest tests/test_cli_readme.py
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from click.testing import CliRunner

from memory_sleep.cli.main import main

from .conftest import REPO
from .test_cli_help import readme_text

TOUR_PATH = "/tmp/ms-tour"
_VOLATILE = [
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?"), "<time>"),
    (re.compile(r"\b\d{8}T\d{6}\d*Z\b"), "<run>"),
    (re.compile(r"\S*/memory-sleep run |\S+ -m memory_sleep run "), "memory-sleep run "),
]


def tour_steps(text: str) -> list[tuple[str, list[str]]]:
    """The ```console blocks: each `$ command` with the lines it prints."""
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def normalized(lines: list[str], workspace: Path) -> list[str]:
    out = []
    for line in lines:
        line = line.replace(str(workspace), TOUR_PATH)
        for pattern, replacement in _VOLATILE:
            line = pattern.sub(replacement, line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def run_tour(workspace: Path, steps: list[tuple[str, list[str]]]) -> list[tuple[str, list[str], list[str]]]:
    """Each step's command, what the README shows, and what it prints now."""
    runner = CliRunner()
    done = []
    for command, shown in steps:
        words = [word.replace(TOUR_PATH, str(workspace)) for word in shlex.split(command)]
        if words[0] == "memory-sleep":
            result = runner.invoke(main, words[1:], catch_exceptions=False)
            assert result.exit_code == 0, f"{command}\n{result.output}"
            printed = result.output
        else:
            printed = subprocess.run(words, cwd=REPO, capture_output=True, text=True, check=True).stdout
        done.append((command, shown, printed.splitlines()))
    return done


def rewrite_tour(done: list[tuple[str, list[str], list[str]]], workspace: Path) -> None:
    """Put what the commands print now into the README file that holds the tour."""
    path = next(
        path
        for name in ("README.md",)
        if (path := REPO / name).exists() and "```console" in path.read_text(encoding="utf-8")
    )
    lines = []
    for command, _, printed in done:
        lines.append(f"$ {command}")
        for line in printed:
            line = line.replace(str(workspace), TOUR_PATH)
            lines.append(_VOLATILE[2][0].sub("/usr/local/bin/memory-sleep run ", line).rstrip())
    text = path.read_text(encoding="utf-8")
    start = text.index("```console\n") + len("```console\n")
    end = text.index("```", start)
    path.write_text(text[:start] + "\n".join(lines) + "\n" + text[end:], encoding="utf-8")


def test_the_tour_prints_what_the_readme_shows(tmp_path: Path) -> None:
    steps = tour_steps(readme_text())
    assert len(steps) >= 8 and steps[0][0].startswith("cp -r fixtures/workspace ")
    workspace = tmp_path / "ms-tour"
    done = run_tour(workspace, steps)
    if os.environ.get("MEMORY_SLEEP_UPDATE_README") == "1":
        rewrite_tour(done, workspace)
        return
    for command, shown, printed in done:
        assert normalized(printed, workspace) == normalized(shown, workspace), (
            f"{command}: the README shows other output. If the change is intended, run "
            "MEMORY_SLEEP_UPDATE_README=1 .venv/bin/python -m pytest tests/test_cli_readme.py and review the diff."
        )


def test_the_tour_prints_the_same_a_year_from_now(tmp_path: Path) -> None:
    """Every date the tour depends on is given on its command line: the real clock a year ahead
    (or behind the tour's dates by any amount) changes nothing it prints."""
    steps = tour_steps(readme_text())
    workspace = tmp_path / "ms-tour"
    a_year_ahead = datetime.now(UTC) + timedelta(days=366)
    with time_machine.travel(a_year_ahead, tick=True):
        done = run_tour(workspace, steps)
    for command, shown, printed in done:
        assert normalized(printed, workspace) == normalized(shown, workspace), command
