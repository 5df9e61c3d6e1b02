"""Cleanup, part one: fold daily notes older than archive_after_days into memory/weekly/YYYY-Www.md."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta

from memory_sleep.cycle.plan import Edit
from memory_sleep.engines.base import Summarizer
from memory_sleep.engines.offline.values import changes_away
from memory_sleep.models import KeptItem, NoteItem
from memory_sleep.text import shorten, tokens, without_ending
from memory_sleep.workspace.archive import (
    Ending,
    may_say_the_same,
    says_the_same,
    stated_day,
    stated_words,
)
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.memory_doc import Entry
from memory_sleep.workspace.state import NoteState


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def due_for_folding(
    notes: Sequence[NoteFile], folded: dict[str, str], today: date, archive_after_days: int
) -> list[NoteFile]:
    cutoff = today - timedelta(days=archive_after_days)
    return [note for note in notes if note.day < cutoff and note.name not in folded]


def fold_edits(
    notes: Sequence[NoteFile],
    folded: Mapping[str, str],
    note_state: Callable[[str], NoteState | None],
    summarizer: Summarizer,
    today: date,
    archive_after_days: int,
    ended: Sequence[tuple[Entry, Ending]] = (),
) -> list[Edit]:
    """A `fold` edit for each week with notes due for folding (read by NREM, older than
    `archive_after_days`, not folded yet): the week's summary, rewritten whole over every note of the
    week folded so far (its lines of `ended` entries marked), and the notes it folds now."""
    due = [n for n in due_for_folding(notes, dict(folded), today, archive_after_days) if note_state(n.name)]
    edits = []
    for week, folding in sorted(weeks_of(due).items()):
        members = [n for n in notes if iso_week(n.day) == week and (n.name in folded or n in due)]
        with_states = [(n, state) for n in members if (state := note_state(n.name)) is not None]
        edits.append(
            Edit(
                op="fold",
                path=f"memory/weekly/{week}.md",
                text=render_week(week, with_states, summarizer, ended),
                sources=[note.relative for note in folding],
                reason=f"notes older than {archive_after_days} days",
            )
        )
    return edits


def kept_items(
    note_name: str, note_day: date, state: NoteState
) -> tuple[list[KeptItem], list[KeptItem], int]:
    """A note's kept items rebuilt from state: all of them, those not yet integrated, and the discard count."""
    kept, pending, discarded = [], [], 0
    for item_id, record in sorted(state.items.items(), key=lambda pair: pair[1].line):
        if record.verdict != "KEEP" or record.category is None:
            discarded += 1
            continue
        item = NoteItem(
            id=item_id,
            file=f"memory/{note_name}",
            day=note_day,
            line_start=record.line,
            line_end=record.line,
            kind="line",
            text=record.text,
            lead=record.lead,
        )
        entry = KeptItem(
            item=item,
            category=record.category,
            topic=record.topic,
            deadline=record.deadline,
            promote=record.promote,
        )
        kept.append(entry)
        if not record.integrated:
            pending.append(entry)
    return kept, pending, discarded


def render_week(
    week: str,
    notes: Sequence[tuple[NoteFile, NoteState]],
    summarizer: Summarizer,
    ended: Sequence[tuple[Entry, Ending]] = (),
) -> str:
    """The weekly summary of every folded note of `week`; a line stating what an `ended` entry said
    (a reversed decision, a finished action) is marked with its ending."""
    all_kept: list[KeptItem] = []
    pending: list[KeptItem] = []
    discarded = 0
    for note, state in notes:
        kept, waiting, dropped = kept_items(note.name, note.day, state)
        all_kept.extend(kept)
        pending.extend(waiting)
        discarded += dropped
    summary = summarizer.summarize_week(week, all_kept, discarded)
    year, number = week.split("-W")
    monday = date.fromisocalendar(int(year), int(number), 1)
    lines = [
        f"# Week {week} ({monday.isoformat()} to {(monday + timedelta(days=6)).isoformat()})",
        "",
        summary.overview.strip(),
        "",
    ]
    week_days = (monday, monday + timedelta(days=6))
    # only an entry true at some time of the week can end one of its lines
    endings = _Endings(
        [
            (old, ending)
            for old, ending in ended
            if (old.day or monday) <= week_days[1] and ending.day > monday
        ]
    )
    for topic, highlights in summary.highlights.items():
        if highlights:
            marked = (_marked(shorten(line, 300), week_days, endings) for line in highlights)
            lines += [f"## {topic}", *(f"- {line}" for line in marked), ""]
    if pending:
        lines += [
            "## Kept but not yet in MEMORY.md",
            *(f"- {shorten(k.item.text, 300)} ({k.item.source})" for k in pending),
            "",
        ]
    lines += ["## Source notes", *(f"- {note.relative}" for note, _ in notes), ""]
    return "\n".join(lines)


class _Endings:
    """Ended entries with their words, and which of them hold each word: a line can state only an
    entry it shares enough words with (or, wordless, one without words)."""

    def __init__(self, ended: Sequence[tuple[Entry, Ending]]) -> None:
        self.ended = [(old, tokens(old.text), ending) for old, ending in ended]
        self.holding: defaultdict[str, list[int]] = defaultdict(list)
        for number, (_, words, _) in enumerate(self.ended):
            for word in words or ("",):
                self.holding[word].append(number)

    def sharing(self, words: frozenset[str]) -> list[tuple[Entry, frozenset[str], Ending]]:
        """The entries that share enough of `words` to say the same, in their order (on 365 days, a
        line shared a common word with hundreds of entries and said the same as none)."""
        shared: defaultdict[int, int] = defaultdict(int)
        for word in words or ("",):
            for number in self.holding.get(word, ()):
                shared[number] += 1
        return [
            self.ended[number]
            for number in sorted(shared)
            if may_say_the_same(shared[number], len(self.ended[number][1]), len(words))
        ]


def _marked(line: str, week: tuple[date, date], ended: _Endings) -> str:
    """The line, with the ending of the entry it states if that entry stopped being true."""
    said = stated_day(line)
    words = stated_words(line)
    for old, old_words, ending in ended.sharing(words):
        since = old.day or week[0]
        day = said or max(since, week[0])
        if (
            since <= day < ending.day
            and week[0] <= day <= week[1]
            and says_the_same(old_words, words, restated=day != since)
            and not changes_away(old.text, without_ending(line))
        ):
            return f"{line} {ending.render()}"
    return line


def weeks_of(notes: Sequence[NoteFile]) -> dict[str, list[NoteFile]]:
    grouped: dict[str, list[NoteFile]] = defaultdict(list)
    for note in notes:
        grouped[iso_week(note.day)].append(note)
    return dict(grouped)
