"""The plan of one run: read the workspace once, ask NREM, REM and the cleanup for their edits,
check them with the guards and apply MEMORY.md's to the parsed document; the record of the run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from memory_sleep.config import Config
from memory_sleep.cycle import (
    briefing,
    close_actions,
    guards,
    memory_loss,
    nrem,
    projects,
    rem,
    series,
    stale,
    weekly,
)
from memory_sleep.cycle.candidates import Candidates
from memory_sleep.cycle.file_changes import decode_memory, file_changes, only_changed, read_bytes, read_text
from memory_sleep.cycle.plan import Applied, DocumentEditor, Edit
from memory_sleep.cycle.report import RunOptions, RunReport
from memory_sleep.engines.base import ClassifyContext, Engine
from memory_sleep.engines.recurrence import WINDOW_DAYS, Recurrence
from memory_sleep.errors import GuardError
from memory_sleep.gc import review
from memory_sleep.models import KeptItem, NoteItem
from memory_sleep.sidecar.rows import day_timestamp
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.archive import (
    ArchiveRecord,
    Ending,
    ended_statements,
    records_since,
    superseded_by_day,
)
from memory_sleep.workspace.layout import Discovery, NoteFile, Workspace, discover
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument, with_open_block_closed
from memory_sleep.workspace.state import EntryRecord, NoteState, StateStore, WorkspaceState, dump
from memory_sleep.workspace.writer import FileChange

if TYPE_CHECKING:
    from memory_sleep.gc.apply import GcPlan
    from memory_sleep.gc.hook import GcStep

Progress = Callable[[str], None]


class Planner:
    """Reads the workspace once, asks each phase for its edits, checks them and applies them."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        engine: Engine,
        options: RunOptions,
        say: Progress,
        candidate_step: Candidates,
        gc_step: GcStep | None = None,
    ) -> None:
        self.workspace, self.config, self.engine, self.options, self.say = (
            workspace,
            config,
            engine,
            options,
            say,
        )
        self.candidates = candidate_step
        self.gc_step = gc_step
        self.gc_plan: GcPlan | None = None
        self.store = StateStore(workspace.state_dir)
        self.state: WorkspaceState = self.store.load_workspace()
        self.note_states: dict[str, NoteState] = {}
        self.changed_notes: set[str] = set()
        self.warnings: list[str] = []
        self.archived: list[ArchiveRecord] = []
        self.operation_counts: dict[str, int] = {}
        self.left: list[KeptItem] = []  # kept items REM left in the notes, not promoted to MEMORY.md
        self.edits: list[Edit] = []
        self.retired: list[series.Retired] = []  # kept items NREM found readings of a series since
        self.tool_bytes_before = 0
        self.note_days: set[date] = set()  # the days the workspace has a note for, folded ones too

    def plan(self, run_id: str) -> RunReport:
        started = time.monotonic()
        today = self.options.today
        found = discover(self.workspace)
        self.warnings.extend(map(str, found.problems))
        self.note_days = {note.day for note in found.notes} | {
            date.fromisoformat(name[:10]) for name in (*self.state.seen, *self.state.folded)
        }
        memory_before = read_bytes(self.workspace.memory_md)
        memory_text, hiding = with_open_block_closed(decode_memory(self.workspace, memory_before))
        if hiding is not None:
            self.warnings.append(f"MEMORY.md: {hiding.closed()}.")
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
            KeptItem(item=i, category=c.category, topic=c.topic, deadline=c.deadline, promote=c.promote)
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
            self._rem(document, entries_before, completions, repeats, {i.id: i for i, _ in result.classified})
        if self.gc_step is not None:
            self.say("GC: garbage collection")
            self._gc(document, entries_before)
        if "cleanup" in self.options.phases:
            self.say("Cleanup: weekly summaries and briefing")
            self._cleanup(document, found, result.unread)
        memory_after = document.render().encode("utf-8")
        changes = file_changes(
            self.workspace,
            self.edits,
            memory_after,
            memory_before,
            self.archived,
            self.config.move_folded_notes,
        )
        changes = only_changed(self.workspace, [*changes, *self._state_changes()], memory_after)
        now = datetime.now(UTC)
        record = sleep_log.RunRecord(
            lastRun=now,
            runId=run_id,
            today=today.isoformat(),
            dailyFilesProcessed=len(result.files_read),
            itemsKept=len(kept),
            itemsDiscarded=len(result.classified) - len(kept) + result.noise.total(),
            memoryMdSizeBefore=len(memory_before or b""),
            memoryMdSizeAfter=len(memory_after),
            briefingGenerated="cleanup" in self.options.phases,
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
            weeklyFilesWritten=[edit.path for edit in self.edits if edit.op == "fold" and edit.path],
            filesChanged=[c.path for c in changes if "/.sleep/" not in c.path],
            garbageCollection=self.gc_plan.decision.counts() if self.gc_plan else {},
            warnings=[
                *self.warnings,
                *result.warnings,
                *self.engine.usage.warnings,
                *self.candidates.warnings,
                *(self.gc_step.warnings if self.gc_step else ()),
            ],
        )
        report = RunReport(
            run_id=run_id,
            record=record,
            changes=changes,
            kept=kept,
            verdicts=result.classified,
            noise=result.noise,
            left=self.left,
            strays=found.strays,
            plan=self.edits,
            gc=self.gc_plan,
        )
        report.before = {c.path: read_bytes(self.workspace.root / c.path) for c in changes}
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
        reading = {note.name for note, _ in to_read}
        earliest = min((note.day for note, _ in to_read), default=today) - timedelta(days=WINDOW_DAYS)
        earlier = [
            (note.day, state.shapes)
            for note in found.notes
            if note.name not in reading and note.day >= earliest
            for state in [self._note_state(note.name)]
            if state is not None
        ]
        context = ClassifyContext(
            projects=sorted(document.projects()), memory=views, recurrence=Recurrence().with_notes(earlier)
        )
        result = nrem.run_nrem(
            to_read,
            self.engine.classifier,
            context,
            self.config.max_note_bytes,
            self.config.engine.batch_size,
            self.candidates,
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
        self.warnings.extend(nrem.dated_ahead(to_read, result.classified, today))
        window = {
            name: state
            for name, state in self.note_states.items()
            if date.fromisoformat(name[:10]) >= earliest
        }
        self.retired = series.rejudge(self.engine.curator, result.recurrence, window)
        again = {reading.item_id: reading.verdict for reading in self.retired}
        result.classified = [(item, again.get(item.id, verdict)) for item, verdict in result.classified]
        for retired in self.retired:
            self.note_states[retired.note].items[retired.item_id] = retired.record
            self.changed_notes.add(retired.note)
        self.state.pending = series.still_pending(self.state.pending, self.retired)
        return result

    def _rem(
        self,
        document: MemoryDocument,
        entries_before: list[Entry],
        completions: list[KeptItem],
        repeats: list[NoteItem],
        read: dict[str, NoteItem],
    ) -> None:
        """`read`: the items this run read, by id, with their headings (the state keeps no headings)."""
        today = self.options.today
        waiting = self._pending_items()
        batch_size = self.engine.integrate_batch_size or self.config.engine.batch_size
        archived = self._recently_archived(today - timedelta(days=self.config.stale_after_days))
        readings = DocumentEditor(document, today)
        self._apply(readings, series.archive_edits(readings, self.retired))
        rewrites = guards.RewriteCount(len(entries_before), self.config.max_rewrite_share)
        rewrites.add(self.edits)
        outcome = rem.integrate(
            waiting,
            document,
            self.engine.integrator,
            today,
            batch_size,
            archived,
            candidates=self.candidates,
            recent=self._recent_kept(today - timedelta(days=WINDOW_DAYS), {k.item.id for k in waiting}),
            watch=None if self.options.accept_mass_change else rewrites.watch,
            replaced=superseded_by_day(self._ended()),
        )
        editor = DocumentEditor(document, today)
        applied = self._apply(editor, outcome.edits)
        self.operation_counts = outcome.counts()
        self.left = outcome.left
        self.warnings.extend(outcome.rejected)
        for kept, operation in outcome.applied:
            name = kept.item.file.removeprefix("memory/")
            self.note_states[name].items[kept.item.id].operation = operation.op
            self.changed_notes.add(name)
        for kept, before, text in [(kept, "", text) for kept, text in outcome.added] + outcome.changed:
            its = self.note_states[kept.item.file.removeprefix("memory/")].items[kept.item.id]
            its.wrote, its.replaced = text, before
        placed = outcome.settled_ids()
        self.state.pending = {
            name: left
            for name, ids in self.state.pending.items()
            if (left := [i for i in ids if i not in placed])
        }
        self._referenced(applied.touched)
        shown = editor.views()
        plan_ref = {view.ref: ref for ref, view in shown}
        used = self.engine.curator.referenced(
            [view for _, view in shown], repeats, [k.item for k in waiting], list(document.projects())
        )
        self._referenced((editor.resolve(plan_ref[ref])[1], day) for ref, day in used if ref in plan_ref)
        closing, refused = close_actions.close_done_actions(
            editor, completions, self.engine.closer, {k.item.id: read.get(k.item.id, k.item) for k in waiting}
        )
        self._apply(editor, closing)
        self.warnings.extend(refused)
        summaries = projects.summarize_projects(document, waiting, self.engine.summarizer, today)
        self._apply(editor, summaries.edits)
        self.warnings.extend(summaries.rejected)
        finished = set(self.engine.curator.finished(projects.current_fields(document)))
        horizon = stale.stale_horizon(self.note_days, today, self.config.stale_after_days)
        self._apply(
            editor,
            projects.finished_projects(document, finished, {k.topic for k in waiting if k.topic}, horizon),
        )
        entries_now = sum(1 for _ in document.entries())
        allowance = guards.removal_allowance(len(entries_before), self.config.max_removal_share)
        budget = entries_now - len(entries_before) + allowance
        judgements = guards.judged(editor, self.engine.curator, today)
        swept = stale.remove_stale(
            editor,
            self.state.entries,
            finished,
            judgements,
            today,
            horizon,
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
            frozenset(finished),
        )
        self._apply(editor, trimmed)
        guards.check_removals(entries_before, document, self.config.max_removal_share)
        if not self.options.accept_mass_change:
            guards.check_rewrites(self.edits, len(entries_before), self.config.max_rewrite_share)
        present = {}
        for _, entry in document.entries():
            record = self.state.entries.get(entry.key)
            present[entry.key] = record or EntryRecord(
                first_seen=entry.day or today, last_referenced=entry.day or today
            )
        self.state.entries = present

    def _gc(self, document: MemoryDocument, entries_before: list[Entry]) -> None:
        """The GC run's edits of MEMORY.md, within what the loss guard still allows this run."""
        assert self.gc_step is not None
        editor = DocumentEditor(document, self.options.today)
        removed = len(entries_before) - sum(1 for _ in document.entries())
        budget = guards.removal_allowance(len(entries_before), self.config.max_removal_share) - removed
        uses: dict[tuple[str | None, str], float] = {
            (section, entry.text): day_timestamp(self._last_used(entry))
            for _, section, entry in editor.entries()
        }
        self.gc_plan = self.gc_step.plan(editor, max(0, budget), uses)
        if self.gc_plan is not None:
            self.edits.extend(self.gc_plan.edits)
            self.archived.extend(self.gc_plan.archived)
        guards.check_removals(entries_before, document, self.config.max_removal_share)

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

    def _ended(self) -> list[tuple[Entry, Ending]]:
        """Every statement archive.md and this run's archiving so far record as stopped being true."""
        return ended_statements(read_text(self.workspace.archive, "memory/archive.md") or "", self.archived)

    def _recently_archived(self, since: date) -> list[ArchiveRecord]:
        """archive.md's records from `since` on: REM may still supersede an entry trimmed for room."""
        current = read_text(self.workspace.archive, "memory/archive.md")
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

    def _recent_kept(self, since: date, waiting: set[str]) -> list[KeptItem]:
        """The items kept in the notes since `since` that REM placed or left in the notes before."""
        recent: list[KeptItem] = []
        for name in sorted(self.state.seen):
            day = date.fromisoformat(name[:10])
            state = self._note_state(name) if day >= since else None
            if state is not None:
                items, _, _ = weekly.kept_items(name, day, state)
                recent.extend(kept for kept in items if kept.item.id not in waiting)
        return recent

    def _cleanup(self, document: MemoryDocument, found: Discovery, unread: list[str]) -> None:
        """Fold the notes due into weekly summaries and write the briefing, as edits of the plan; the
        briefing warns of the daily notes not read (`found`'s, and `unread`, those NREM could not read)."""
        today = self.options.today
        folds = weekly.fold_edits(
            found.notes,
            self.state.folded,
            self._note_state,
            self.engine.summarizer,
            today,
            self.config.archive_after_days,
            self._ended(),
        )
        folding = {source for edit in folds for source in edit.sources or ()}
        recent: list[KeptItem] = []
        wrote: dict[str, str] = {}  # by recent item: the text REM gave the entry it added or changed
        pending: dict[str, list[str]] = {}  # what each note folded now holds that MEMORY.md does not
        for note in found.notes:
            is_recent = note.day >= today - timedelta(days=self.config.lookback_days)
            if not (is_recent or note.relative in folding) or (state := self._note_state(note.name)) is None:
                continue
            kept, waiting, _ = weekly.kept_items(note.name, note.day, state)
            if note.relative in folding:
                self.state.folded[note.name] = weekly.iso_week(note.day)
                pending[note.relative] = [k.item.source for k in waiting]
            if is_recent:
                recent.extend(kept)
                wrote.update((k.item.id, state.items[k.item.id].wrote) for k in kept)
        context = briefing.briefing_context(document, projects.current_fields(document), recent, today, wrote)
        reviews = review.read_reviews(self.workspace)
        if self.gc_plan is not None:
            reviews = review.with_reviews(reviews, self.gc_plan.reviews, self.gc_plan.decision.rows, today)
        brief = briefing.brief_edit(
            self.engine.briefer,
            context,
            self.config.briefing_max_bytes,
            len(review.open_reviews(reviews)),
            [*map(str, found.problems), *unread],
        )
        guards.check_files([*folds, brief], pending, self.config.briefing_max_bytes)
        self.edits.extend(folds)
        if read_bytes(self.workspace.briefing) != (brief.text or "").encode("utf-8"):
            self.edits.append(brief)  # the plan lists what changes: the same briefing again is no edit

    def _state_changes(self) -> Iterable[FileChange]:
        base = self.workspace.relative(self.workspace.state_dir)
        for name in sorted(self.changed_notes):
            yield FileChange(f"{base}/notes/{name}.json", dump(self.note_states[name]))
        yield FileChange(f"{base}/state.json", dump(self.state))
        if self.gc_plan is not None and self.gc_plan.reviews:
            known = review.read_reviews(self.workspace)
            listed = review.with_reviews(
                known, self.gc_plan.reviews, self.gc_plan.decision.rows, self.options.today
            )
            yield FileChange(f"{base}/{review.REVIEW_FILE}", review.render(listed))

    def _note_state(self, name: str) -> NoteState | None:
        if name not in self.note_states:
            state = self.store.load_note(name)
            if state is None:
                return None
            self.note_states[name] = state
        return self.note_states[name]
