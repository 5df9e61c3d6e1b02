"""What a run is asked to do (`RunOptions`) and what it did or would do (`RunReport`: the plan, the
record, the file changes and their diff)."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from memory_sleep.cycle import PHASES
from memory_sleep.cycle.plan import Edit
from memory_sleep.models import Classification, KeptItem, NoteItem
from memory_sleep.text import shorten
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.writer import FileChange

if TYPE_CHECKING:
    from memory_sleep.gc.apply import GcPlan


@dataclass(frozen=True)
class RunOptions:
    today: date
    phases: tuple[str, ...] = PHASES
    dry_run: bool = False
    accept_memory_reset: bool = False
    accept_mass_change: bool = False
    gc: tuple[str, ...] | None = (
        None  # GC strategies to run now (`memory-sleep gc`); None: the scheduled ones
    )
    forget: bool = True  # run a due SleepGate pass first


@dataclass
class RunReport:
    """What a run did or, with --dry-run, would do."""

    run_id: str
    record: sleep_log.RunRecord
    changes: list[FileChange] = field(default_factory=list)
    before: dict[str, bytes | None] = field(default_factory=dict)
    kept: list[KeptItem] = field(default_factory=list)
    verdicts: list[tuple[NoteItem, Classification]] = field(default_factory=list)  # all but noise
    noise: Counter[str] = field(default_factory=Counter)  # noise discarded, only counted: by reason
    left: list[KeptItem] = field(default_factory=list)  # kept items REM left in the notes (not promoted)
    strays: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    plan: list[Edit] = field(default_factory=list)
    waiting: list[str] = field(
        default_factory=list,
        metadata={"doc": "requests the host agent has yet to answer: nothing was written"},
    )
    gc: GcPlan | None = None  # the GC run's decision: its sidecar side is applied after the write

    def plan_text(self) -> str:
        """The edit plan, one line per edit, for a dry run ("" when it has none)."""
        if not self.plan:
            return ""
        lines = [f"Plan: {len(self.plan)} edit{'s' if len(self.plan) != 1 else ''}"]
        lines.extend(f"  {edit.describe()}" for edit in self.plan)
        return "\n".join(lines) + "\n\n"

    def verdicts_text(self) -> str:
        """NREM's verdicts a person may want to check (`run -v`): each item discarded, with the engine's
        reason (and the action it closed, for a line reporting a task done); routine noise (heartbeats,
        readings, debug output), which a note may hold by the thousand, by reason and count; and each
        item REM left in the notes (the REM line's "kept in the notes only"), with NREM's reason, or
        "kept by an earlier run" for an item waiting since."""
        discarded = [(item, verdict) for item, verdict in self.verdicts if verdict.verdict == "DISCARD"]
        reasons = {item.id: verdict.reason for item, verdict in self.verdicts}
        closed = {edit.item: edit.text or "" for edit in self.plan if edit.ends == "done" and edit.item}
        lines = []
        if discarded or self.noise:
            lines.append(f"Discarded ({len(discarded) + self.noise.total():,}):")
            for item, verdict in discarded:
                lines.append(_verdict_line(item, verdict.discard_reason or "", verdict.reason))
                if item.id in closed:
                    lines.append(f"    closed the action: {shorten(closed[item.id], 90)}")
            lines.extend(
                f"  {count:,} {reason} line{'s' if count != 1 else ''} (noise: counted, not listed)"
                for reason, count in sorted(self.noise.items())
            )
        if self.left:
            lines.append(f"Kept in the notes only, not promoted to MEMORY.md ({len(self.left):,}):")
            lines.extend(
                _verdict_line(kept.item, kept.category, reasons.get(kept.item.id, "kept by an earlier run"))
                for kept in self.left
            )
        return "\n".join(lines) + "\n" if lines else ""

    def diff(self) -> str:
        """Unified diff of every file the run changes (state files under .sleep/ left out)."""
        parts: list[str] = []
        for change in self.changes:
            if "/.sleep/" in change.path:
                continue
            old = (self.before.get(change.path) or b"").decode("utf-8", "replace").splitlines(keepends=True)
            new = (change.content or b"").decode("utf-8", "replace").splitlines(keepends=True)
            parts.extend(difflib.unified_diff(old, new, f"a/{change.path}", f"b/{change.path}"))
        return "".join(parts)


def _verdict_line(item: NoteItem, kind: str, why: str) -> str:
    said = shorten(item.text.split("\n", 1)[0], 70)
    return f"  {item.file}:{item.line_start}  {kind}{': ' + why if why else ''}  | {said}"
