"""A workspace's last nights through an engine, as a user's nightly runs meet them, and the checks that
nothing was lost.

The notes before the window are consolidated by the offline engine in one run (the state a workspace
is in after weeks of nightly runs, in seconds); then each night of the window gets its day's notes
and one run through the engine under test, dated the next morning; then the last run is repeated,
which must change nothing. After each night: no note's bytes changed, and every entry MEMORY.md held
before is still in MEMORY.md or in memory/archive.md.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from realscore.memory import read_doc
from realscore.runs import LEFT_OUT, Run, fingerprint

from memory_sleep.config import Config
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.base import Engine
from memory_sleep.engines.offline import offline_engine
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.sleep_log import RunRecord

EngineFor = Callable[[Path], Engine]  # the engine for a run on this workspace folder


@dataclass
class Night:
    workspace: str
    name: str  # "night 1", ..., "second run"
    notes: list[str]
    seconds: float
    record: RunRecord | None  # None when the run crashed
    crash: str | None = None
    lost: list[str] = field(default_factory=list)  # MEMORY.md entries found nowhere after the run
    notes_changed: list[str] = field(default_factory=list)
    changed: tuple[str, ...] = ()  # files whose bytes the run changed (bookkeeping aside)


@dataclass
class WorkspaceRun:
    name: str
    folder: Path
    start: Path  # a folder holding MEMORY.md as it was before the first night of the window
    today: date  # the last night's morning
    window: list[str] = field(default_factory=list)  # the window's notes, relative to the workspace
    nights: list[Night] = field(default_factory=list)

    @property
    def second(self) -> Night:
        return self.nights[-1]

    def as_runs(self) -> tuple[Run, Run]:
        """The window's nights as one first run, and the repeat, as realscore's figures count them."""
        nights, second = self.nights[:-1], self.nights[-1]
        first_status = "ok" if all(n.record and n.record.status == "ok" for n in nights) else "failed"
        return (
            Run(0, first_status, sum(n.seconds for n in nights), (), ""),
            Run(0 if second.record else 1, second.record.status if second.record else "failed",
                second.seconds, second.changed, ""),
        )  # fmt: skip


def days_of(source: Path) -> list[list[Path]]:
    """The daily notes grouped by day, oldest first."""
    days: dict[str, list[Path]] = {}
    for note in sorted((source / "memory").glob("????-??-??*.md")):
        days.setdefault(note.name[:10], []).append(note)
    return [days[day] for day in sorted(days)]


def morning_after(notes: list[Path]) -> date:
    return date.fromisoformat(max(note.name[:10] for note in notes)) + timedelta(days=1)


def run_window(
    name: str,
    source: Path,
    nights: int,
    engine_for: EngineFor,
    config: Config,
    folder: Path,
    say: Callable[[str], None],
    after_night: Callable[[Night], None] = lambda _: None,
) -> WorkspaceRun:
    """The workspace's last `nights` days of notes, one run each, after an offline catch-up."""
    days = days_of(source)
    earlier, window = days[:-nights], days[-nights:]
    shutil.copytree(
        source, folder, ignore=lambda _, names: [n for n in names if _later(n, window) or n in LEFT_OUT]
    )
    if earlier:
        started = time.perf_counter()
        run_cycle(
            Workspace.open(folder), config, offline_engine(), RunOptions(today=morning_after(earlier[-1]))
        )
        say(
            f"  {name}: {sum(map(len, earlier))} earlier notes consolidated offline in {time.perf_counter() - started:.0f} s"
        )
    start = folder.with_name(folder.name + "-start")
    start.mkdir()
    if (folder / "MEMORY.md").exists():
        shutil.copy2(folder / "MEMORY.md", start / "MEMORY.md")
    result = WorkspaceRun(name, folder, start, morning_after(window[-1]))
    for number, notes in enumerate(window, 1):
        for note in notes:
            shutil.copy2(note, folder / "memory" / note.name)
        result.window += [f"memory/{note.name}" for note in notes]
        result.nights.append(_night(name, f"night {number}", notes, source, folder, engine_for, config, say))
        after_night(result.nights[-1])
    result.nights.append(_night(name, "second run", window[-1], source, folder, engine_for, config, say))
    after_night(result.nights[-1])
    return result


def _later(name: str, window: list[list[Path]]) -> bool:
    return any(name == note.name for notes in window for note in notes)


def _night(
    workspace: str,
    name: str,
    notes: list[Path],
    source: Path,
    folder: Path,
    engine_for: EngineFor,
    config: Config,
    say: Callable[[str], None],
) -> Night:
    say(f"  {workspace}: {name}, {len(notes)} note(s), {sum(n.stat().st_size for n in notes):,} bytes")
    before, prints = entry_texts(folder), fingerprint(folder)
    started = time.perf_counter()
    try:
        record = run_cycle(
            Workspace.open(folder), config, engine_for(folder), RunOptions(today=morning_after(notes))
        ).record
        crash = None
    except Exception as error:  # a benchmark reports a crash as a finding, then checks what is left
        record, crash = None, f"{type(error).__name__}: {error}"[:160]
    seconds = time.perf_counter() - started
    after = fingerprint(folder)
    return Night(
        workspace, name, [note.name for note in notes], seconds, record, crash,
        lost=lost_entries(before, folder),
        notes_changed=[n.name for n in (source / "memory").glob("*.md")
                       if (folder / "memory" / n.name).exists()
                       and (folder / "memory" / n.name).read_bytes() != n.read_bytes()],
        changed=tuple(sorted(p for p in prints.keys() | after.keys() if prints.get(p) != after.get(p))),
    )  # fmt: skip


def entry_texts(folder: Path) -> list[str]:
    return [entry.text for _, entry in read_doc(folder / "MEMORY.md").entries()]


def lost_entries(before: list[str], folder: Path) -> list[str]:
    """Entries MEMORY.md held that are neither in it now (as themselves or as a "previously") nor archived."""
    archive = folder / "memory" / "archive.md"
    kept = _flat(
        (folder / "MEMORY.md").read_text(encoding="utf-8") if (folder / "MEMORY.md").exists() else ""
    )
    kept += _flat(archive.read_text(encoding="utf-8") if archive.exists() else "")
    return [text for text in before if _flat(text) not in kept]


def _flat(text: str) -> str:
    return " ".join(text.split())
