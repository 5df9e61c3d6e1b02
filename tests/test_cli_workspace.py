"""Which folders the verbs accept: never a folder that is not a workspace (nothing is created there),
never a MEMORY.md that is a folder, and a read-only workspace is read, with advice that loses nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.errors import StoreError
from memory_sleep.sidecar.store import Store

from .conftest import snapshot_tree

ReadOnlyCli = Callable[..., subprocess.CompletedProcess[str]]
NOT_A_WORKSPACE = "not a memory-sleep workspace (no MEMORY.md, no memory/ folder); nothing was written."
DATA_LOSING_ADVICE = "Move the file away"


def everything(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder`, folders included, with the bytes of each file."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in folder.rglob("*")
    }


@pytest.fixture
def code_folder(tmp_path: Path) -> Path:
    """A folder of code, the kind a mistyped path or a `cd` to the wrong place hands the CLI."""
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("print('hello')\n")
    (folder / "README.md").write_text("# project\n")
    return folder


VERBS = [
    ["run"],
    ["run", "--dry-run"],
    ["index"],
    ["recall", "billing", "{folder}"],
    ["recall", "billing", "{folder}", "--dry-run"],
    ["forget"],
    ["stats"],
    ["status"],
    ["undo"],
    ["cron", "install"],
    ["cron", "show"],
    ["mcp"],
]


@pytest.mark.parametrize("verb", VERBS, ids=" ".join)
def test_no_verb_turns_a_folder_of_code_into_a_workspace(code_folder: Path, verb: list[str]) -> None:
    before = everything(code_folder)
    words = [word.format(folder=code_folder) for word in verb]
    arguments = words if "{folder}" in " ".join(verb) else [*words, str(code_folder)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 1, result.output
    assert f"Error: {code_folder}: {NOT_A_WORKSPACE}" in result.output
    assert f"`memory-sleep init {code_folder}`" in result.output
    assert everything(code_folder) == before


def test_a_bare_run_from_the_wrong_folder_is_refused(
    code_folder: Path, monkeypatch: pytest.MonkeyPatch, no_real_crontab: Path
) -> None:
    monkeypatch.chdir(code_folder / "src")
    before = everything(code_folder)
    result = CliRunner().invoke(main, ["run"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {code_folder / 'src'}: {NOT_A_WORKSPACE} Pass the folder that holds MEMORY.md, or "
        f"`memory-sleep init {code_folder / 'src'}` to make this one a workspace.\n"
    )
    assert everything(code_folder) == before
    cron_line = CliRunner().invoke(main, ["cron", "install"])
    assert cron_line.exit_code == 1 and not no_real_crontab.exists()


def test_recall_with_the_workspace_before_the_query_says_the_order(fixture_workspace: Path) -> None:
    result = CliRunner().invoke(main, ["recall", str(fixture_workspace), "who owns billing"])
    assert result.exit_code == 2
    assert (
        f'the query comes first: memory-sleep recall "who owns billing" {fixture_workspace}' in result.output
    )


def test_recall_of_an_unquoted_query_says_to_quote_it(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "memory-sleep recall server IP" read "IP" as the workspace: "IP: no such folder"."""
    monkeypatch.chdir(fixture_workspace)
    result = CliRunner().invoke(main, ["recall", "server", "IP"])
    assert result.exit_code == 2
    assert 'IP: no such folder. A query of several words goes in quotes: memory-sleep recall "server IP"' in (
        result.output
    )


def test_doctor_says_a_folder_is_no_workspace_and_stops(code_folder: Path) -> None:
    before = everything(code_folder)
    result = CliRunner().invoke(main, ["doctor", str(code_folder), "--json"])
    assert result.exit_code == 1
    checks = json.loads(result.output)["checks"]
    assert [(check["area"], check["level"]) for check in checks] == [("config", "ok"), ("layout", "fail")]
    assert NOT_A_WORKSPACE in checks[1]["message"]
    assert everything(code_folder) == before


def test_init_makes_the_folder_a_workspace_that_runs(code_folder: Path) -> None:
    assert CliRunner().invoke(main, ["init", str(code_folder)]).exit_code == 0
    result = CliRunner().invoke(main, ["run", str(code_folder), "--today", "2026-11-25"])
    assert result.exit_code == 0, result.output


