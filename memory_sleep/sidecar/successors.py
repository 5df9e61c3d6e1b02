"""What replaced a result, so that recall shows what is true now above what was.

Two links, both read from what the files say, never guessed from meaning:
- an ended result names what ended it (`ended_by`, the note line of the supersede or close): that line
  answers the same question today, so it ranks just above the result it ended, even when the question
  used the old wording (a chain of supersedes is followed to its end, which keeps its own status:
  the last value of a project that has since finished is shown as finished);
- a dated result that a newer result restates (sidecar/restatement.py: the same key with another
  value, "moved to X (was Y)", its value said gone, all its words but one; never a restatement of
  the same values nor a line about another project, person, key, release or event; never GC's summary of
  archived entries, which says old values again) is older than it: the newer ranks first and the
  older is marked "older, see NEWER". The offline engine adds a new
  value beside an old entry rather than supersede wrongly, and an entry moved out for room is never
  superseded; this keeps both findable and puts the newer first. A result that has ended otherwise than by a
  supersede (its project finished, it was done) is still the latest word, shown with its own status,
  and a newer result still ranks above it. The newer result need not be a candidate of the question:
  a change worded unlike it is looked up by the older result's own rarest words
  (`newest_first`, one full-text query for the k best results, again along a chain of changes).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import PurePosixPath
from typing import Literal

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.restatement import restates
from memory_sleep.sidecar.rows import CONTEXT_JOIN, DatedMatch, EntryRow, linked_entry
from memory_sleep.sidecar.statement import Statement, stated, statement
from memory_sleep.text import tokens

COPIES = ("weekly", "archive")  # kinds that copy an item indexed too
COPY_WORDS = 3  # a copy of fewer words folds only into a line of the same words
LATER_TERMS = 100  # a result is looked up by its rarest terms, which together match at most this many entries
LATER_KINDS = ("note", "memory", "weekly", "archive")
MAX_CHAIN = 5  # supersedes followed from one result: A by B by C ...
SUMMARY = "gc:summarization"  # gc/apply.py: the source_path of a summary of archived entries


@dataclass
class Ranked:
    """A scored result on its way to a Hit; `newer` is the result that restates it, later."""

    score: float
    decay: float
    row: EntryRow
    relevance: float  # the score before an ended result's weight
    newer: EntryRow | None = None
    also: list[EntryRow] = field(default_factory=list)  # its copies folded into it (`fold_copies`)


@dataclass(frozen=True)
class Lookup:
    """What one search looks rows up by: its store, the day it answers on, whether a row may be
    returned (`admits`), how many results it returns (`limit`), the rarest terms of texts (`rarest`)
    and a row's decay."""

    store: SidecarStore
    on: str
    admits: Callable[[EntryRow], bool]
    limit: int
    rarest: Callable[[list[str]], list[list[str]]]
    decay: Callable[[EntryRow], float]


def ending_place(ended_by: str) -> tuple[str, int] | None:
    """The sidecar's (source key, line) of an ending's evidence, "memory/2026-11-14.md:3"."""
    path, _, line = ended_by.rpartition(":")
    if not path or not line.isdigit():
        return None
    name = PurePosixPath(path).name
    return ("MEMORY.md" if name == "MEMORY.md" else f"note:{name}", int(line))


def with_successors(lookup: Lookup, ranked: list[Ranked]) -> list[Ranked]:
    """`ranked` with the line that ended each of the `limit` most relevant ended results (added if
    missing) ranked above that result: above its relevance (or its score if `mark_older` ranked it
    higher) when it was superseded, for that line says what is true now in its place; above its score
    when it ended otherwise (done, finished), for it is still the word on what it says, shown with its
    status, and what closed it ("[x] release notes") no better an answer than it. A line recall may
    not return (forgotten, expired, discarded as noise) is answered by a copy of it that it may
    (`_returned_copy`). Best first."""
    store, on = lookup.store, lookup.on
    by_id = {item.row.id: item for item in ranked}
    ended = [item for item in ranked if item.row.ended_on(on) and item.row.ended_by]
    for item in sorted(ended, key=lambda item: -item.relevance)[: lookup.limit]:
        current = _current(store, item.row, on)
        if current is not None and not lookup.admits(current):
            current = _returned_copy(lookup, current)
        if current is None:
            continue
        successor = by_id.get(current.id)
        if successor is None:
            successor = by_id[current.id] = Ranked(0.0, item.decay, current, 0.0)
            ranked.append(successor)
        replaced = item.row.status == "superseded"
        successor.score = max(
            successor.score, _above(max(item.relevance, item.score) if replaced else item.score)
        )
    return _sorted(ranked)


