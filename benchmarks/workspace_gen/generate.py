"""generate_workspace: write a synthetic memory-sleep workspace and its ground truth."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

from .compose import DayComposer
from .filler import Filler
from .halves import Half
from .pools import POOLS
from .storyline import Storyline
from .truth import GroundTruth, assemble
from .world import World, build_world

DEFAULT_END = date(2026, 11, 28)
SKIP_CHANCE = 0.03


def handwritten_memory(rng: random.Random, world: World) -> str:
    """A section a person wrote by hand in MEMORY.md; the tool must keep it byte for byte."""
    owner = world.people[0]
    project = world.projects[0].name
    return (
        "\n## About this workspace\n\n"
        f"Written by hand — {owner.name} ({owner.role}) looks after this agent.\n"
        f"Main project is {project}; ask {owner.name} before anything touches prod.\n\n"
        "| machine | purpose |\n"
        "|---|---|\n"
        f"| nas-{rng.randint(1, 9)} | backups, media |\n"
        f"| build-box | CI runners for {project} |\n"
    )


def generate_workspace(
    out_dir: Path,
    days: int,
    seed: int = 0,
    end: date = DEFAULT_END,
    note_kb: float = 3.0,
    projects: int = 3,
    half: Half = "all",
) -> GroundTruth:
    """Write MEMORY.md, memory/*.md and ground-truth.json under `out_dir`; return the truth.

    `half` picks the template families and templates written (see halves.py): "all", "tune" or "test".
    """
    if days < 1:
        raise ValueError("days must be at least 1")
    if note_kb <= 0:
        raise ValueError("note_kb must be positive")
    note_kb = float(note_kb)  # so 8 and 8.0 write the same ground-truth.json
    rng = random.Random(seed)
    world = build_world(rng, projects)
    all_days = [end - timedelta(days=days - 1 - offset) for offset in range(days)]
    skipped = [day for day in all_days[1:-1] if rng.random() < SKIP_CHANCE]
    note_days = [day for day in all_days if day not in skipped]
    filler = Filler(rng, world, POOLS, half)
    storyline = Storyline(rng, world, filler, note_days)
    composer = DayComposer(rng, filler, storyline, note_kb)
    docs = []
    for pos, day in enumerate(note_days):
        filler.today = day
        filler.day_index = (day - all_days[0]).days
        filler.active = [project.name for project in world.active_projects(day)]
        docs.extend(composer.compose(pos))
    handwritten = rng.random() < 0.4
    memory_md = "# MEMORY.md\n" + (handwritten_memory(rng, world) if handwritten else "")

    out_dir = Path(out_dir)
    (out_dir / "memory").mkdir(parents=True, exist_ok=True)
    (out_dir / "MEMORY.md").write_text(memory_md, encoding="utf-8")
    for doc in docs:
        (out_dir / doc.path).write_text(doc.text(), encoding="utf-8")
    truth = assemble(
        seed=seed,
        all_days=all_days,
        skipped=skipped,
        note_kb=note_kb,
        handwritten=handwritten,
        world=world,
        storyline=storyline,
        docs=docs,
        briefing=composer.briefing,
    )
    (out_dir / "ground-truth.json").write_text(truth_json(truth), encoding="utf-8")
    return truth


def truth_json(truth: GroundTruth) -> str:
    """JSON with one top-level key per line and one list element per line: diffable, fast."""
    parts = []
    for key, value in truth.items():
        if isinstance(value, list) and value:
            elements = ",\n  ".join(json.dumps(element, ensure_ascii=False) for element in value)
            parts.append(f" {json.dumps(key)}: [\n  {elements}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
