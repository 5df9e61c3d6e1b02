"""One convention across verbs: the workspace last, snake_case JSON, -q, plurals, and refusals that say why."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.errors import MemorySleepError
from memory_sleep.text import counted

from .cli_helpers import verbs
from .conftest import REPO
from .sidecar_helpers import make_workspace, open_at

TODAY = "2026-11-25"
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# mappings keyed by names from the data (file names, scopes, sources, reasons), not by field names
DATA_KEYED = {"by_source", "by_scope", "bytes_on_disk", "soft_deleted_by_reason", "files"}
NOTES = {
    "2026-01-05.md": "# Notes\n- Billing moves to Stripe on March 3, confirmed by Dana.\n"
    "- Alice prefers morning meetings for the design review.\n",
    "2026-01-06.md": "# Notes\n- The kitchen espresso machine needs descaling monthly.\n",
}


def _json_calls(ws: str) -> dict[str, list[str]]:
    """An invocation with --json of every verb that has it."""
    return {
        "run": ["run", ws, "--engine", "offline", "--today", TODAY, "--json"],
        "status": ["status", ws, "--today", TODAY, "--json"],
        "doctor": ["doctor", ws, "--json"],
        "index": ["index", ws, "--today", TODAY, "--json"],
        "recall": ["recall", "TLS certificate", ws, "--today", TODAY, "--json"],
        "stats": ["stats", ws, "--json"],
        "forget": ["forget", ws, "--all", "--today", TODAY, "--json"],
        "restore": ["restore", "1", "2", ws, "--json"],
        "cron show": ["cron", "show", ws, "--json"],
        "redact": ["redact", ws, "--dry-run", "--json"],
        "gc": ["gc", "all", ws, "--dry-run", "--today", TODAY, "--json"],
        "review": ["review", ws, "--json"],
        "forget-scope": ["forget-scope", "carol", ws, "--dry-run", "--json"],
        "purge": ["purge", ws, "--older-than", "90d", "--dry-run", "--json"],
    }


def _keys(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every (path, key) of the field names in a JSON document."""
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not path.endswith(tuple(DATA_KEYED)):
                found.append((path, key))
            found.extend(_keys(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for item in value:
            found.extend(_keys(item, f"{path}[]"))
    return found


def test_every_verb_prints_snake_case_json(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text("[memory.forgetting]\nmin_entries = 0\n")
    (fixture_workspace / "memory" / "2026-11-20-carol.md").write_text(
        "---\nscope: carol\n---\n- Carol is off.\n"
    )
    calls = _json_calls(str(fixture_workspace))
    with_json = {name for name, command in verbs() if any("--json" in p.opts for p in command.params)}
    assert with_json == set(calls), "add the new verb to _json_calls"
    runner = CliRunner()
    for verb, arguments in calls.items():
        result = runner.invoke(main, arguments)
        assert result.exit_code in (0, 1), (verb, result.output)
        wrong = [(path, key) for path, key in _keys(json.loads(result.stdout)) if not SNAKE.match(key)]
        assert not wrong, (verb, wrong)


def test_status_json_is_typed_and_lists_the_pending_notes(fixture_workspace: Path) -> None:
    runner = CliRunner()
    ws = str(fixture_workspace)
    before = json.loads(runner.invoke(main, ["status", ws, "--today", TODAY, "--json"]).stdout)
    assert before["last_run"] is None and before["problems"] == [] and before["daily_notes"] == 22
    assert before["stray_files"] == ["memory/scratch-todo.txt"] and before["memory_md_bytes"] > 0
    assert len(before["pending_notes"]) == 22 and before["pending_notes"][0] == "memory/2026-11-01.md"
    plain = runner.invoke(main, ["status", ws, "--today", TODAY]).output
    assert "last run: never" in plain and "notes not consolidated yet: 22 (memory/2026-11-01.md" in plain
    assert runner.invoke(main, ["run", ws, "--engine", "offline", "--today", TODAY, "-q"]).exit_code == 0
    after = json.loads(runner.invoke(main, ["status", ws, "--today", TODAY, "--json"]).stdout)
    assert after["last_run"]["status"] == "ok" and after["last_run"]["error"] is None
    assert after["pending_notes"] == []
    shown = runner.invoke(main, ["status", ws, "--today", TODAY]).output.splitlines()[1]
    at = datetime.fromisoformat(after["last_run"]["at"]).isoformat(timespec="seconds")
    assert shown == f"last run: {at} (ok, engine offline)"  # to the second, as doctor shows it
    edited = fixture_workspace / "memory" / "2026-11-03.md"
    edited.write_text(edited.read_text() + "- Decided: the audit log keeps 90 days.\n")
    os.utime(edited, ns=(edited.stat().st_atime_ns, edited.stat().st_mtime_ns + 10**9))
    # a note touched (copied, restored) but not changed: its words were consolidated
    touched = fixture_workspace / "memory" / "2026-11-04.md"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    pending = runner.invoke(main, ["status", ws, "--today", TODAY, "--pending"])
    assert pending.exit_code == 0 and pending.stdout == "memory/2026-11-03.md\n"


def _forgotten_workspace(tmp_path: Path) -> tuple[Path, list[int]]:
    folder = make_workspace(tmp_path / "ws", NOTES)
    (folder / "memory-sleep.toml").write_text(
        "[memory.forgetting]\nmin_entries = 0\nretention_threshold = 0.9\n", encoding="utf-8"
    )
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(folder)]).exit_code == 0
    report = json.loads(runner.invoke(main, ["forget", str(folder), "--json"]).stdout)
    forgotten = [verdict["id"] for verdict in report["verdicts"] if verdict["verdict"] == "forgotten"]
    assert len(forgotten) >= 2
    return folder, forgotten


def test_restore_takes_the_ids_then_the_workspace(tmp_path: Path) -> None:
    folder, forgotten = _forgotten_workspace(tmp_path)
    runner = CliRunner()
    one = runner.invoke(main, ["restore", str(forgotten[0]), str(folder)])
    assert one.exit_code == 0, one.output
    assert one.output == f"Restored 1 entry: {forgotten[0]}\n"
    old_style = runner.invoke(main, ["restore", str(forgotten[1]), "-w", str(folder)])
    assert old_style.output == f"Restored 1 entry: {forgotten[1]}\n"
    again = runner.invoke(main, ["restore", str(forgotten[0]), str(forgotten[1]), str(folder), "--json"])
    assert json.loads(again.stdout) == {
        "restored": [],
        "skipped": [
            {"id": forgotten[0], "reason": "not forgotten"},
            {"id": forgotten[1], "reason": "not forgotten"},
        ],
    }
    misplaced = runner.invoke(main, ["restore", "1", str(folder), "2"])
    assert misplaced.exit_code == 2
    assert f"{str(folder)!r} is not an entry id: give the ids (numbers) first and the workspace last" in (
        " ".join(misplaced.output.split())
    )
    both = runner.invoke(main, ["restore", "1", str(folder), "-w", str(folder)])
    assert both.exit_code == 2 and "Two workspaces" in both.output


def test_init_quiet_prints_nothing(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["init", str(tmp_path / "ws"), "-q"])
    assert result.exit_code == 0 and result.output == ""
    assert (tmp_path / "ws" / "MEMORY.md").exists() and (tmp_path / "ws" / "memory-sleep.toml").exists()


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_recall_is_refused_and_logs_nothing(tmp_path: Path, query: str) -> None:
    folder = make_workspace(tmp_path / "ws", NOTES)
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(folder)]).exit_code == 0
    result = runner.invoke(main, ["recall", query, str(folder)])
    assert result.exit_code == 2
    assert "Invalid value for 'QUERY': empty: give the words to search for" in result.output
    with open_at(folder) as sidecar:
        with pytest.raises(MemorySleepError, match="Empty query: give the words to search for"):
            sidecar.recall(query)
        assert sidecar.stats()["queries_logged"] == 0


