"""`memory-sleep doctor`: read-only checks of a workspace, each with what to do about it.

Levels: `ok`; `warn`, worth knowing, nothing breaks; `fail`, something a run skips or cannot do until
it is fixed (the command then exits 1). A check that itself crashes is reported as a failure of that
check, never as a traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Literal

from memory_sleep.config import Config, load_config
from memory_sleep.errors import MemorySleepError
from memory_sleep.text import counted
from memory_sleep.workspace.layout import Workspace, discover, unwritable

Level = Literal["ok", "warn", "fail"]
_DATE_LIKE = re.compile(r"(\d{4})[-_.](\d{1,2})[-_.](\d{1,2})|(\d{1,2})[-_.](\d{1,2})[-_.](\d{4})")
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it stands, and the next step when it is not ok."""

    area: str
    level: Level
    message: str
    fix: str | None = None


@dataclass
class Diagnosis:
    workspace: str
    checks: list[Check] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return sum(check.level == "fail" for check in self.checks)

    @property
    def warnings(self) -> int:
        return sum(check.level == "warn" for check in self.checks)

    def as_dict(self) -> dict[str, object]:
        return {
            "workspace": self.workspace,
            "ok": self.failures == 0,
            "failures": self.failures,
            "warnings": self.warnings,
            "checks": [asdict(check) for check in self.checks],
        }

    def lines(self) -> list[str]:
        marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
        out = [f"memory-sleep doctor {self.workspace}"]
        for check in self.checks:
            out.append(f"  {marks[check.level]}  {check.area:<9} {check.message}")
            if check.fix:
                out.append(f"{'':18}fix: {check.fix}")
        if self.failures:
            out.append(f"{self.failures} to fix, {_count(self.warnings, 'warning')}.")
        else:
            out.append(f"Healthy ({_count(self.warnings, 'warning')})." if self.warnings else "Healthy.")
        return out


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def diagnose(workspace: Workspace, crontab: object | None = None) -> Diagnosis:
    """Run every check; `crontab` is a cron.Crontab (default: MEMORY_SLEEP_CRONTAB or the user's)."""
    report = Diagnosis(str(workspace.root))
    config, config_check = _config(workspace)
    report.checks.append(config_check)
    steps: list[tuple[str, Callable[[], Iterator[Check]]]] = [
        ("layout", lambda: _layout(workspace)),
        ("engine", lambda: _engine(config)),
        ("last run", lambda: _last_run(workspace)),
        ("lock", lambda: _lock(workspace)),
        ("MEMORY.md", lambda: _memory_loss(workspace)),
        ("sizes", lambda: _sizes(workspace, config)),
        ("notes", lambda: _notes(workspace, config)),
        ("secrets", lambda: _secrets(workspace)),
        ("sidecar", lambda: _sidecar(workspace, config)),
        ("cron", lambda: _cron(workspace, config, crontab)),
    ]
    if workspace.layout_problem():  # not a workspace at all, or MEMORY.md not a file: the rest would mislead
        steps = steps[:1]
    for area, step in steps:
        try:
            report.checks.extend(step())
        except Exception as error:  # a broken check must not hide the others
            report.checks.append(
                Check(
                    area,
                    "fail",
                    f"the check itself failed ({type(error).__name__}: {error})",
                    "rerun with MEMORY_SLEEP_DEBUG=1 and report it",
                )
            )
            if os.environ.get("MEMORY_SLEEP_DEBUG") == "1":
                raise
    return report


def _config(workspace: Workspace) -> tuple[Config, Check]:
    path = workspace.config_file
    if not path.exists():
        return Config(), Check("config", "ok", "no memory-sleep.toml: every key at its default")
    try:
        return load_config(path), Check("config", "ok", f"{path.name}: valid")
    except MemorySleepError as error:
        return Config(), Check(
            "config", "fail", str(error), "the other checks below assume the defaults until it is fixed"
        )


def _layout(workspace: Workspace) -> Iterator[Check]:
    problem = workspace.layout_problem()
    if problem:
        yield Check("layout", "fail", problem)
        return
    missing = [
        name
        for name, path in (("MEMORY.md", workspace.memory_md), ("memory/", workspace.notes_dir))
        if not path.exists()
    ]
    if missing:
        yield Check(
            "layout",
            "warn",
            f"missing: {', '.join(missing)}",
            f"`memory-sleep init {workspace.root}` creates them (a run does too)",
        )
    else:
        yield Check("layout", "ok", "MEMORY.md and memory/ present")
    read_only = unwritable(workspace.state_dir)
    if read_only:
        yield Check(
            "layout",
            "fail",
            f"read-only: {read_only}; run, index, forget and undo cannot write, and recall is not logged",
            "mount it read-write or run as the user who owns it; nothing needs moving or rebuilding "
            "(`memory-sleep recall` still searches, unlogged)",
        )


