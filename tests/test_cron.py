"""Scheduling: the crontab line, `run --if-due`, the cron prompt, and a failed run's record in the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli import cron
from memory_sleep.cli.cron import InMemoryCrontab, ScheduleError, SystemCrontab
from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.cycle.schedule import due_check, last_success, mark_success
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.sleep_log import RunRecord

OTHER_LINES = "MAILTO=me@example.org\n# my backups\n15 2 * * * /usr/bin/backup --all\n"


@pytest.fixture
def space(tmp_path: Path) -> Workspace:
    (tmp_path / "memory").mkdir()
    return Workspace.open(tmp_path)


def test_schedule_fields() -> None:
    assert cron.schedule_for() == "0 4 * * *"
    assert cron.schedule_for("3:05") == "5 3 * * *"
    assert cron.schedule_for(schedule=" 0  *  * * * ") == "0 * * * *"
    with pytest.raises(ScheduleError, match=r"--at '25:00': not a time of day\. Use HH:MM"):
        cron.schedule_for("25:00")
    with pytest.raises(ScheduleError, match="not five cron fields"):
        cron.schedule_for(schedule="0 4 * *")
    with pytest.raises(ScheduleError, match="not five cron fields"):
        cron.schedule_for(schedule="0 4 * * * ; rm -rf /")


def test_install_update_remove_keep_every_other_line(space: Workspace) -> None:
    table = InMemoryCrontab(OTHER_LINES)
    prefix = ["/opt/ms/bin/memory-sleep"]
    first = cron.install(table, space, "0 4 * * *", prefix=prefix)
    assert first.written and first.before is None
    line = f"0 4 * * * mkdir -p {space.root}/memory/.sleep && /opt/ms/bin/memory-sleep run {space.root} --if-due >> {space.root}/memory/.sleep/cron.log 2>&1 # memory-sleep:{space.root}"
    assert table.text == OTHER_LINES + line + "\n"
    again = cron.install(table, space, "0 4 * * *", prefix=prefix)
    assert not again.changed and len(table.writes) == 1
    moved = cron.install(table, space, "30 3 * * *", prefix=prefix)
    assert moved.before == line and table.text.count("memory-sleep:") == 1
    assert table.text.startswith(OTHER_LINES) and "30 3 * * *" in table.text
    assert cron.find_line(table.text, space) == moved.after
    dry = cron.remove(table, space, dry_run=True)
    assert dry.before == moved.after and len(table.writes) == 2
    gone = cron.remove(table, space)
    assert gone.written and table.text == OTHER_LINES
    assert not cron.remove(table, space).written


def test_lines_of_other_workspaces_and_commented_lines_are_not_ours(space: Workspace, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    table = InMemoryCrontab()
    cron.install(table, Workspace.open(other), "0 4 * * *", prefix=["ms"])
    commented = "# " + cron.cron_line(space, "0 5 * * *", ["ms"])
    table.text += commented + "\n"
    assert cron.find_line(table.text, space) is None
    cron.install(table, space, "0 4 * * *", prefix=["ms"])
    cron.remove(table, space)
    assert cron.find_line(table.text, Workspace.open(other)) is not None and commented in table.text


def test_a_path_cron_cannot_carry_is_refused(tmp_path: Path) -> None:
    odd = tmp_path / "100%"
    (odd / "memory").mkdir(parents=True)
    with pytest.raises(ScheduleError, match="% or a line break"):
        cron.cron_line(Workspace.open(odd), "0 4 * * *")


def test_line_executable() -> None:
    assert (
        cron.line_executable("0 4 * * * mkdir -p /w/memory/.sleep && /v/bin/memory-sleep run /w --if-due")
        == "/v/bin/memory-sleep"
    )
    assert cron.line_executable("garbage") is None


def fake_crontab_command(folder: Path, table: Path) -> str:
    """A `crontab` stand-in on PATH that keeps the table in a file, like the real one keeps the user's."""
    script = folder / "crontab"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-l" ]; then [ -f "{table}" ] || {{ echo "no crontab for $USER" >&2; exit 1; }}; cat "{table}"; '
        f'elif [ "$1" = "-" ]; then cat > "{table}"; else exit 2; fi\n'
    )
    script.chmod(0o755)
    return str(script)