def test_counts_agree_with_their_nouns() -> None:
    assert [counted(n, "entry", "entries") for n in (0, 1, 2)] == ["0 entries", "1 entry", "2 entries"]
    assert counted(1, "file") == "1 file" and counted(3, "file") == "3 files"
    assert counted(1204, "entry", "entries") == "1,204 entries"  # grouped, as every count in a message
    # the messages of the command line say counts through `counted`, never as "{n} things", nor with a
    # noun of their own choosing ("{held:,} {'entry' if held == 1 else 'entries'}")
    bare_count = re.compile(
        r"\{[^{}]*\} (entries|files|notes|items|warnings|queries|candidates|summaries|batches|LLM calls)\b"
        r"|== 1 else ['\"]\w*(ies|s)['\"]"
        r"|\{[^{}:]*\} (discarded|archived)\b"  # a count said by its verb, grouped by thousands too
    )
    modules = [
        *REPO.glob("memory_sleep/cli/*.py"),
        *REPO.glob("memory_sleep/cli/doctor/*.py"),
        *(
            REPO / "memory_sleep" / name
            for name in ("cycle/guards.py", "cycle/memory_loss.py", "workspace/sleep_log.py")
        ),
        REPO / "memory_sleep" / "sidecar" / "display.py",
        REPO / "memory_sleep" / "sleepgate" / "display.py",
    ]
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in modules
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if bare_count.search(line)
    ]
    assert not found, found


def test_status_says_a_note_no_run_can_read_is_a_problem_not_pending(fixture_workspace: Path) -> None:
    """A binary or oversized note was listed as "not consolidated yet" for ever: no run reads it."""
    (fixture_workspace / "memory" / "2026-11-20.md").write_bytes(b"\x00\x01binary\x00")
    report = json.loads(
        CliRunner().invoke(main, ["status", str(fixture_workspace), "--today", TODAY, "--json"]).stdout
    )
    assert "memory/2026-11-20.md" not in report["pending_notes"] and len(report["pending_notes"]) == 21
    assert report["problems"] == [
        "memory/2026-11-20.md: binary data, not a text note; skipped. Move it out of memory/."
    ]
    assert report["unreadable_notes"] == ["memory/2026-11-20.md"]
    said = CliRunner().invoke(main, ["status", str(fixture_workspace), "--today", TODAY]).stdout
    assert "; 1 more that no run can read (memory/2026-11-20.md: see problems)\n" in said, said


def test_a_run_stopped_with_ctrl_c_says_what_the_next_run_does(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of a run printed click's bare "Aborted!" and exited 1, as any failure."""
    from memory_sleep.cycle import runner

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_cycle", interrupted)
    result = CliRunner().invoke(main, ["run", str(fixture_workspace), "--today", "2026-11-25"])
    assert result.exit_code == 130
    assert result.output == (
        "Interrupted: the run stopped before it finished. The next `memory-sleep run` first rolls back "
        "anything it left half-written (`memory-sleep undo` only rolls it back).\n"
    )
    dry = CliRunner().invoke(main, ["run", str(fixture_workspace), "--dry-run"])
    assert (dry.exit_code, dry.output) == (130, "Interrupted: nothing was written.\n")