def test_a_memory_md_folder_fails_doctor_and_index_keeps_its_entries(fixture_workspace: Path) -> None:
    assert CliRunner().invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-25"]).exit_code == 0
    memory = fixture_workspace / "MEMORY.md"
    memory.rename(fixture_workspace / "saved.md")
    memory.mkdir()
    (fixture_workspace / "saved.md").rename(memory / "MEMORY.md")
    problem = f"{memory}: is a folder, where memory-sleep keeps a file of that name. Nothing was changed."

    doctor = CliRunner().invoke(main, ["doctor", str(fixture_workspace)])
    assert doctor.exit_code == 1
    assert f"  FAIL  layout    {problem}" in doctor.output and "ok    layout" not in doctor.output
    index = CliRunner().invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-26"])
    assert index.exit_code == 1 and f"Error: {problem}" in index.output

    db = sqlite3.connect(fixture_workspace / "memory" / ".sleep" / "sidecar.db")
    live, deleted = db.execute(
        "SELECT count(*) - count(deleted_at), count(deleted_at) FROM entries WHERE kind = 'memory'"
    ).fetchone()
    db.close()
    assert live > 10 and deleted == 0


# read-only workspaces


def test_a_read_only_store_reads_and_refuses_writes_without_losing_anything(tmp_path: Path) -> None:
    path = tmp_path / "sidecar.db"
    Store.open(path).close()
    store = Store.open(path, read_only=f"{tmp_path} is on a read-only file system")
    assert store.meta("embedder") is None and store.read_only is not None
    with pytest.raises(StoreError) as refused:
        store.set_meta("embedder", "x")
    store.close()
    message = str(refused.value)
    assert (
        f"cannot write the sidecar: {tmp_path} is on a read-only file system; nothing was changed" in message
    )
    assert DATA_LOSING_ADVICE not in message
    with pytest.raises(StoreError, match="no sidecar yet, and none can be built: because"):
        Store.open(tmp_path / "absent.db", read_only="because")