def _engine(config: Config) -> Iterator[Check]:
    from memory_sleep.engines.select import choose_engine_name

    requested = config.engine.name
    chosen = choose_engine_name(requested)
    if chosen == "offline":
        if config.engine.require_llm:
            yield Check(
                "engine",
                "fail",
                "require_llm is set but no provider key is set",
                "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or set [engine] require_llm = false",
            )
        else:
            why = "" if requested == "offline" else " (auto: no ANTHROPIC_API_KEY or OPENAI_API_KEY set)"
            yield Check("engine", "ok", f"offline{why}: deterministic rules, no key needed")
    else:
        variable = KEY_VARIABLES[chosen]
        if os.environ.get(variable) or (chosen == "openai" and config.engine.base_url):
            source = config.engine.base_url or f"{variable} set"
            yield Check("engine", "ok", f"{chosen}{' (auto)' if requested == 'auto' else ''}: {source}")
        else:
            yield Check(
                "engine",
                "fail",
                f"[engine] name = {chosen!r} but {variable} is not set",
                f'export {variable}=..., or set [engine] name = "offline"',
            )
    sidecar = config.sidecar
    if sidecar.enabled and sidecar.embedder == "openai" and not sidecar.base_url:
        if os.environ.get(sidecar.api_key_env):
            yield Check("engine", "ok", f"sidecar embedder openai: {sidecar.api_key_env} set")
        else:
            yield Check(
                "engine",
                "fail",
                f'[sidecar] embedder = "openai" but {sidecar.api_key_env} is not set',
                f'export {sidecar.api_key_env}=..., or set [sidecar] embedder = "offline"',
            )


