"""`memory-sleep doctor`: a healthy workspace passes; each kind of breakage is named with its fix."""

from __future__ import annotations

import json
import os
import socket
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memory_sleep.cli import cron
from memory_sleep.cli.cron import InMemoryCrontab
from memory_sleep.cli.doctor import diagnose
from memory_sleep.cli.main import main
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import MemoryDocument

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
    binary = next(c for c in report["checks"] if c["message"].startswith("memory/2026-11-20.md"))
    assert (binary["level"], binary["message"], binary["fix"]) == (
        "fail",
        "memory/2026-11-20.md: binary data, not a text note; skipped",
        "Move it out of memory/.",
    )
    misdated = next(c for c in report["checks"] if c["message"].startswith("memory/2026-02-30.md"))
    assert (misdated["message"], misdated["fix"]) == (  # the fix apart, as for a note that cannot be read
        "memory/2026-02-30.md: 2026-02-30 is not a calendar date; skipped",
        "Rename it to the day it covers.",
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


def test_the_manifest_of_a_run_in_progress_is_not_called_a_run_that_stopped_half_way(
    fixture_workspace: Path,
) -> None:
    """doctor during a first run on real notes said both "a run is in progress" and "run ... stopped
    half-way: the next run rolls it back", of the same run."""
    from memory_sleep.workspace.lock import workspace_lock
    from memory_sleep.workspace.writer import SafeWriter

    state = fixture_workspace / "memory" / ".sleep"
    with workspace_lock(state, 0):
        SafeWriter(fixture_workspace, state / "snapshots").begin("20261125T040000000000Z", [])
        checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    assert [check.message[:24] for check in checks if check.area == "lock"] == ["a run is in progress (pi"]
    after = [check.message for check in diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks]
    assert "run 20261125T040000000000Z stopped half-way" in after


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


def test_a_binary_memory_md_fails_with_the_runs_own_reason_and_fix(fixture_workspace: Path) -> None:
    (fixture_workspace / "MEMORY.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    sizes = [
        c for c in diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks if c.area == "sizes"
    ]
    assert [(c.level, c.message, c.fix) for c in sizes] == [
        (
            "fail",
            "MEMORY.md: binary data, not text (a NUL byte at byte 8); every run refuses it",
            "put its text back (from a backup or version control), or move it out of the workspace: "
            "the next run then starts a new MEMORY.md",
        )
    ]


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


def test_a_run_whose_indexing_failed_is_said_by_doctor_and_recall_until_an_index_succeeds(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a first good night, a night whose indexing failed left the sidecar a night behind, said
    only on that run's stderr: recall answered from it without a word, and doctor said "ok"."""
    from memory_sleep.config import Config
    from memory_sleep.sidecar.recall import Sidecar

    run_offline(fixture_workspace, config=Config())
    note = fixture_workspace / "memory" / "2026-11-25.md"
    note.write_text("- Decided: the Atlas cutover moves to 2026-12-08\n", encoding="utf-8")
    real = Sidecar.index

    def failing(self: Sidecar, dry_run: bool = False) -> object:
        raise ValueError("what stopped it")

    monkeypatch.setattr(Sidecar, "index", failing)
    run_offline(fixture_workspace, today=date(2026, 11, 26), config=Config())
    monkeypatch.setattr(Sidecar, "index", real)
    said = (
        "the last run could not update the sidecar (ValueError: what stopped it): recall misses what "
        "changed since"
    )
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    assert [(c.level, c.message, c.fix) for c in checks if c.area == "sidecar" and c.level != "ok"] == [
        ("warn", said, f"`memory-sleep index {fixture_workspace}` retries and says what stops it")
    ]
    recalled = CliRunner().invoke(main, ["recall", "Atlas cutover", str(fixture_workspace), "--dry-run"])
    assert recalled.exit_code == 0
    assert f"Warning: {said}. `memory-sleep index {fixture_workspace}` retries." in recalled.stderr
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--json"])  # MCP's `status` too
    assert json.loads(status.stdout)["problems"] == [said]
    assert CliRunner().invoke(main, ["index", str(fixture_workspace)]).exit_code == 0
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    assert [c.level for c in checks if c.area == "sidecar"] == ["ok"]
    recalled = CliRunner().invoke(main, ["recall", "Atlas cutover", str(fixture_workspace), "--dry-run"])
    assert "Warning" not in recalled.stderr
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--json"])
    assert json.loads(status.stdout)["problems"] == []


def test_notes_a_run_would_skip_or_misdate_are_named_with_their_fix(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = fixture_workspace / "memory"
    (memory / "2026-12-24.md").write_text("- Decided: a party.\n")
    (memory / "2026-11-26.md").write_text("- Written where the day began earlier.\n")
    (memory / "11-29-2026.md").write_text("- month first\n")
    (memory / "10-11-2026.md").write_text("- either way\n")
    real = Path.read_bytes

    def read_bytes(path: Path) -> bytes:  # as root, chmod 000 cannot make a file unreadable
        if path.name == "2026-11-24.md":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    result = CliRunner().invoke(main, ["doctor", str(fixture_workspace), "--json", "--today", "2026-11-25"])
    notes = {c["message"]: c for c in json.loads(result.output)["checks"] if c["area"] == "notes"}
    assert result.exit_code == 1 and "the check itself failed" not in result.output
    unreadable = notes["memory/2026-11-24.md: cannot be read (Permission denied); skipped"]
    assert unreadable["level"] == "fail"
    assert (
        unreadable["fix"]
        == f"Make it readable by you (`chmod u+r {memory.absolute() / '2026-11-24.md'}`, or run as its owner)."
    )
    future = notes[
        "memory/2026-12-24.md: dated 29 days after today (2026-11-25); it is read as written, and what it "
        "says is dated then"
    ]
    assert (
        future["level"] == "warn"
        and future["fix"] == "if the date is a typo, rename it to the day it was written"
    )
    misnamed = "looks like a daily note but is not named like one; it is not read"
    assert notes[f"memory/11-29-2026.md: {misnamed}"]["fix"] == "rename it to memory/2026-11-29.md"
    assert notes[f"memory/10-11-2026.md: {misnamed}"]["fix"] == (
        "rename it to memory/2026-11-10.md (day first) or memory/2026-10-11.md (month first)"
    )
    assert not [message for message in notes if message.startswith("memory/2026-11-26.md")]
    later = CliRunner().invoke(main, ["doctor", str(fixture_workspace), "--json", "--today", "2026-12-24"])
    assert "days after today" not in later.output


def test_notes_that_hold_nothing_are_named_beside_the_readable_count(fixture_workspace: Path) -> None:
    """An empty note, or one with only its heading, was counted among the readable without a word."""
    (fixture_workspace / "memory" / "2026-11-26.md").write_text("")
    (fixture_workspace / "memory" / "2026-11-27.md").write_text("# 2026-11-27\n")
    assert readable_count(fixture_workspace, date(2026, 11, 28)) == (
        "ok",
        "24 daily notes readable (2 hold nothing to read: memory/2026-11-26.md, memory/2026-11-27.md)",
    )


def test_one_note_that_holds_nothing_is_one_note_and_a_warning(tmp_path: Path) -> None:
    """ "1 daily notes readable" read wrongly, and "ok" for notes of which none holds anything to read."""
    assert CliRunner().invoke(main, ["init", str(tmp_path), "-q"]).exit_code == 0
    (tmp_path / "memory" / "2026-11-21.md").write_text("")
    assert readable_count(tmp_path, date(2026, 11, 25)) == (
        "warn",
        "1 daily note readable (1 holds nothing to read: memory/2026-11-21.md)",
    )


def readable_count(folder: Path, today: date) -> tuple[str, str]:
    """The level and message of doctor's count of readable notes."""
    checks = diagnose(Workspace.open(folder), InMemoryCrontab(), today=today).checks
    (count,) = [c for c in checks if c.area == "notes" and "readable" in c.message]
    return count.level, count.message


def test_an_empty_workspace_says_where_notes_go(tmp_path: Path) -> None:
    assert CliRunner().invoke(main, ["init", str(tmp_path), "-q"]).exit_code == 0
    checks = diagnose(Workspace.open(tmp_path), InMemoryCrontab(), today=date(2026, 11, 25)).checks
    notes = [check for check in checks if check.area == "notes"]
    assert [(c.level, c.message) for c in notes] == [
        ("ok", "no daily notes yet: a run reads them from memory/YYYY-MM-DD.md (2026-11-25.md today)")
    ]


def test_a_folder_a_run_writes_in_that_is_read_only_fails_with_its_fix(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_sleep.cli.doctor import setup_checks

    def unwritable(path: Path) -> str | None:  # as root every folder is writable: play the one that is not
        return f"{path} is not writable by this user" if path == fixture_workspace else None

    monkeypatch.setattr(setup_checks, "unwritable", unwritable)
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    layout = [check for check in checks if check.area == "layout" and check.level == "fail"]
    assert [(c.message, c.fix) for c in layout] == [
        (
            f"read-only: {fixture_workspace} is not writable by this user; a run fails when it comes to write "
            "MEMORY.md",
            f"make {fixture_workspace} writable by you (`chmod u+w {fixture_workspace}`, or run as its owner)",
        )
    ]


def test_a_run_that_stopped_half_way_is_not_said_to_have_changed_nothing(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_sleep.workspace import writer as writer_module

    real = writer_module.atomic_write
    written: list[Path] = []

    def atomic_write(path: Path, data: bytes) -> None:  # once MEMORY.md is written, every write fails
        if "snapshots" not in path.parts and path.name != "sleep-log.json":  # the run's error is logged
            if written:  # the next file, and putting MEMORY.md back
                raise PermissionError(13, "Permission denied")
            if path.name == "MEMORY.md":
                written.append(path)
        real(path, data)

    monkeypatch.setattr(writer_module, "atomic_write", atomic_write)
    result = CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-25"])
    assert result.exit_code == 1 and "could not be put back now" in result.output
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    last_run = next(check for check in checks if check.area == "last run")
    assert last_run.level == "fail" and last_run.fix == (
        "fix what the error names, then `memory-sleep run` (it first rolls back what that run left half-written)"
    )
    monkeypatch.undo()
    assert CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-25"]).exit_code == 0


def test_a_refused_run_is_said_once_to_be_refused(fixture_workspace: Path) -> None:
    arguments = ["run", str(fixture_workspace), "--engine", "offline"]
    assert CliRunner().invoke(main, [*arguments, "--today", "2026-11-25"]).exit_code == 0
    (fixture_workspace / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    refused = CliRunner().invoke(main, [*arguments, "--today", "2026-11-26"])
    assert refused.exit_code == 1 and refused.output.startswith("Error: Refused: MEMORY.md")
    checks = diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks
    last_run = next(check for check in checks if check.area == "last run")
    assert " refused: MEMORY.md " in last_run.message and "Refused" not in last_run.message


def test_a_linked_notes_folder_fails_the_doctor_as_it_stops_every_run(
    fixture_workspace: Path, tmp_path: Path
) -> None:
    """The doctor said "Healthy" of a workspace whose memory/ is a link, which every run refuses."""
    elsewhere = tmp_path / "notes-elsewhere"
    (fixture_workspace / "memory").rename(elsewhere)
    (fixture_workspace / "memory").symlink_to(elsewhere)
    code, report = doctor_json(fixture_workspace)
    memory = fixture_workspace / "memory"
    assert code == 1 and (
        f"{memory}: is a link; memory-sleep never writes through links. Replace it with the folder it points "
        f"to: `rm {memory} && mv {elsewhere.resolve()} {memory}`."
    ) in findings(report, "fail")
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--json"])
    assert any("is a link" in problem for problem in json.loads(status.output)["problems"])  # was none


def test_a_linked_memory_md_fails_the_doctor_and_is_a_problem_in_status(
    fixture_workspace: Path, tmp_path: Path
) -> None:
    """A MEMORY.md that is a link stops every run; doctor said so only after a run had failed on it,
    and status listed no problem."""
    elsewhere = tmp_path / "MEMORY-elsewhere.md"
    memory = fixture_workspace / "MEMORY.md"
    memory.rename(elsewhere)
    memory.symlink_to(elsewhere)
    problem = (
        f"{memory}: is a link; memory-sleep never writes through links. Replace it with the file it points "
        f"to: `rm {memory} && mv {elsewhere.resolve()} {memory}`."
    )
    code, report = doctor_json(fixture_workspace)
    assert code == 1 and problem in findings(report, "fail")
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--json"])
    assert json.loads(status.output)["problems"] == [problem]


def test_a_section_the_tool_owns_twice_in_memory_md_is_named_with_the_fix(fixture_workspace: Path) -> None:
    # a hand-merged MEMORY.md with a second Decisions section ("Key decisions" is a name for it): runs
    # add to the first only, so one kind of entry ends up in two places
    run_offline(fixture_workspace)
    memory = fixture_workspace / "MEMORY.md"
    memory.write_text(
        memory.read_text(encoding="utf-8")
        + "\n## Key decisions\n- keep Postgres 14 for billing (2026-11-02)\n",
        encoding="utf-8",
    )
    code, report = doctor_json(fixture_workspace)
    assert code == 0
    assert [m for m in findings(report, "warn") if m.startswith("MEMORY.md")] == [
        "MEMORY.md: 2 sections are '## Decisions' (or a name for it); runs add new entries to the first only"
    ]


def test_a_memory_md_with_an_unresolved_merge_conflict_is_refused_by_the_run_and_failed_by_doctor(
    fixture_workspace: Path,
) -> None:
    """A MEMORY.md synced with git and merged badly: the run went on, integrated new notes around both
    sides of the conflict, and doctor said Healthy. A conflict quoted in a code block is text."""
    memory = fixture_workspace / "MEMORY.md"
    lines = memory.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if line.startswith("## Facts")) + 1
    quoted = "\n```\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main\n```\n"
    conflict = [
        "<<<<<<< HEAD\n",
        "- [Atlas] the db is Postgres 15 (2026-11-20)\n",
        "=======\n",
        "- [Atlas] the db is Postgres 16 (2026-11-21)\n",
        ">>>>>>> other-branch\n",
    ]
    memory.write_text("".join([*lines[:at], *conflict, *lines[at:]]) + quoted, encoding="utf-8")
    before = memory.read_bytes()
    result = CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-25"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: MEMORY.md: an unresolved merge conflict at line {at + 1} (`<<<<<<<`). Nothing was changed; "
        "keep what is right between `<<<<<<<` and `>>>>>>>`, delete the three marker lines, then run again.\n"
    )
    assert memory.read_bytes() == before
    sizes = [
        c for c in diagnose(Workspace.open(fixture_workspace), InMemoryCrontab()).checks if c.area == "sizes"
    ]
    assert [(c.level, c.message) for c in sizes] == [
        (
            "fail",
            f"MEMORY.md: an unresolved merge conflict at line {at + 1} (`<<<<<<<`); every run refuses it",
        )
    ]
    memory.write_text("".join(lines) + quoted, encoding="utf-8")
    assert CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-25"]).exit_code == 0


def test_a_code_block_left_open_in_memory_md_is_named_with_the_sections_it_hides(
    fixture_workspace: Path,
) -> None:
    """A hand edit pastes a command without closing its fence: every section after it reads as code to a
    reader. Doctor names the block, the sections it hides and how to close it; the next run closes it
    there, even with most entries out of sight (no loss: they are all still in the file)."""
    run_offline(fixture_workspace)
    memory = fixture_workspace / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    last = text.rindex("\n## ") + 1
    memory.write_text(text[:last] + "```bash\nmemory-sleep run\n" + text[last:], encoding="utf-8")
    line, section = text[:last].count("\n") + 1, text[last:].split("\n", 1)[0]
    code, report = doctor_json(fixture_workspace)
    assert code == 0
    assert [m for m in findings(report, "warn") if m.startswith("MEMORY.md")] == [
        f"MEMORY.md: the code block opened at line {line} is never closed: the 1 section after it reads as "
        f'code (the next run closes it before "{section}")'
    ]
    fixes = [check["fix"] for check in report["checks"] if check["level"] == "warn"]
    assert f'close it: put a line holding only ``` before "{section}"' in fixes
    first = text.index("\n## ", text.index("## ") + 1) + 1
    memory.write_text(text[:first] + "```\n" + text[first:], encoding="utf-8")
    ran = CliRunner().invoke(main, ["run", str(fixture_workspace), "--engine", "offline"])
    assert ran.exit_code == 0, ran.output
    assert f"the code block opened at line {text[:first].count(chr(10)) + 1} was never closed" in ran.output
    assert MemoryDocument.parse(memory.read_text(encoding="utf-8")).open_block is None