def names_entry(ended_by: str) -> bool:
    """Whether an ending names the entry GC merged or superseded it into, by id, rather than a line."""
    return linked_entry(ended_by) is not None


def ending_row(store: SidecarStore, ended_by: str) -> EntryRow | Literal[False] | None:
    """The row an ending names, None if it is not indexed, False if it names none: a note or MEMORY.md
    line (a line GC compacted away keeps its ending, so the chain goes on through it), or the entry GC
    merged it into ("entry 2436 (gc:compaction)") or superseded it by ("entry 2206: its text"); not a
    row that holds other text now (a MEMORY.md row is rewritten in place when its line changes)."""
    linked = linked_entry(ended_by)
    if linked:
        entry_id, said = linked
        row = store.fetch([entry_id]).get(entry_id)
        return None if row is None or (said is not None and said.split() != row.text.split()) else row
    place = ending_place(ended_by)
    if place is None:
        return False
    return store.entry_at(*place) or store.entry_at(*place, live=False)


def _current(store: SidecarStore, row: EntryRow, on: str) -> EntryRow | None:
    """The end of the chain of what ended `row`: the latest word on it, unless that too was superseded
    (by something not indexed). It may have ended otherwise since (its project finished): it is
    still the last value known, and shows its own status."""
    seen = {row.id}
    for _ in range(MAX_CHAIN):
        if not (row.ended_on(on) and row.ended_by):
            break
        if (found := ending_row(store, row.ended_by)) is False:
            break  # an ending that names no row
        if found is None or found.id in seen:
            return None
        seen.add(found.id)
        row = found
    superseded = row.ended_on(on) and row.status == "superseded"
    return None if superseded or len(seen) == 1 else row


def _returned_copy(lookup: Lookup, row: EntryRow) -> EntryRow | None:
    """A row recall may return that states `row`'s words (a weekly summary's line of it, its MEMORY.md
    entry, its archive record: `_within`) and has not ended since, dated from its day: one full-text
    query by its rarest terms, only when the line that ended a result may not be returned."""
    if row.day is None:
        return None
    terms = lookup.rarest([row.text])[0]
    if not terms:
        return None
    words = statement(row).words
    copies = [
        match.id
        for match in lookup.store.dated_matches(
            terms, LATER_KINDS, row.day, _day_after(lookup.on), LATER_TERMS
        )
        if match.id != row.id and _within(words, statement(match).words)
    ]
    return next(
        (
            copy
            for copy in lookup.store.fetch(copies).values()
            if lookup.admits(copy) and not copy.ended_on(lookup.on)
        ),
        None,
    )


def fold_copies(ranked: list[Ranked]) -> list[Ranked]:
    """`ranked` without the copies of a note line that is there too: a MEMORY.md entry, a weekly
    summary's line or an archive record stating its words (a day, a category label, list marks and a
    cut-off end aside: a copy joins an item's lines with "; " and may end in "…"), all or at least
    COPY_WORDS of them. The note line takes the best score of its copies (the one of its day, if notes
    of several days say it) and lists them in `also`, so the k results hold k different statements and
    each is shown where it was said. A copy that ended otherwise than its note line (superseded in
    MEMORY.md while the line is not marked, or the reverse) is another word on it: it stays a result of
    its own, with its status. Copies of no note line among the results fold into their best-ranked one
    (the words of one within the other's); note lines are never folded (a later note saying the same
    is the newer word: `mark_older`)."""
    ordered = _sorted(ranked)
    if all(item.row.kind == "note" for item in ordered):
        return ordered  # no copy among them: no line's words to read
    notes = [(item, statement(item.row).words) for item in ordered if item.row.kind == "note"]
    kept: list[Ranked] = []
    copies: list[tuple[Ranked, frozenset[str]]] = []  # the copies kept, with their words
    for item in ordered:
        if item.row.kind == "note":
            kept.append(item)
            continue
        words = statement(item.row).words
        into = _original(item, words, notes) if words else None
        if into is None and words:
            into = next(
                (
                    copy
                    for copy, said in copies
                    if _same_validity(copy, item) and (_within(words, said) or _within(said, words))
                ),
                None,
            )
        if into is None:
            kept.append(item)
            copies.append((item, words))
            continue
        into.score = max(into.score, item.score)
        into.relevance = max(into.relevance, item.relevance)
        into.also.append(item.row)
    return _sorted(kept)


