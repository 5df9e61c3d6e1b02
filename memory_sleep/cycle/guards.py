"""Refuse or trim a run that would empty MEMORY.md, drop too much of it, have its notes rewrite an
implausible share of it, or grow the tool's part of it past its limit; refuse a fold that would lose a
kept line, or a briefing over its limit."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, timedelta

from memory_sleep.cycle.briefing import BRIEFING
from memory_sleep.cycle.plan import DocumentEditor, Edit, EditOp
from memory_sleep.engines.base import Curator
from memory_sleep.errors import GuardError
from memory_sleep.models import EntryJudgement
from memory_sleep.text import counted, deadline_in
from memory_sleep.workspace.archive import trimmed_reason
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument

_TRIMMED_LAST = frozenset({"Lessons"})  # after every other entry: what was learned outlives the rest
_TRIM_ORDER = {"Action items": 0, "Facts": 1, "Decisions": 2}  # on the same day, actions go first
_FINISHED_PENALTY = timedelta(days=365)
_CURRENT_BONUS = timedelta(days=14)
_HISTORY_BONUS = timedelta(days=60)
FEWEST_REWRITES = 50  # a run's notes may always change this many entries, however few MEMORY.md holds
_REWRITES: tuple[EditOp, ...] = ("update", "supersede", "archive")  # each archives an entry's text


def removal_allowance(entries_before: int, share: float) -> int:
    """How far a run may shrink MEMORY.md, in entries: `share` of them, at least one, never all of them
    (a sweep that emptied it would be refused by check_removals, and so would every later run)."""
    return max(0, min(entries_before - 1, max(1, int(entries_before * share))))


def check_removals(before: Sequence[Entry], document: MemoryDocument, share: float) -> None:
    """Raise GuardError if MEMORY.md would lose more than `share` of its entries, or all of them."""
    after = sum(1 for _ in document.entries())
    if before and not after:
        raise GuardError(
            f"Refused: this run would remove all {counted(len(before), 'entry', 'entries')} of MEMORY.md. Nothing was changed."
        )
    if len(before) - after > removal_allowance(len(before), share):
        raise GuardError(
            f"Refused: this run would shrink MEMORY.md from {len(before)} to {counted(after, 'entry', 'entries')}, over max_removal_share "
            f"({share:.0%}). Nothing was changed. Check the notes, or raise max_removal_share in memory-sleep.toml."
        )


def rewrite_allowance(entries: int, share: float) -> int:
    """How many entries a run's notes may rewrite or archive: `share` of the `entries` MEMORY.md holds
    and gains this run, at least FEWEST_REWRITES."""
    return max(FEWEST_REWRITES, int(entries * share))


def check_rewrites(plan: Sequence[Edit], entries_before: int, share: float) -> None:
    """Raise GuardError if one note's items would update, supersede or archive entries more often than
    `rewrite_allowance` of MEMORY.md's entries before the run and those the run adds. A note of many
    similar lines (a log, a value pasted line by line) reads as one fact changing again and again: one
    1.9 MB note made 34,960 supersedes in one run, each archived. A night's note changes a few; a first
    run over a year of notes changes thousands, a few by each note, and is not held back."""
    count = RewriteCount(entries_before, share)
    count.add(plan)
    count.check()


class RewriteCount:
    """check_rewrites' count kept as REM builds the plan, so that a run is refused as soon as one note
    has made more changes than the run could allow however many entries its other items add, not after
    REM has placed every item (33,675 supersedes by one note took minutes and gigabytes)."""

    def __init__(self, entries_before: int, share: float) -> None:
        self.entries_before, self.share = entries_before, share
        self.added = 0
        self.by_note: dict[str, Counter[EditOp]] = {}

    def add(self, edits: Iterable[Edit]) -> None:
        for edit in edits:
            if edit.op == "add":
                self.added += 1
            elif edit.item and edit.op in _REWRITES:
                note = (edit.evidence or "?").rsplit(":", 1)[0]
                self.by_note.setdefault(note, Counter())[edit.op] += 1

    def check(self, to_place: int = 0, placed: int = 0) -> None:
        """Raise GuardError if the note making the most changes is over the allowance of the entries
        MEMORY.md would hold were each of the `to_place` items REM has still to place (after the
        `placed` ones) added: then the whole plan is refused, whatever those items do."""
        if not self.by_note:
            return
        note, ops = max(self.by_note.items(), key=lambda pair: pair[1].total())
        held = self.entries_before + self.added + to_place
        if ops.total() <= rewrite_allowance(held, self.share):
            return
        done = ", ".join(f"{ops[op]:,} {op}" for op in _REWRITES if ops[op])
        so_far = (
            f"{ops.total():,} times or more in one run ({done} by the first {placed:,} of the run's "
            f"{placed + to_place:,} kept items; REM stopped there), for at most "
            if to_place
            else f"{ops.total():,} times in one run ({done}), for "
        )
        raise GuardError(
            f"Refused: {note} would rewrite or archive MEMORY.md's entries {so_far}"
            f"{counted(held, 'entry', 'entries')} it holds with this run's additions: over "
            f"max_rewrite_share ({self.share:.0%}, at least {FEWEST_REWRITES}). A note of many similar lines (a log, "
            "a value pasted line by line) reads as one fact changing again and again. Nothing was changed; the "
            "notes stay and the next run reads them again. See the plan: `memory-sleep run --dry-run "
            "--accept-mass-change` (the MCP tool: consolidate with dry_run and accept_mass_change). Then move "
            "such a note out of memory/, or, if the changes are right, run once with --accept-mass-change (or "
            "raise max_rewrite_share in memory-sleep.toml)."
        )

    def watch(self, edits: Sequence[Edit], to_place: int, placed: int) -> None:
        """REM's watch: count a batch's edits and refuse the run as soon as it is sure to be refused."""
        self.add(edits)
        self.check(to_place, placed)


def check_files(plan: Sequence[Edit], pending: Mapping[str, Sequence[str]], briefing_max_bytes: int) -> None:
    """Raise GuardError if a fold would drop a kept line of a note it folds (every item of the note not
    yet in MEMORY.md, `pending` by note, must be carried into the weekly summary, cited by its note and
    line), if a fold or brief would write outside memory/weekly/ and memory/briefing.md, or if the
    briefing would be over `briefing_max_bytes`."""
    for edit in plan:
        text = edit.text or ""
        if edit.op == "fold":
            if not (edit.path or "").startswith("memory/weekly/"):
                raise GuardError(
                    f"Refused: a fold into {edit.path}, not memory/weekly/. Nothing was changed."
                )
            for note in edit.sources or ():
                dropped = [line for line in pending.get(note, ()) if f"({line})" not in text]
                if dropped:
                    raise GuardError(
                        f"Refused: folding {note} into {edit.path} would drop its kept line {dropped[0]}, "
                        "not yet in MEMORY.md. Nothing was changed."
                    )
        elif edit.op == "brief":
            size = len(text.encode("utf-8"))
            if edit.path != BRIEFING or size > briefing_max_bytes:
                raise GuardError(
                    f"Refused: a briefing of {size:,} bytes into {edit.path}; it goes to {BRIEFING}, at most "
                    f"briefing_max_bytes ({briefing_max_bytes:,}). Nothing was changed."
                )


def tool_bytes(document: MemoryDocument) -> int:
    """The bytes `memory_max_bytes` bounds: the tool's entries (bullets ending in their date) and its
    project summaries (heading and field lines). What a person wrote (paragraphs, tables, other
    sections, bullets without a date) never counts."""
    entries = sum(
        len(entry.render(document.newline).encode("utf-8")) for _, entry in document.entries() if entry.day
    )
    summaries = sum(
        len((block.heading_raw + "".join(block.field_lines())).encode("utf-8"))
        for block in document.projects().values()
    )
    return entries + summaries


def judged(editor: DocumentEditor, curator: Curator, today: date) -> dict[str, EntryJudgement]:
    """The engine's judgements of the editor's entries, by plan ref."""
    shown = editor.views()
    plan_ref = {view.ref: ref for ref, view in shown}
    judgements = curator.judge([view for _, view in shown], today)
    return {plan_ref[j.ref]: j for j in judgements if j.ref in plan_ref}


def trim_to_size(
    editor: DocumentEditor,
    limit: int,
    budget: int,
    today: date,
    last_used: Callable[[Entry], date],
    judgements: Mapping[str, EntryJudgement],
    finished_projects: frozenset[str] = frozenset(),
) -> list[Edit]:
    """Archive edits for the tool's entries until its part of MEMORY.md (`tool_bytes`) fits `limit`
    bytes, those of least use first: by the day an entry was last written or referenced, moved back a
    year for finished business (a finished project, or what the engine judged ended, routine or past),
    forward two weeks for a decision and two months for a fact the engine judged changing (people keep
    it up to date), to its due day for an open action; lessons only when no other entry is left, the
    oldest first (when they were never trimmed, a workspace whose lessons alone passed the limit had
    every run refused); bullets a person wrote without a date never. GuardError if the budget runs out
    first."""
    document = editor.document
    edits: list[Edit] = []
    candidates = sorted(
        (
            (
                _kept_until(section, entry, today, last_used(entry), finished_projects, judgements.get(ref)),
                _TRIM_ORDER.get(section, 1),
                section,
                entry,
            )
            for ref, section, entry in editor.entries()
            if entry.day
        ),
        key=lambda c: (c[2] in _TRIMMED_LAST, c[0], c[1]),
    )
    size = tool_bytes(document)
    while size > limit:
        if not candidates or len(edits) >= budget:
            raise GuardError(
                f"Refused: the tool's entries in MEMORY.md would grow to {size:,} bytes, over memory_max_bytes "
                f"({limit:,}), and trimming them would remove too many entries. Nothing was changed. "
                "Raise memory_max_bytes."
            )
        _, _, _, entry = candidates.pop(0)
        size -= len(entry.render(document.newline).encode("utf-8"))
        edits.append(editor.archive(entry, trimmed_reason(limit)))
    return edits


def _kept_until(
    section: str,
    entry: Entry,
    today: date,
    last_used: date,
    finished_projects: frozenset[str],
    judged: EntryJudgement | None,
) -> date:
    """The day an entry's claim to its place runs out: its last use moved by its worth; an open
    action keeps it at least until it is due (a task due Friday is not trimmed for room on Tuesday)."""
    until = last_used + _worth(section, entry, finished_projects, judged)
    due = deadline_in(entry.text, entry.day or today) if section == "Action items" else None
    return max(until, due) if due else until


def _worth(
    section: str, entry: Entry, finished_projects: frozenset[str], judged: EntryJudgement | None
) -> timedelta:
    """How much longer than its age an entry deserves its place."""
    kind = judged.kind if judged else None
    if kind in ("ended", "routine", "past") or (
        entry.topic in finished_projects and section != "People"  # people outlive projects
    ):
        return -_FINISHED_PENALTY
    if kind == "changing":
        return _HISTORY_BONUS
    if section == "Decisions":
        return _CURRENT_BONUS
    return timedelta()