def _read_only_mounts() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.fixture
def read_only_cli(fixture_workspace: Path) -> ReadOnlyCli:
    """Run the CLI with the workspace mounted read-only (a bind mount in an unprivileged user and mount
    namespace, so it holds even for root, and the failures are the real EROFS ones)."""
    if not _read_only_mounts():
        pytest.skip("needs `unshare -rm` (user namespaces) to mount the workspace read-only")
    indexed = CliRunner().invoke(main, ["index", str(fixture_workspace), "--today", "2026-11-25"])
    assert indexed.exit_code == 0, indexed.output

    def cli(*arguments: str) -> subprocess.CompletedProcess[str]:
        folder = str(fixture_workspace)
        script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'
        command = [sys.executable, "-m", "memory_sleep", *arguments]
        return subprocess.run(
            ["unshare", "-rm", "sh", "-c", script, "sh", folder, *command],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    return cli


def test_recall_on_a_read_only_workspace_prints_hits(
    read_only_cli: ReadOnlyCli, fixture_workspace: Path
) -> None:
    before = snapshot_tree(fixture_workspace, skip_state=False)
    searched = read_only_cli(
        "recall", "billing", str(fixture_workspace), "--dry-run", "--today", "2026-11-25"
    )
    assert searched.returncode == 0, searched.stderr
    assert searched.stdout.startswith(" 1. ") and searched.stderr == ""
    recalled = read_only_cli("recall", "billing", str(fixture_workspace), "--today", "2026-11-25")
    assert recalled.returncode == 0 and recalled.stdout == searched.stdout
    assert recalled.stderr.startswith("Warning: cannot log this recall (")
    assert "is on a read-only file system): the hits are shown" in recalled.stderr
    assert snapshot_tree(fixture_workspace, skip_state=False) == before


def test_writing_verbs_on_a_read_only_workspace_advise_nothing_that_loses_data(
    read_only_cli: ReadOnlyCli, fixture_workspace: Path
) -> None:
    (fixture_workspace / "memory" / "2026-11-24.md").write_text("# 2026-11-24\n\n- Decided: new note\n")
    indexed = read_only_cli("index", str(fixture_workspace))
    forgot = read_only_cli("forget", str(fixture_workspace))
    # index and forget write what a run writes, so they take the workspace's lock first, as a run does
    ran = read_only_cli("run", str(fixture_workspace), "--today", "2026-11-25")
    for result in (indexed, forgot, ran):
        assert (
            f"memory/.sleep/lock: cannot lock ({fixture_workspace}/memory/.sleep is on a read-only file "
            "system); nothing was changed. Make the workspace writable (mount it read-write, or run as the "
            "user who owns it), then rerun"
        ) in " ".join(result.stderr.split())
    dry = read_only_cli("run", str(fixture_workspace), "--today", "2026-11-25", "--dry-run")
    assert dry.returncode == 0 and "+- Decided: new note" in dry.stdout, dry.stderr
    for result in (indexed, forgot, ran):
        assert result.returncode == 1
        assert DATA_LOSING_ADVICE not in result.stderr and "unexpected" not in result.stderr


def test_doctor_on_a_read_only_workspace_says_what_is_wrong(
    read_only_cli: ReadOnlyCli, fixture_workspace: Path
) -> None:
    result = read_only_cli("doctor", str(fixture_workspace), "--json")
    assert result.returncode == 1, result.stderr
    checks = {(check["area"], check["level"]): check for check in json.loads(result.stdout)["checks"]}
    layout = checks["layout", "fail"]
    assert layout["message"].startswith("read-only: ") and "read-only file system" in layout["message"]
    assert "nothing needs moving or rebuilding" in layout["fix"]
    assert " entries live, 0 soft-deleted" in checks["sidecar", "ok"]["message"]
    assert "the check itself failed" not in result.stdout and DATA_LOSING_ADVICE not in result.stdout


# notes a run does not read


def test_a_run_with_nothing_to_do_still_names_the_notes_it_skips(fixture_workspace: Path) -> None:
    """A note it cannot read is named on every run until it is fixed: after the first run's warning, a
    user who edited the note (still not UTF-8) was told only 'Nothing to do: no new or changed notes'."""
    broken = fixture_workspace / "memory" / "2026-11-24.md"
    broken.write_bytes(b"# 2026-11-24\n\n- Decided: caf\xe9 budget is 50 EUR a month\n")
    arguments = ["run", str(fixture_workspace), "--today", "2026-11-25", "--engine", "offline"]
    warning = (
        "Warning: memory/2026-11-24.md: not valid UTF-8 (line 3, byte 28); skipped. Re-save it as UTF-8.\n"
    )
    first = CliRunner().invoke(main, arguments)
    assert first.exit_code == 0 and warning in first.stderr
    broken.write_bytes(broken.read_bytes() + b"- and the caf\xe9 opens at 8\n")
    again = CliRunner().invoke(main, arguments)
    assert again.exit_code == 0 and again.stderr == warning
    assert again.stdout.endswith("Nothing to do: no new or changed notes since the last run.\n")


def test_a_run_says_which_files_look_like_notes_it_does_not_read(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory" / "11-24-2026.md").write_text("- Decided: a misnamed note.\n")
    arguments = ["run", str(fixture_workspace), "--today", "2026-11-25", "--engine", "offline"]
    first = CliRunner().invoke(main, arguments)
    again = CliRunner().invoke(main, arguments)
    warning = (
        "Warning: not read, not named memory/YYYY-MM-DD.md: memory/11-24-2026.md; "
        "`memory-sleep doctor` says what to rename them to.\n"
    )
    for result in (first, again):  # the second has nothing to do, and says so with the same warning
        assert result.exit_code == 0 and result.stderr == warning  # not scratch-todo.txt, no date in it
    assert again.stdout.endswith("Nothing to do: no new or changed notes since the last run.\n")
    verbose = CliRunner().invoke(main, [*arguments, "-v"])
    assert verbose.stderr == "" and verbose.stdout.endswith(
        "Left alone (not daily notes): memory/11-24-2026.md, memory/scratch-todo.txt\n"
    )


def test_a_run_that_only_archives_does_not_say_no_changes(fixture_workspace: Path) -> None:
    """ "REM: no changes; 1 archived; MEMORY.md 15,027 -> 14,957 bytes" read as a contradiction."""
    runner = CliRunner()
    folder = str(fixture_workspace)
    assert (
        runner.invoke(main, ["run", folder, "--engine", "offline", "--today", "2026-11-25", "-q"]).exit_code
        == 0
    )
    later = runner.invoke(main, ["run", folder, "--engine", "offline", "--today", "2026-11-26"])
    assert "REM: no entry added or changed; 1 archived;" in later.output, later.output


def test_run_v_says_what_it_discarded_and_kept_in_the_notes_only_and_why(tmp_path: Path) -> None:
    """A user asking why a line never reached MEMORY.md gets each verdict with the engine's reason;
    noise (a note may hold thousands of readings) by reason and count. Without -v, the counts only."""
    notes = tmp_path / "memory"
    notes.mkdir()
    (notes / "2026-11-25.md").write_text(
        "# 2026-11-25\n\n- [x] sent the invoice to Contoso\n- Decided: Quokka launches on 2026-12-10.\n"
        "- Lunch was great.\n- Checked: 2026-11-25 09:12\n\n```\n$ make test\nok 41 passed\n```\n",
        encoding="utf-8",
    )
    arguments = ["run", str(tmp_path), "--today", "2026-11-26", "--engine", "offline"]
    plain = CliRunner().invoke(main, [*arguments, "--dry-run"])
    assert plain.exit_code == 0 and "Discarded (" not in plain.stdout
    verbose = CliRunner().invoke(main, [*arguments, "-v"])
    assert verbose.exit_code == 0, verbose.output
    assert verbose.stdout.endswith(
        "Discarded (4):\n"
        "  memory/2026-11-25.md:3  resolved: finished task with no lasting lesson  | - [x] sent the invoice to Contoso\n"
        "  memory/2026-11-25.md:5  other: no decision, fact, lesson, action, person or status in it  | - Lunch was great.\n"
        "  1 debug line (noise: counted, not listed)\n"
        "  1 routine line (noise: counted, not listed)\n"
    ), verbose.stdout


def _run_verbose(folder: Path, note: str, memory: str | None = None) -> str:
    """`run -v` (offline, the day after) on a workspace of one note of 2026-11-25 and, if given, a
    MEMORY.md; what it printed."""
    if memory is not None:
        (folder / "MEMORY.md").write_text(memory)
    notes = folder / "memory"
    notes.mkdir()
    (notes / "2026-11-25.md").write_text(note, encoding="utf-8")
    arguments = ["run", str(folder), "--today", "2026-11-26", "--engine", "offline", "-v"]
    verbose = CliRunner().invoke(main, arguments)
    assert verbose.exit_code == 0, verbose.output
    return verbose.stdout


def test_run_v_lists_the_items_kept_in_the_notes_only(tmp_path: Path) -> None:
    """A check's readings are kept, recallable in the note, and not promoted: -v says so, and why."""
    said = _run_verbose(
        tmp_path, "# 2026-11-25\n\n## Check 09:00\n- Pending: 7\n- Status: all green\n- Inbox: 3 unread\n"
    )
    assert said.endswith(
        "Kept in the notes only, not promoted to MEMORY.md (3):\n"
        "  memory/2026-11-25.md:4  action: open action item  | - Pending: 7\n"
        "  memory/2026-11-25.md:5  fact: new fact  | - Status: all green\n"
        "  memory/2026-11-25.md:6  fact: new fact  | - Inbox: 3 unread\n"
    ), said


def test_run_v_names_the_action_a_discarded_done_line_closed(tmp_path: Path) -> None:
    """A line reporting a task done is discarded, and closes the open action: -v says which."""
    said = _run_verbose(
        tmp_path,
        "# 2026-11-25\n\n- [x] sent the invoice to Contoso\n",
        "# MEMORY\n\n## Facts\n- Contoso pays net 30 (2026-11-20)\n\n"
        "## Action items\n- send the invoice to Contoso (2026-11-20)\n",
    )
    assert said.endswith(
        "Discarded (1):\n"
        "  memory/2026-11-25.md:3  resolved: finished task with no lasting lesson  | - [x] sent the invoice to Contoso\n"
        "    closed the action: send the invoice to Contoso\n"
    ), said


def test_run_v_lists_as_kept_in_the_notes_only_what_rem_left_there(tmp_path: Path) -> None:
    """A reading of a check that repeats a MEMORY.md entry is REM's noop, not an item left in the
    notes: -v lists as many items as the REM line counts."""
    said = _run_verbose(
        tmp_path,
        "# 2026-11-25\n\n## Check 09:00\n- Pending: 7\n- Open: 3\n- Database: MySQL 8.0 and Redis 7\n",
        "# MEMORY\n\n## Facts\n- Database: MySQL 8.0, Redis 7\n",
    )
    assert "REM: 1 noop, 2 kept in the notes only;" in said
    assert said.endswith(
        "Kept in the notes only, not promoted to MEMORY.md (2):\n"
        "  memory/2026-11-25.md:4  action: open action item  | - Pending: 7\n"
        "  memory/2026-11-25.md:5  fact: new fact  | - Open: 3\n"
    ), said


def test_undo_q_prints_nothing_but_undoes(tmp_path: Path) -> None:
    """A script undoing the last run with -q, as it runs with -q, gets no output on success."""
    notes = tmp_path / "memory"
    notes.mkdir()
    (notes / "2026-11-25.md").write_text("# 2026-11-25\n\n- Decided: Quokka launches on 2026-12-10.\n")
    ran = CliRunner().invoke(
        main, ["run", str(tmp_path), "--today", "2026-11-26", "--engine", "offline", "-q"]
    )
    assert ran.exit_code == 0 and (tmp_path / "MEMORY.md").exists(), ran.output
    undone = CliRunner().invoke(main, ["undo", str(tmp_path), "-q"])
    assert (undone.exit_code, undone.stdout) == (0, ""), undone.output
    assert not (tmp_path / "MEMORY.md").exists()