def _original(
    copy: Ranked, words: frozenset[str], notes: Sequence[tuple[Ranked, frozenset[str]]]
) -> Ranked | None:
    """The note line among `notes` (with their words) that `copy` copies: of its day if there is one,
    else the best ranked."""
    validity = (copy.row.valid_to, copy.row.status)
    found = [
        note
        for note, said in notes
        if _within(words, said) and (note.row.valid_to, note.row.status) == validity
    ]
    return next((note for note in found if note.row.day == copy.row.day), found[0] if found else None)


def _within(words: frozenset[str], other: frozenset[str]) -> bool:
    """The words are the other's, or at least COPY_WORDS of them and all among the other's."""
    return words == other or (len(words) >= COPY_WORDS and words <= other)


def _same_validity(one: Ranked, other: Ranked) -> bool:
    return (one.row.valid_to, one.row.status) == (other.row.valid_to, other.row.status)


def _with_later_statements(
    lookup: Lookup, ranked: list[Ranked], looked_up: frozenset[int], reading: Reading
) -> list[Ranked]:
    """`ranked` with the later lines that restate any of the `limit` best dated results (`mark_older`
    then ranks them above it): a change worded unlike the question, which shares few words with it,
    is no candidate of it, yet it shares the result's rarest words. A full-text query for each, by
    its own rarest terms (`rarest` of their texts, which LATER_TERMS entries at most hold), among the
    entries dated after it up to `on`, reads every line holding one (the best of one query for all the
    top results, or of one for each, could leave out a change sharing one rare word with its result).
    A line found is added when it, or a line of it, restates a result and it is dated after it (after
    its supersede, for a superseded result: `_newer_after`). The results `looked_up` by an earlier
    query are not asked again."""
    store, on = lookup.store, lookup.on
    ranked = _sorted(ranked)
    due = [
        (since, reading.said(item.row))
        for item in ranked[: lookup.limit]
        if item.row.id not in looked_up and (since := _newer_after(item.row, on)) is not None
    ]
    if not due:
        return ranked
    have = {row.id for item in ranked for row in (item.row, *item.also)}  # a copy folded in is there too
    end = _day_after(on)
    found = {
        match.id: match
        for (since, _), terms in zip(due, lookup.rarest([said.text for _, said in due]), strict=True)
        if terms
        for match in store.dated_matches(terms, LATER_KINDS, _day_after(since), end, LATER_TERMS)
        if match.id not in have
    }
    restating = [
        entry_id
        for entry_id, match in sorted(found.items())
        if _news(match) and any(match.day > then and reading.restated_by(said, match) for then, said in due)
    ]
    rows = store.fetch(restating).values()  # whole, only the few that restate a result
    return ranked + [Ranked(0.0, lookup.decay(row), row, 0.0) for row in rows if lookup.admits(row)]


def newest_first(lookup: Lookup, ranked: list[Ranked]) -> list[Ranked]:
    """`ranked` with the later lines that restate its `limit` best results (`_with_later_statements`),
    each newer ranked above what it restates (`mark_older`); and again for a later line so ranked
    into the first `limit`, up to MAX_CHAIN times: a value changed and changed again ("Scrapping Vue
    for X; we rebuild on Solid", then "Scrapping Solid for X; we rebuild on Vue") ends on its last
    word even when only the first is worded like the question."""
    looked_up: frozenset[int] = frozenset()
    reading = Reading(project_names(lookup.store))
    for _ in range(MAX_CHAIN):
        first = frozenset(item.row.id for item in _sorted(ranked)[: lookup.limit])
        if first <= looked_up:
            break
        ranked = _with_later_statements(lookup, ranked, looked_up, reading)
        looked_up |= first
        # a newer line that mark_older ranked above what it restates may have ended since: what ended it
        # ranks above it in turn
        ranked = with_successors(lookup, mark_older(ranked, lookup.on, lookup.limit, reading))
    return ranked


def project_names(store: SidecarStore) -> frozenset[frozenset[str]]:
    """The words of each of the workspace's project names: the blocks of MEMORY.md's `## Projects` ever
    indexed, their context "Projects · NAME" (sources.py; a project whose block left MEMORY.md is still
    a project)."""
    names = (
        tokens(row.context.partition(CONTEXT_JOIN)[2])
        for row in store.entries_of_source("MEMORY.md")
        if row.kind == "project"
    )
    return frozenset(name for name in names if name)