def test_system_crontab_runs_crontab_l_and_dash(tmp_path: Path, space: Workspace) -> None:
    stored = tmp_path / "stored"
    system = SystemCrontab(fake_crontab_command(tmp_path, stored))
    assert system.read() == ""  # "no crontab for user" is an empty table
    cron.install(system, space, "0 4 * * *")
    assert stored.read_text().count("memory-sleep:") == 1
    assert cron.find_line(system.read(), space) is not None
    with pytest.raises(ScheduleError, match="`no-such-crontab-command` not found: this system has no cron"):
        SystemCrontab("no-such-crontab-command").read()


def test_command_prefix_is_this_installation() -> None:
    prefix = cron.command_prefix()
    assert prefix[0].startswith(str(Path(sys.executable).parent)) or prefix == [
        sys.executable,
        "-m",
        "memory_sleep",
    ]


def test_cron_cli_install_show_remove(space: Workspace, no_real_crontab: Path) -> None:
    runner = CliRunner()
    root = str(space.root)
    no_real_crontab.write_text(OTHER_LINES)
    dry = runner.invoke(main, ["cron", "install", root, "--dry-run"])
    assert dry.exit_code == 0 and dry.output.startswith("Would install: 0 4 * * * ")
    assert no_real_crontab.read_text() == OTHER_LINES
    installed = runner.invoke(main, ["cron", "install", root, "--at", "05:15"])
    assert installed.exit_code == 0 and installed.output.startswith("Installed: 15 5 * * * mkdir -p ")
    assert runner.invoke(main, ["cron", "install", root, "--at", "05:15"]).output.startswith(
        "Already installed: "
    )
    shown = json.loads(runner.invoke(main, ["cron", "show", root, "--json"]).output)
    assert shown["installed"] and shown["line"].startswith("15 5 * * * ") and shown["due_now"]
    assert shown["log"] == f"{root}/memory/.sleep/cron.log"
    human = runner.invoke(main, ["cron", "show", root])
    assert "Run --if-due: due now (no successful run yet)" in human.output
    removed = runner.invoke(main, ["cron", "remove", root])
    assert removed.exit_code == 0 and removed.output.startswith("Removed: 15 5 * * * ")
    assert no_real_crontab.read_text() == OTHER_LINES
    assert "Not installed." in runner.invoke(main, ["cron", "show", root]).output
    bad = runner.invoke(main, ["cron", "install", root, "--at", "noon"])
    assert bad.exit_code == 1 and "Error: --at 'noon': not a time of day" in bad.output


def test_cron_prompt_cli(space: Workspace) -> None:
    result = CliRunner().invoke(main, ["cron", "prompt", str(space.root)])
    assert result.exit_code == 0
    assert f"memory-sleep run {space.root} --if-due" in result.output
    assert f"{space.root}/memory/YYYY-MM-DD.md" in result.output


def test_due_after_the_interval_since_the_last_success(space: Workspace) -> None:
    config = Config()
    assert due_check(space, config).due and last_success(space) is None
    start = datetime(2026, 11, 25, 4, 0, 30, tzinfo=UTC)
    mark_success(space, start)
    hourly = [start.replace(minute=0, second=5) + timedelta(hours=h) for h in range(1, 49)]
    runs = [moment for moment in hourly if due_check(space, config, moment).due]
    # an hourly schedule after a 04:00 run: due again at 04:00 the next day, not an hour earlier
    assert runs[0] == datetime(2026, 11, 26, 4, 0, 5, tzinfo=UTC)
    daily = start.replace(second=1) + timedelta(days=1)
    assert due_check(space, config, daily).due  # a run that started at 04:00:30 does not skip tomorrow's
    config.schedule.interval_secs = 0
    assert due_check(space, config, start).due


