"""One sleep cycle: plan every file change from the three phases, check the guards, write safely."""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.cycle import (
    briefing,
    close_actions,
    guards,
    memory_loss,
    nrem,
    projects,
    references,
    rem,
    stale,
    weekly,
)
from memory_sleep.cycle.plan import Applied, DocumentEditor, Edit
from memory_sleep.engines.base import ClassifyContext, Engine
from memory_sleep.errors import GuardError, WorkspaceError
from memory_sleep.models import KeptItem, NoteItem
from memory_sleep.sidecar.hook import index_after_run
from memory_sleep.sleepgate.hook import forget_when_due
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.archive import ArchiveRecord, append_records, records_since
from memory_sleep.workspace.layout import Discovery, NoteFile, Workspace, discover
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.memory_doc import HEADER, Entry, MemoryDocument
from memory_sleep.workspace.state import EntryRecord, NoteState, StateStore, WorkspaceState, dump
from memory_sleep.workspace.writer import FileChange, SafeWriter, new_run_id

PHASES = ("nrem", "rem", "cleanup")
Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    today: date
    phases: tuple[str, ...] = PHASES
    dry_run: bool = False
    accept_memory_reset: bool = False


@dataclass
class RunReport:
    """What a run did or, with --dry-run, would do."""

    run_id: str
    record: sleep_log.RunRecord
    changes: list[FileChange] = field(default_factory=list)
    before: dict[str, bytes | None] = field(default_factory=dict)
    kept: list[KeptItem] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    plan: list[Edit] = field(default_factory=list)

    def plan_text(self) -> str:
        """The edit plan, one line per edit, for a dry run ("" when it has none)."""
        if not self.plan:
            return ""
        lines = [f"Plan: {len(self.plan)} edit{'s' if len(self.plan) != 1 else ''} of MEMORY.md"]
        lines.extend(f"  {edit.describe()}" for edit in self.plan)
        return "\n".join(lines) + "\n\n"

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


def run_cycle(
    workspace: Workspace,
    config: Config,
    engine: Engine,
    options: RunOptions,
    progress: Progress | None = None,
) -> RunReport:
    """Run the phases in `options`; with dry_run nothing is written (and no lock is taken)."""
    say = progress or (lambda _: None)
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    if options.dry_run:
        return _logged(_Planner(workspace, config, engine, options, say).plan(), workspace, config)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs):
        rolled_back = writer.recover()
        report = _Planner(workspace, config, engine, options, say).plan()
        report.rolled_back = rolled_back
        if config.sidecar.enabled:
            # before the write, so that the run writes sleep-log.json once, with the pass's counts in it
            report.record.forgetting, forgetting_warning = forget_when_due(workspace, config)
            if forgetting_warning:
                report.record.warnings.append(forgetting_warning)
        _logged(report, workspace, config)
        if report.changes:
            say("writing")
            writer.apply(report.run_id, report.changes)
        if config.sidecar.enabled:
            say("indexing the vector sidecar")
            sidecar_warning = index_after_run(workspace, config)
            if sidecar_warning:
                report.record.warnings.append(sidecar_warning)
    return report


def _logged(report: RunReport, workspace: Workspace, config: Config) -> RunReport:
    """Add the run's record to sleep-log.json's change, when the run changes anything."""
    if report.changes:
        path = workspace.relative(workspace.sleep_log)
        report.before[path] = _read_bytes(workspace.sleep_log)
        log = sleep_log.with_run(
            sleep_log.read_sleep_log(report.before[path]), report.record, config.history_runs
        )
        report.changes.append(FileChange(path, sleep_log.render(log)))
    return report


