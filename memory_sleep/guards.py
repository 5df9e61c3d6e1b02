"""Refuse or trim a run that would empty MEMORY.md, drop too much of it, or grow the tool's part of it
past its limit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, timedelta

from . import matching, routine
from .archive import trimmed_reason
from .errors import GuardError
from .memory_doc import Entry, MemoryDocument
from .plan import DocumentEditor, Edit
from .text import counted, deadline_in

_NEVER_TRIM = frozenset({"Lessons"})
_TRIM_ORDER = {"Action items": 0, "Facts": 1, "Decisions": 2}  # on the same day, actions go first
_FINISHED_PENALTY = timedelta(days=365)
_CURRENT_BONUS = timedelta(days=14)
_HISTORY_BONUS = timedelta(days=60)
_NO_TRIM_PAST = frozenset({"Action items"})  # an overdue action is still open


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


def trim_to_size(
    editor: DocumentEditor,
    limit: int,
    budget: int,
    today: date,
    last_used: Callable[[Entry], date],
    finished_projects: frozenset[str] = frozenset(),
) -> list[Edit]:
    """Archive edits for the tool's entries until its part of MEMORY.md (`tool_bytes`) fits `limit`
    bytes, those of least use first: by the day an entry was last written or referenced, moved back a
    year for finished business (a routine reading, a finished project, an event whose dates are all
    past), forward two weeks for a decision and two months for a fact whose value changed (people keep
    it up to date), to its due day for an open action; lessons and bullets a person wrote without a
    date are never trimmed. GuardError if the budget runs out first."""
    document = editor.document
    edits: list[Edit] = []
    candidates = sorted(
        (
            (
                _kept_until(section.title, entry, today, last_used(entry), finished_projects),
                _TRIM_ORDER.get(section.title, 1),
                section.title,
                entry,
            )
            for section, entry in document.entries()
            if section.title not in _NEVER_TRIM and entry.day
        ),
        key=lambda c: (c[0], c[1]),
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
    section: str, entry: Entry, today: date, last_used: date, finished_projects: frozenset[str]
) -> date:
    """The day an entry's claim to its place runs out: its last use moved by its worth; an open
    action keeps it at least until it is due (a task due Friday is not trimmed for room on Tuesday)."""
    until = last_used + _worth(section, entry, today, finished_projects)
    due = deadline_in(entry.text, entry.day or today) if section == "Action items" else None
    return max(until, due) if due else until


def _worth(section: str, entry: Entry, today: date, finished_projects: frozenset[str]) -> timedelta:
    """How much longer than its age an entry deserves its place."""
    if (
        routine.is_reading(entry.text)
        or routine.is_stack_trace(entry.text)
        or (entry.topic in finished_projects and section != "People")  # people outlive projects
        or (section not in _NO_TRIM_PAST and _past_event(entry.text, today))
    ):
        return -_FINISHED_PENALTY
    if has_history(entry.text):
        return _HISTORY_BONUS
    if section == "Decisions":
        return _CURRENT_BONUS
    return timedelta()


def has_history(text: str) -> bool:
    """The entry replaced an older value: REM noted it ("(previously: ...)") or the note named it ("(was 5432)")."""
    return "(previously: " in text or bool(matching.replaced_values(text))


def _past_event(text: str, today: date) -> bool:
    """Every date the entry names is over: an event that happened, not a fact that holds."""
    days = matching.typed_values(matching.current_claim(text)).get("date", frozenset())
    return bool(days) and all(day < today.isoformat() for day in days)