def _last_run(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.workspace.sleep_log import read_sleep_log

    if not workspace.sleep_log.exists():
        yield Check("last run", "warn", "never run here", f"`memory-sleep run {workspace.root}`")
        return
    log = read_sleep_log(workspace.sleep_log.read_bytes())
    if log is None:
        yield Check(
            "last run",
            "warn",
            "memory/sleep-log.json: not in a shape this version reads",
            "the next run starts a new one; move the old file away to keep it",
        )
        return
    when = log.lastRun.isoformat(timespec="seconds")
    if log.status == "ok":
        yield Check("last run", "ok", f"{when} ok, engine {log.engine}, {_count(log.itemsKept, 'item')} kept")
    else:
        yield Check(
            "last run",
            "fail",
            f"{when} {log.status}: {log.error}",
            "fix what the error names, then `memory-sleep run` (that run changed nothing)",
        )


def _lock(workspace: Workspace) -> Iterator[Check]:
    from filelock import FileLock, Timeout

    from memory_sleep.workspace.writer import SafeWriter

    state = workspace.state_dir
    holder_file = state / "lock.holder"
    holder = _read_holder(holder_file)
    if not state.is_dir():
        yield Check("lock", "ok", "free (no run yet)")
        return
    if unwritable(state):
        yield Check("lock", "ok", "not checked: the workspace is read-only (see layout), so no run can start")
        return
    lock = FileLock(state / "lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        who = f"pid {holder.get('pid')} since {holder.get('since')}" if holder else "holder unknown"
        yield Check("lock", "warn", f"a run is in progress ({who})", "wait for it; runs never overlap")
    else:
        lock.release()
        if holder_file.exists():
            yield Check(
                "lock",
                "warn",
                f"stale lock record in {workspace.relative(holder_file)} "
                f"({_describe_holder(holder)}): a run was killed",
                "nothing to do: the lock is free and the next run recovers; delete the file to silence this",
            )
        else:
            yield Check("lock", "ok", "free")
    unfinished = [
        m.run_id for m in SafeWriter(workspace.root, state / "snapshots").manifests() if m.status == "writing"
    ]
    if unfinished:
        yield Check(
            "lock",
            "warn",
            f"run {unfinished[-1]} stopped half-way",
            "the next `memory-sleep run` (or `memory-sleep undo`) rolls it back first",
        )


def _read_holder(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe_holder(holder: dict[str, object]) -> str:
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return "holder unknown"
    if holder.get("host") == socket.gethostname():
        try:
            os.kill(pid, 0)
            alive = "still running, but not holding the lock"
        except ProcessLookupError:
            alive = "no longer running"
        except PermissionError:
            alive = "running as another user"
        return f"pid {pid}, {alive}"
    return f"pid {pid} on {holder.get('host')}"


def _memory_loss(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.cycle.memory_loss import find_loss

    memory = workspace.memory_md
    loss = find_loss(
        workspace, memory.read_text(encoding="utf-8", errors="replace") if memory.is_file() else ""
    )
    if loss:
        yield Check(
            "MEMORY.md",
            "fail",
            f"{loss.finding()}: emptied or cut since; runs refuse it",
            f"`{loss.restore_command()}` restores the last run's version; or `memory-sleep run "
            "--accept-memory-reset` goes on from it as it is",
        )


def _sizes(workspace: Workspace, config: Config) -> Iterator[Check]:
    memory = workspace.memory_md
    if memory.is_file():
        raw = memory.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield Check(
                "sizes",
                "fail",
                f"MEMORY.md: not valid UTF-8 (byte {error.start}); every run refuses it",
                "re-save MEMORY.md as UTF-8",
            )
            return
        from memory_sleep.cycle.guards import tool_bytes
        from memory_sleep.workspace.memory_doc import MemoryDocument

        size, limit = len(raw), config.memory_max_bytes
        tool = tool_bytes(MemoryDocument.parse(raw.decode("utf-8")))
        if tool > limit:
            yield Check(
                "sizes",
                "warn",
                f"MEMORY.md: the tool's entries take {tool:,} bytes, over memory_max_bytes ({limit:,})",
                "runs keep them from growing; raise memory_max_bytes or archive entries by hand",
            )
        elif tool > 0.9 * limit:
            yield Check(
                "sizes",
                "warn",
                f"MEMORY.md: the tool's entries take {tool:,} of {limit:,} bytes (memory_max_bytes)",
                "runs will archive the oldest entries to stay under it; raise memory_max_bytes to keep more",
            )
        else:
            yield Check(
                "sizes",
                "ok",
                f"MEMORY.md {size:,} bytes; the tool's entries {tool:,} of {limit:,} (memory_max_bytes)",
            )
    briefing = workspace.briefing
    if briefing.is_file() and briefing.stat().st_size > config.briefing_max_bytes:
        yield Check(
            "sizes",
            "warn",
            f"memory/briefing.md is {briefing.stat().st_size:,} bytes, over briefing_max_bytes "
            f"({config.briefing_max_bytes:,}): edited by hand?",
            "the next run rewrites it within the limit",
        )


def _notes(workspace: Workspace, config: Config) -> Iterator[Check]:
    from memory_sleep.workspace.notes import NoteReadError, read_note

    found = discover(workspace)
    for problem in found.problems:
        yield Check("notes", "fail", problem)
    unreadable = 0
    for note in found.notes:
        try:
            parsed = read_note(note, config.max_note_bytes)
        except NoteReadError as error:
            unreadable += 1
            yield Check("notes", "fail", str(error))
            continue
        if parsed.warning:
            yield Check("notes", "warn", parsed.warning)
    for stray in found.strays:
        looks_like = _looks_like_note(stray.removeprefix("memory/"))
        if looks_like and (workspace.notes_dir / looks_like).exists():
            yield Check(
                "notes",
                "warn",
                f"{stray}: looks like a daily note but is not named like one; it is not read",
                f"memory/{looks_like} exists: merge it into that note, or rename it to "
                f"memory/{looks_like.removesuffix('.md')}-<topic>.md",
            )
        elif looks_like:
            yield Check(
                "notes",
                "warn",
                f"{stray}: looks like a daily note but is not named like one; it is not read",
                f"rename it to memory/{looks_like}",
            )
        else:
            yield Check(
                "notes",
                "warn",
                f"{stray}: not a daily note; left alone",
                "move it out of memory/ if it does not belong there",
            )
    readable = len(found.notes) - unreadable
    yield Check("notes", "ok" if readable or not found.notes else "warn", f"{readable} daily notes readable")


def _secrets(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.workspace.note_secrets import by_note, sightings_in_notes

    held = by_note(sightings_in_notes(discover(workspace).notes, workspace))
    for note, where in held:
        fix = f"`memory-sleep redact {workspace.root / note}` replaces them (`memory-sleep undo` reverts)"
        yield Check("secrets", "warn", f"{note}: in plain text at {where}", fix)
    if not held:
        yield Check("secrets", "ok", "no secret in plain text in the notes")


def _looks_like_note(name: str) -> str | None:
    """The name a misnamed note should have (`2026-11-24.md` for `2026_11_24.txt`), or None."""
    match = _DATE_LIKE.search(name)
    if not match:
        return None
    year, month, day = (match[1], match[2], match[3]) if match[1] else (match[6], match[5], match[4])
    try:
        date(int(year), int(month), int(day))
    except ValueError:
        return None
    stem, suffix = name[: match.start()], name[match.end() :]
    topic = re.sub(r"\.(md|markdown|txt|MD)$", "", suffix).strip("-_. ")
    prefix = stem.strip("-_. ")
    topic = "-".join(part for part in (prefix, topic) if part)
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}{'-' + topic if topic else ''}.md"


def _sidecar(workspace: Workspace, config: Config) -> Iterator[Check]:
    from memory_sleep.sidecar.store import DB_NAME, Store

    if not config.sidecar.enabled:
        yield Check("sidecar", "ok", "disabled ([sidecar] enabled = false)")
        return
    if config.sidecar.store == "postgres":
        yield from _postgres(config)
        return
    path = workspace.state_dir / DB_NAME
    if not path.exists():
        yield Check(
            "sidecar",
            "warn",
            "not built yet: recall finds nothing",
            f"`memory-sleep index {workspace.root}` (every run indexes too)",
        )
        return
    try:
        store = Store.open(path, read_only=unwritable(path.parent) or unwritable(path))
    except MemorySleepError as error:
        yield Check("sidecar", "fail", str(error))
        return
    try:
        verdict = store.db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            yield Check(
                "sidecar",
                "fail",
                f"{workspace.relative(path)}: damaged ({verdict})",
                "move it away and run `memory-sleep index` to rebuild it from the markdown",
            )
            return
        live, deleted = store.db.execute(
            "SELECT count(*) - count(deleted_at), count(deleted_at) FROM entries"
        ).fetchone()
        stored = store.meta("embedder")
    finally:
        store.close()
    yield Check(
        "sidecar",
        "ok",
        f"{counted(live, 'entry', 'entries')} live, {deleted} soft-deleted, embedder {stored or 'none yet'}",
    )
    if config.sidecar.embedder == "offline" and stored and not stored.startswith("offline"):
        yield Check(
            "sidecar",
            "warn",
            f"built with {stored}, configured embedder is offline",
            "the next index re-embeds every entry",
        )


def _postgres(config: Config) -> Iterator[Check]:
    from memory_sleep.sidecar.pg.connect import resolve_dsn
    from memory_sleep.sidecar.pg.health import findings

    try:
        dsn = resolve_dsn(config.sidecar.dsn)
    except MemorySleepError as error:
        yield Check("sidecar", "fail", str(error))
        return
    for level, message, fix in findings(dsn, config.sidecar.dimensions):
        yield Check("sidecar", level, message, fix)  # type: ignore[arg-type]


def _cron(workspace: Workspace, config: Config, crontab: object | None) -> Iterator[Check]:
    from memory_sleep.cli.cron import Crontab, ScheduleError, default_crontab, find_line, line_executable

    table_source: Crontab = crontab if crontab is not None else default_crontab()  # type: ignore[assignment]
    try:
        table = table_source.read()
    except ScheduleError as error:
        yield Check("cron", "warn", str(error))
        return
    line = find_line(table, workspace)
    if line is None:
        yield Check(
            "cron",
            "warn",
            "no cron line for this workspace: nothing runs it nightly",
            f"`memory-sleep cron install {workspace.root}` (or schedule `memory-sleep cron prompt`)",
        )
        return
    program = line_executable(line)
    if program and not (os.path.isfile(program) or shutil.which(program)):
        yield Check(
            "cron",
            "fail",
            f"the cron line runs {program}, which no longer exists",
            f"`memory-sleep cron install {workspace.root}` from the installation you use now",
        )
        return
    yield Check("cron", "ok", f"scheduled: {line.split(' mkdir ', 1)[0]}")
    from memory_sleep.engines.select import choose_engine_name

    chosen = choose_engine_name(config.engine.name)
    variable = KEY_VARIABLES.get(chosen)
    if variable and f"{variable}=" not in table and not config.engine.base_url:
        yield Check(
            "cron",
            "warn",
            f"cron does not see your shell's {variable}: the nightly run will decide offline"
            + (" or fail (require_llm)" if config.engine.require_llm else ""),
            f"add a line `{variable}=...` above it with `crontab -e`",
        )