class Reading:
    """What one search's rows state, each row read once: `mark_older` and `_with_later_statements` ask
    it of each row for each result above it (hundreds of rows at 100k entries, a few times each)."""

    def __init__(self, projects: frozenset[frozenset[str]]) -> None:
        self.projects = projects
        self._said: dict[int, Statement] = {}

    def said(self, row: EntryRow | DatedMatch) -> Statement:
        """What `row` states, read as about the projects it is filed under too."""
        found = self._said.get(row.id)
        if found is None:
            found = self._said[row.id] = statement(row, filed(row, self.projects))
        return found

    def restated_by(self, older: Statement, row: EntryRow | DatedMatch) -> bool:
        """Whether `row`, or one of the lines after its first, restates `older`: an item of several
        lines (a quote, then "→ Quokka 1.4 release moves from 2026-11-19 to 2026-11-26") may state the
        change on a line of its own, which the item is not read as (its first line is its claim). Its
        first line is read as the item alone: the lines under it may say it is no change ("Quokka v1.2
        is live, ships audit log v2" over its next steps and owner is no newer value of "Quokka v1.2
        will ship audit log v2")."""
        said = self.said(row)
        return restates(older, said, self.projects) or any(
            restates(older, stated(line, row.kind == "weekly", said.filed), self.projects)
            for line in row.text.splitlines()[1:]
            if line.strip()
        )


def filed(row: EntryRow | DatedMatch, projects: frozenset[frozenset[str]]) -> frozenset[str]:
    """The words of the projects `row` is filed under: a part of its context that is a project's name,
    the "[Orion]" tag of a MEMORY.md entry ("Facts · Orion"), a note's "## Orion" heading, a weekly
    summary's project. "Release 1.4 target date is 2026-11-19" under [Orion] is Orion's, though it
    does not say so."""
    return _filed(row.context, projects) if row.context else frozenset()


@functools.lru_cache(maxsize=4096)  # mark_older asks it of each result for each result above it
def _filed(context: str, projects: frozenset[frozenset[str]]) -> frozenset[str]:
    named = (tokens(part) for part in context.split(CONTEXT_JOIN))
    return frozenset(word for words in named if words in projects for word in words)


def _day_after(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def mark_older(ranked: list[Ranked], on: str, limit: int, reading: Reading) -> list[Ranked]:
    """Mark each of the first `limit` dated results that is the latest word (valid, or finished or
    done) but a newer result restates, and rank that newer result above it (the older keeps its
    place). The newer may have been superseded since ("changed from on for 10% to off", then "changed
    from off to on for everyone"): it still changed the older's value, and what superseded it ranks
    above it in turn (`with_successors`, again after this). A superseded result that a result dated
    after its supersede restates ("moved from Y to Z" after the supersede linked Y to another line) is
    asked the same: that result is a later word than its successor, and ranks above both. A newer
    result ranked into the first `limit` so is asked the same in turn: the last of a chain of changes
    ranks first."""
    dated = [item for item in ranked if item.row.day is not None and _news(item.row)]
    checked: set[int] = set()
    for _ in range(MAX_CHAIN):
        due = [item for item in _sorted(ranked)[:limit] if item.row.id not in checked]
        for item in due:
            checked.add(item.row.id)
            since = _newer_after(item.row, on)
            if since is None:
                continue
            own = reading.said(item.row)
            newer = [
                other
                for other in dated
                if other.row.day > since  # type: ignore[operator]
                and reading.restated_by(own, other.row)
            ]
            if newer:
                # of the latest day's, the original item rather than its weekly or archive copy
                latest = max(
                    newer, key=lambda other: (other.row.day, other.row.kind not in COPIES, other.score)
                )
                item.newer = latest.row
                # above the result, or above the line that superseded it (`with_successors`)
                floor = item.score if _latest_word(item.row, on) else _above(item.relevance)
                latest.score = max(latest.score, _above(floor))
        if not due:
            break
    return _sorted(ranked)


def _news(row: EntryRow | DatedMatch) -> bool:
    """Whether a row may be a newer word on another: a summary of archived entries is not, it says
    again what left MEMORY.md (old values, most of them), dated by the last of them."""
    return row.source_path != SUMMARY


def _newer_after(row: EntryRow, on: str) -> str | None:
    """The day after which a line restating a dated result is a newer word on it: its own day while
    it is the latest word; for a superseded result, its supersede's day (a later line is one the
    supersede did not know of); None for an undated result."""
    if row.day is None:
        return None
    return row.day if _latest_word(row, on) else row.valid_to


def _latest_word(row: EntryRow, on: str) -> bool:
    """Valid on the day, or ended otherwise than replaced: a finished project's last value, a done action."""
    return not row.ended_on(on) or row.status != "superseded"


def _above(score: float) -> float:
    return score * (1 + 1e-6) + 1e-12


def _sorted(ranked: Sequence[Ranked]) -> list[Ranked]:
    return sorted(ranked, key=lambda item: (-item.score, item.row.id))