def test_run_if_due_skips_runs_and_logs_a_header(fixture_workspace: Path) -> None:
    runner = CliRunner()
    root = str(fixture_workspace)
    first = runner.invoke(main, ["run", root, "--if-due", "--today", "2026-11-25"])
    assert first.exit_code == 0, first.output
    assert f"memory-sleep run {fixture_workspace} (due: no successful run yet)" in first.output
    assert "NREM: 22 notes read" in first.output
    skipped = runner.invoke(main, ["run", root, "--if-due", "--today", "2026-11-25"])
    assert skipped.exit_code == 0 and skipped.output == ""
    said = runner.invoke(main, ["run", root, "--if-due", "-v"])
    assert said.output.startswith("Not due: last successful run ")
    forced = runner.invoke(main, ["run", root, "--today", "2026-11-25"])
    assert "Nothing to do" in forced.output


def test_a_failed_run_is_recorded_and_retried(fixture_workspace: Path) -> None:
    runner = CliRunner()
    root = str(fixture_workspace)
    assert runner.invoke(main, ["run", root, "--today", "2026-11-25"]).exit_code == 0
    log_path = fixture_workspace / "memory" / "sleep-log.json"
    good = json.loads(log_path.read_text())
    memory = fixture_workspace / "MEMORY.md"
    memory.write_bytes(memory.read_bytes() + b"\xff broken")
    (fixture_workspace / "memory" / "2026-11-25.md").write_text("- Decided: ship it\n")
    failed = runner.invoke(main, ["run", root, "--today", "2026-11-26"])
    assert failed.exit_code == 1
    assert "Error: MEMORY.md: not valid UTF-8" in failed.output
    log = json.loads(log_path.read_text())
    assert log["status"] == "failed" and log["error"].startswith("MEMORY.md: not valid UTF-8")
    assert log["today"] == "2026-11-26" and log["history"][0]["lastRun"] == good["lastRun"]
    assert list(log)[:7] == list(RunRecord.model_fields)[:7]  # the original skill's keys, first
    status = runner.invoke(main, ["status", root, "--json"])
    assert json.loads(status.output)["last_run"]["error"].startswith("MEMORY.md: not valid UTF-8")
    # a failure does not count as a success: the schedule still runs from the last good run
    assert last_success(Workspace.open(fixture_workspace)) is not None
    dry = runner.invoke(main, ["run", root, "--dry-run"])
    assert dry.exit_code == 1 and json.loads(log_path.read_text())["lastRun"] == log["lastRun"]


def test_a_bad_config_is_recorded_too(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text("lookback_days = [\n")
    result = CliRunner().invoke(main, ["run", str(fixture_workspace), "--if-due"])
    assert result.exit_code == 1 and "not valid TOML" in result.output
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["status"] == "failed" and "memory-sleep.toml: not valid TOML" in log["error"]


@pytest.mark.slow
def test_the_installed_line_runs_under_sh_and_logs(fixture_workspace: Path, tmp_path: Path) -> None:
    """What cron would execute: the command part of the line, by /bin/sh, in a near-empty environment."""
    space = Workspace.open(fixture_workspace)
    line = cron.cron_line(space, "0 4 * * *")
    command = line.split(" ", 5)[5]
    environment = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "MEMORY_SLEEP_CRONTAB": str(tmp_path / "t"),
    }
    for _ in range(2):
        subprocess.run(["/bin/sh", "-c", command], env=environment, check=True, timeout=120)
    log = (fixture_workspace / "memory" / ".sleep" / "cron.log").read_text()
    assert log.count("memory-sleep run") == 1 and "(due: no successful run yet)" in log
    assert "Cleanup: " in log and "Error" not in log
    assert os.path.exists(fixture_workspace / "memory" / "briefing.md")
