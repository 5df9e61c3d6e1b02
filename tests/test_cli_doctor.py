"""`memory-sleep doctor`: a healthy workspace passes; each kind of breakage is named with its fix."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memory_sleep.cli import cron
from memory_sleep.cli.cron import InMemoryCrontab
from memory_sleep.cli.doctor import diagnose
from memory_sleep.cli.main import main
from memory_sleep.workspace.layout import Workspace

from .conftest import run_offline


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def doctor_json(folder: Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, ["doctor", str(folder), "--json"])
    return result.exit_code, json.loads(result.output)


def findings(report: dict[str, Any], level: str) -> list[str]:
    return [check["message"] for check in report["checks"] if check["level"] == level]


def test_a_consolidated_scheduled_workspace_is_healthy(fixture_workspace: Path) -> None:
    run_offline(fixture_workspace)
    assert CliRunner().invoke(main, ["cron", "install", str(fixture_workspace)]).exit_code == 0
    code, report = doctor_json(fixture_workspace)
    assert code == 0 and report["ok"] and report["failures"] == 0
    assert findings(report, "warn") == ["memory/scratch-todo.txt: not a daily note; left alone"]
    areas = {check["area"] for check in report["checks"]}
    assert areas == {
        "config",
        "layout",
        "engine",
        "last run",
        "lock",
        "sizes",
        "notes",
        "secrets",
        "sidecar",
        "cron",
    }
    human = CliRunner().invoke(main, ["doctor", str(fixture_workspace)])
    assert human.exit_code == 0 and human.output.splitlines()[-1] == "Healthy (1 warning)."


def test_a_broken_workspace_says_what_to_fix(fixture_workspace: Path) -> None:
    memory = fixture_workspace / "memory"
    (fixture_workspace / "memory-sleep.toml").write_text("lookback_days = \n")
    (memory / "2026-11-20.md").write_bytes(b"\x00\x01binary\x00")
    (memory / "2026-02-30.md").write_text("- not a day\n")
    (memory / "2026_11_22.md").write_text("- misnamed\n")
    state = memory / ".sleep"
    state.mkdir()
    (state / "lock").write_text("")
    (state / "lock.holder").write_text(
        json.dumps({"pid": 999_999_999, "host": socket.gethostname(), "since": "2026-11-25T04:00:00+00:00"})
    )
    code, report = doctor_json(fixture_workspace)
    assert code == 1 and not report["ok"]
    failed = findings(report, "fail")
    assert any("memory-sleep.toml: not valid TOML" in message for message in failed)
    assert "memory/2026-11-20.md: binary data, not a text note; skipped. Move it out of memory/." in failed
    assert any(
        message.startswith("memory/2026-02-30.md: 2026-02-30 is not a calendar date") for message in failed
    )
    warned = {check["message"]: check["fix"] for check in report["checks"] if check["level"] == "warn"}
    assert warned[
        "memory/2026_11_22.md: looks like a daily note but is not named like one; it is not read"
    ] == ("rename it to memory/2026-11-22.md")
    stale = next(message for message in warned if message.startswith("stale lock record"))
    assert "pid 999999999, no longer running" in stale
    human = CliRunner().invoke(main, ["doctor", str(fixture_workspace)])
    assert human.exit_code == 1
    assert (
        "  FAIL  config    " in human.output
        and "fix: the other checks below assume the defaults" in human.output
    )
    assert human.output.splitlines()[-1] == "3 to fix, 6 warnings."


def test_a_held_lock_is_a_run_in_progress(fixture_workspace: Path) -> None:
    from memory_sleep.workspace.lock import workspace_lock

    with workspace_lock(fixture_workspace / "memory" / ".sleep", 0):
        checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    lock = next(check for check in checks if check.area == "lock")
    assert lock.level == "warn" and lock.message.startswith(f"a run is in progress (pid {os.getpid()} since ")


def test_keys_for_the_configured_engine(fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text('[engine]\nname = "anthropic"\n')
    code, report = doctor_json(fixture_workspace)
    assert code == 1
    engine = next(check for check in report["checks"] if check["area"] == "engine")
    assert engine["message"] == "[engine] name = 'anthropic' but ANTHROPIC_API_KEY is not set"
    assert engine["fix"] == 'export ANTHROPIC_API_KEY=..., or set [engine] name = "offline"'
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    table = InMemoryCrontab()
    cron.install(table, Workspace.open(fixture_workspace), "0 4 * * *")
    checks = diagnose(Workspace.open(fixture_workspace), table).checks
    assert any(
        c.area == "engine" and c.level == "ok" and c.message == "anthropic: ANTHROPIC_API_KEY set"
        for c in checks
    )
    assert any(
        c.area == "cron"
        and c.level == "warn"
        and "cron does not see your shell's ANTHROPIC_API_KEY" in c.message
        for c in checks
    )


def test_a_failed_last_run_oversized_memory_and_a_vanished_cron_program(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text("memory_max_bytes = 2048\n")
    memory = fixture_workspace / "MEMORY.md"
    memory.write_bytes(memory.read_bytes() + b"\xff")
    result = CliRunner().invoke(main, ["run", str(fixture_workspace)])
    assert result.exit_code == 1
    table = InMemoryCrontab()
    cron.install(table, Workspace.open(fixture_workspace), "0 4 * * *", prefix=["/gone/bin/memory-sleep"])
    checks = diagnose(Workspace.open(fixture_workspace), table).checks
    by_area = {check.area: check for check in checks if check.level != "ok"}
    assert (
        by_area["last run"].level == "fail"
        and "failed: MEMORY.md: not valid UTF-8" in by_area["last run"].message
    )
    assert by_area["sizes"].message.startswith("MEMORY.md: not valid UTF-8")
    assert by_area["cron"].message == "the cron line runs /gone/bin/memory-sleep, which no longer exists"
    memory.write_bytes(memory.read_bytes()[:-1])
    sizes = [c for c in diagnose(Workspace.open(fixture_workspace), table).checks if c.area == "sizes"]
    assert (
        sizes[0].level == "warn"
        and sizes[0].message
        == "MEMORY.md: the tool's entries take 3,148 bytes, over memory_max_bytes (2,048)"
    )


def test_a_damaged_sidecar(fixture_workspace: Path) -> None:
    state = fixture_workspace / "memory" / ".sleep"
    state.mkdir()
    (state / "sidecar.db").write_bytes(b"this is not a database" * 100)
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    sidecar = next(check for check in checks if check.area == "sidecar")
    assert sidecar.level == "fail" and "cannot open the sidecar database" in sidecar.message