class _Planner:
    """Reads the workspace once and turns the phases' results into file changes."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        engine: Engine,
        options: RunOptions,
        say: Progress,
    ) -> None:
        self.workspace, self.config, self.engine, self.options, self.say = (
            workspace,
            config,
            engine,
            options,
            say,
        )
        self.store = StateStore(workspace.state_dir)
        self.state: WorkspaceState = self.store.load_workspace()
        self.note_states: dict[str, NoteState] = {}
        self.changed_notes: set[str] = set()
        self.warnings: list[str] = []
        self.archived: list[ArchiveRecord] = []
        self.operation_counts: dict[str, int] = {}
        self.edits: list[Edit] = []
        self.tool_bytes_before = 0

    def plan(self) -> RunReport:
        started = time.monotonic()
        today = self.options.today
        found = discover(self.workspace)
        self.warnings.extend(found.problems)
        memory_before = _read_bytes(self.workspace.memory_md)
        memory_text = _decode_memory(memory_before)
        loss = memory_loss.find_loss(self.workspace, memory_text)
        if loss and not self.options.accept_memory_reset:
            raise GuardError(loss.refusal())
        document = MemoryDocument.parse(memory_text)
        self.tool_bytes_before = guards.tool_bytes(document)
        entries_before = [entry for _, entry in document.entries()]
        result = nrem.NremResult()
        if "nrem" in self.options.phases:
            self.say("NREM: classifying new note items")
            result = self._nrem(found, document)
        kept = [
            KeptItem(item=i, category=c.category, topic=c.topic, deadline=c.deadline)
            for i, c in result.classified
            if c.verdict == "KEEP" and c.category
        ]
        completions = [
            KeptItem(item=i, category=c.category or "status", topic=c.topic)
            for i, c in result.classified
            if c.closes_action
        ]
        for item in kept:
            self.state.pending.setdefault(item.item.file.removeprefix("memory/"), []).append(item.item.id)
        repeats = [
            i for i, c in result.classified if c.verdict == "DISCARD" and c.discard_reason == "duplicate"
        ]
        if "rem" in self.options.phases:
            self.say("REM: integrating into MEMORY.md")
            self._rem(document, entries_before, completions, repeats)
        changes: list[FileChange] = []
        weekly_written: list[str] = []
        briefing_written = False
        if "cleanup" in self.options.phases:
            self.say("Cleanup: weekly summaries and briefing")
            weekly_written = self._fold(found, changes)
            changes.append(self._briefing(document, found))
            briefing_written = True
        memory_after = document.render().encode("utf-8")
        if memory_after != (memory_before or b""):
            changes.append(FileChange("MEMORY.md", memory_after))
        if self.archived:
            current = _read_text(self.workspace.archive, "memory/archive.md")
            changes.append(FileChange("memory/archive.md", append_records(current, self.archived).encode()))
        changes.extend(self._state_changes())
        changes = [c for c in changes if _read_bytes(self.workspace.root / c.path) != c.content]
        copy = FileChange(
            self.workspace.relative(self.workspace.state_dir / memory_loss.LAST_RUN_COPY), memory_after
        )
        if changes and _read_bytes(self.workspace.root / copy.path) != copy.content:
            changes.append(copy)  # what the next run compares MEMORY.md with, and restores it from
        now = datetime.now(UTC)
        record = sleep_log.RunRecord(
            lastRun=now,
            today=today.isoformat(),
            dailyFilesProcessed=len(result.files_read),
            itemsKept=len(kept),
            itemsDiscarded=len(result.classified) - len(kept) + result.noise_discarded,
            memoryMdSizeBefore=len(memory_before or b""),
            memoryMdSizeAfter=len(memory_after),
            briefingGenerated=briefing_written,
            engine=self.engine.name,
            model=self.engine.model,
            llmCalls=self.engine.usage.calls,
            inputTokens=self.engine.usage.input_tokens,
            outputTokens=self.engine.usage.output_tokens,
            estimatedCostUsd=self.engine.usage.estimated_cost_usd,
            llmUsage=sleep_log.phase_records(self.engine.usage.phases),
            promptVersions=dict(self.engine.usage.prompt_versions),
            durationSeconds=round(time.monotonic() - started, 3),
            operations=self.operation_counts,
            entriesArchived=len(self.archived),
            weeklyFilesWritten=weekly_written,
            filesChanged=[c.path for c in changes if "/.sleep/" not in c.path],
            warnings=[*self.warnings, *result.warnings, *self.engine.usage.warnings],
        )
        report = RunReport(
            run_id=new_run_id(now),
            record=record,
            changes=changes,
            kept=kept,
            strays=found.strays,
            plan=self.edits,
        )
        report.before = {c.path: _read_bytes(self.workspace.root / c.path) for c in changes}
        return report

    def _nrem(self, found: Discovery, document: MemoryDocument) -> nrem.NremResult:
        today, lookback = self.options.today, self.config.lookback_days
        to_read: list[tuple[NoteFile, NoteState | None]] = []
        for note in found.notes:
            seen = self.state.seen.get(note.name)
            if seen is not None and note.day < today - timedelta(days=lookback):
                stat = note.path.stat()
                if (stat.st_size, stat.st_mtime_ns) == tuple(seen):
                    continue
            to_read.append((note, self._note_state(note.name)))
        views = [view for _, view in DocumentEditor(document, today).views()]
        context = ClassifyContext(projects=sorted(document.projects()), memory=views)
        result = nrem.run_nrem(
            to_read,
            self.engine.classifier,
            context,
            self.config.max_note_bytes,
            self.config.engine.batch_size,
        )
        for name, state in result.note_states.items():
            previous = self.note_states.get(name)
            self.note_states[name] = state
            if previous is None or previous != state:
                self.changed_notes.add(name)
            self.state.seen[name] = (state.size, state.mtime_ns)
        for item, verdict in result.classified:
            name = item.file.removeprefix("memory/")
            self.note_states[name].items[item.id] = nrem.record(item, verdict)
            self.changed_notes.add(name)
        return result

    def _rem(
        self,
        document: MemoryDocument,
        entries_before: list[Entry],
        completions: list[KeptItem],
        repeats: list[NoteItem],
    ) -> None:
        today = self.options.today
        waiting = self._pending_items()
        batch_size = self.engine.integrate_batch_size or self.config.engine.batch_size
        archived = self._recently_archived(today - timedelta(days=self.config.stale_after_days))
        outcome = rem.integrate(waiting, document, self.engine.integrator, today, batch_size, archived)
        editor = DocumentEditor(document, today)
        applied = self._apply(editor, outcome.edits)
        self.operation_counts = outcome.counts()
        self.warnings.extend(outcome.rejected)
        for kept, operation in outcome.applied:
            name = kept.item.file.removeprefix("memory/")
            self.note_states[name].items[kept.item.id].operation = operation.op
            self.changed_notes.add(name)
        placed = outcome.integrated_ids()
        self.state.pending = {
            name: left
            for name, ids in self.state.pending.items()
            if (left := [i for i in ids if i not in placed])
        }
        self._referenced(applied.touched)
        self._referenced(references.restated_entries(document, repeats))
        self._referenced(references.people_named(document, (k.item for k in waiting), document.projects()))
        closing, refused = close_actions.close_done_actions(editor, completions, self.engine.closer)
        self._apply(editor, closing)
        self.warnings.extend(refused)
        summaries = projects.update_projects(
            document, waiting, self.engine.summarizer, today, self.config.stale_after_days
        )
        self.warnings.extend(summaries.rejected)
        self.archived.extend(summaries.archived)
        entries_now = sum(1 for _ in document.entries())
        allowance = guards.removal_allowance(len(entries_before), self.config.max_removal_share)
        budget = entries_now - len(entries_before) + allowance
        judgements = guards.judged(editor, self.engine.curator, today)
        swept = stale.remove_stale(
            editor,
            self.state.entries,
            summaries.finished,
            judgements,
            today,
            self.config.stale_after_days,
            budget,
        )
        self._apply(editor, swept.edits)
        if swept.deferred:
            self.warnings.append(
                f"{swept.deferred} stale entries left for a later run (max_removal_share {self.config.max_removal_share:.0%})."
            )
        limit = max(self.config.memory_max_bytes, self.tool_bytes_before)
        trimmed = guards.trim_to_size(
            editor,
            limit,
            budget - len(swept.edits),
            today,
            self._last_used,
            judgements,
            frozenset(summaries.finished),
        )
        self._apply(editor, trimmed)
        guards.check_removals(entries_before, document, self.config.max_removal_share)
        present = {}
        for _, entry in document.entries():
            record = self.state.entries.get(entry.key)
            present[entry.key] = record or EntryRecord(
                first_seen=entry.day or today, last_referenced=entry.day or today
            )
        self.state.entries = present

    def _apply(self, editor: DocumentEditor, edits: list[Edit]) -> Applied:
        """Apply a phase's edits to MEMORY.md and add them to the run's plan."""
        applied = editor.apply(edits)
        self.edits.extend(edits)
        self.archived.extend(applied.archived)
        return applied

    def _referenced(self, uses: Iterable[tuple[Entry, date]]) -> None:
        """Remember that a note of `date` used each entry (restated it, changed it or named its person)."""
        for entry, day in uses:
            record = self.state.entries.get(entry.key)
            first_seen = record.first_seen if record else (entry.day or day)
            last = max(day, record.last_referenced) if record else day
            self.state.entries[entry.key] = EntryRecord(first_seen=first_seen, last_referenced=last)

    def _recently_archived(self, since: date) -> list[ArchiveRecord]:
        """archive.md's records from `since` on: REM may still supersede an entry trimmed for room."""
        current = _read_text(self.workspace.archive, "memory/archive.md")
        return list(records_since(current, since)) if current else []

    def _last_used(self, entry: Entry) -> date:
        """The day an entry was last written or referenced by a note."""
        record = self.state.entries.get(entry.key)
        written = entry.day or (record.first_seen if record else self.options.today)
        return max(written, record.last_referenced) if record else written

    def _pending_items(self) -> list[KeptItem]:
        waiting: list[KeptItem] = []
        for name, ids in sorted(self.state.pending.items()):
            state = self._note_state(name)
            if state is None:
                continue
            items, _, _ = weekly.kept_items(name, date.fromisoformat(name[:10]), state)
            by_id = {k.item.id: k for k in items}
            waiting.extend(by_id[i] for i in ids if i in by_id)
        return waiting

    def _fold(self, found: Discovery, changes: list[FileChange]) -> list[str]:
        due = [
            n
            for n in weekly.due_for_folding(
                found.notes, self.state.folded, self.options.today, self.config.archive_after_days
            )
            if self._note_state(n.name)
        ]
        written = []
        for week, _ in sorted(weekly.weeks_of(due).items()):
            members = [
                n
                for n in found.notes
                if weekly.iso_week(n.day) == week and (n.name in self.state.folded or n in due)
            ]
            with_states = [(n, state) for n in members if (state := self._note_state(n.name)) is not None]
            path = f"memory/weekly/{week}.md"
            changes.append(
                FileChange(
                    path,
                    weekly.render_week(week, with_states, self.engine.summarizer).encode("utf-8"),
                )
            )
            written.append(path)
        for note in due:
            self.state.folded[note.name] = weekly.iso_week(note.day)
            if self.config.move_folded_notes:
                changes.append(FileChange(f"memory/archive/daily/{note.name}", note.path.read_bytes()))
                changes.append(FileChange(note.relative, None))
        return written

    def _briefing(self, document: MemoryDocument, found: Discovery) -> FileChange:
        today = self.options.today
        recent: list[KeptItem] = []
        for note in found.notes:
            if note.day >= today - timedelta(days=self.config.lookback_days) and (
                state := self._note_state(note.name)
            ):
                recent.extend(weekly.kept_items(note.name, note.day, state)[0])
        context = briefing.briefing_context(document, projects.current_fields(document), recent, today)
        text = briefing.write_briefing(self.engine.briefer, context, self.config.briefing_max_bytes)
        return FileChange("memory/briefing.md", text.encode("utf-8"))

    def _state_changes(self) -> Iterable[FileChange]:
        base = self.workspace.relative(self.workspace.state_dir)
        for name in sorted(self.changed_notes):
            yield FileChange(f"{base}/notes/{name}.json", dump(self.note_states[name]))
        yield FileChange(f"{base}/state.json", dump(self.state))

    def _note_state(self, name: str) -> NoteState | None:
        if name not in self.note_states:
            state = self.store.load_note(name)
            if state is None:
                return None
            self.note_states[name] = state
        return self.note_states[name]


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise WorkspaceError(
            f"{path}: is a folder, where memory-sleep keeps a file of that name. Nothing was changed. "
            "Rename or move the folder, then run again."
        ) from None


def _decode_memory(raw: bytes | None) -> str:
    text = _decode(raw or b"", "MEMORY.md")
    return text if text.strip() else HEADER


def _read_text(path: Path, name: str) -> str | None:
    raw = _read_bytes(path)
    return None if raw is None else _decode(raw, name)


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorkspaceError(
            f"{name}: not valid UTF-8 (byte {error.start}). Nothing was changed; re-save it as UTF-8."
        ) from None
