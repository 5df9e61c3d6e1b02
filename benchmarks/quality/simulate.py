"""Cron, simulated: each day's notes arrive, then the cycle runs in-process with --today the next morning."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.base import Engine
from memory_sleep.text import normalize
from memory_sleep.workspace.layout import Workspace

from .outputs import MemoryEntry, parse_memory

ENGINES = ("offline", "simulated")


def make_engine(name: str) -> Engine:
    """A fresh engine per night, so that its usage counts are that night's."""
    if name == "offline":
        from memory_sleep.engines.offline import offline_engine

        return offline_engine()
    if name == "simulated":
        from memory_sleep.config import EngineConfig
        from memory_sleep.engines.llm import llm_engine
        from memory_sleep.engines.testing import FunctionModel
        from memory_sleep.engines.value_answers import values_answer

        return llm_engine(FunctionModel(values_answer, model="simulated"), EngineConfig())
    raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")


@dataclass(frozen=True)
class Night:
    """One run of the cycle: when, how long, what it changed, and what it cost."""

    today: date
    seconds: float
    files_changed: int
    memory_bytes: int
    briefing_bytes: int
    llm_calls: int
    tokens: int
    kept: int
    discarded: int
    archived: int


@dataclass
class SeenEntry:
    entry: MemoryEntry
    first_night: date
    last_night: date


@dataclass
class History:
    """Every distinct MEMORY.md entry seen after any night, keyed by section and normalised text."""

    entries: dict[tuple[str, str], SeenEntry] = field(default_factory=dict)

    def observe(self, memory_text: str, night: date) -> None:
        found, _ = parse_memory(memory_text)
        for entry in found:
            key = (entry.section, normalize(entry.text))
            seen = self.entries.get(key)
            if seen is None:
                self.entries[key] = SeenEntry(entry, night, night)
            else:
                seen.last_night = night

    def all_entries(self) -> list[SeenEntry]:
        return list(self.entries.values())


def notes_of_day(notes_dir: Path, day: date) -> list[Path]:
    """memory/DAY.md and memory/DAY-<topic>.md."""
    stem = day.isoformat()
    return sorted(
        path for path in notes_dir.glob(f"{stem}*.md") if path.name == f"{stem}.md" or path.name[10] == "-"
    )


def simulate(
    source: Path,
    run_dir: Path,
    start: date,
    end: date,
    engine_name: str = "offline",
    nights_every: int = 1,
    config: Config | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Night], History]:
    """Replay `source`'s notes day by day into `run_dir` (emptied first), running the cycle as cron would."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    (run_dir / "memory").mkdir(parents=True)
    if (source / "MEMORY.md").exists():
        shutil.copy2(source / "MEMORY.md", run_dir / "MEMORY.md")
    config = config or Config()
    workspace = Workspace.open(run_dir)
    nights: list[Night] = []
    history = History()
    total_days = (end - start).days + 1
    for index in range(total_days):
        day = start + timedelta(days=index)
        for note in notes_of_day(source / "memory", day):
            shutil.copy2(note, run_dir / "memory" / note.name)
        if (index + 1) % nights_every and day != end:
            continue
        today = day + timedelta(days=1)
        started = time.perf_counter()
        report = run_cycle(workspace, config, make_engine(engine_name), RunOptions(today=today))
        seconds = time.perf_counter() - started
        record = report.record
        memory_text = workspace.memory_md.read_text(encoding="utf-8")
        history.observe(memory_text, today)
        nights.append(
            Night(
                today=today,
                seconds=seconds,
                files_changed=len(record.filesChanged),
                memory_bytes=len(memory_text.encode("utf-8")),
                briefing_bytes=workspace.briefing.stat().st_size if workspace.briefing.exists() else 0,
                llm_calls=record.llmCalls,
                tokens=record.inputTokens + record.outputTokens,
                kept=record.itemsKept,
                discarded=record.itemsDiscarded,
                archived=record.entriesArchived,
            )
        )
        if progress and len(nights) % 10 == 0:
            progress(f"night {len(nights)} ({today.isoformat()}): {seconds:.2f}s")
    return nights, history
