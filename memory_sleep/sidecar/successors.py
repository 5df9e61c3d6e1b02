"""What replaced a result, so that recall shows what is true now above what was.

Two links, both read from what the files say, never guessed from meaning:
- an ended result names what ended it (`ended_by`, the note line of the supersede or close): that line
  answers the same question today, so it ranks just above the result it ended, even when the question
  used the old wording (a chain of supersedes is followed to its end, which keeps its own status:
  the last value of a project that has since finished is shown as finished);
- a dated result whose words a newer result repeats, all but one of them at most (the same key with
  another value, or "moved to X (was Y)"), or whose `Key:` (two words or more) a newer result states
  with another value, or repeats with the first number of the old value ("team sync: Wednesdays
  at 10:50, Jitsi" and "team sync moved to Wednesdays at 18:30 (was Wednesdays at 10:50)"), or whose
  value a newer result says is gone as the offline engine reads a change ("(was Y)", "from Y to X":
  engines/offline/values.py) and shares another word with (two, for a one-word value), is older
  than it: the newer ranks first and the older is marked "older, see NEWER". A newer result that
  states every typed value of the older again and says none is gone is a restatement, no newer
  value; nor are two results said of two things linked: each one's subject names a version or day
  the other never says, the older's words left out hold a release the newer says another of, or
  its first day beside a number or values the newer keeps (another event: two leaves of one
  person), a name of the older stands where the newer has another word, the newer's key lacks a
  word of the older's, or their heads have words of one where the other has others (two releases
  or hosts). The offline engine adds a new value beside an
  old entry rather than supersede wrongly, and an entry moved out for room is never superseded;
  this keeps both findable and puts the newer first. A result that has ended otherwise than by a
  supersede (its project finished, it was done) is still the latest word, shown with its own status,
  and a newer result still ranks above it. The newer result need not be a candidate of the question:
  a change worded unlike it is looked up by the older result's own rarest words
  (`with_later_statements`, one full-text query for the k best results).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from pathlib import PurePosixPath
from typing import Literal

from memory_sleep.engines.offline.matching import predicate, subject_phrase
from memory_sleep.engines.offline.statements import swapped
from memory_sleep.engines.offline.values import current_claim, mentions_value, replaced_values, typed_values
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.text import CLOCK, WORD_MARKS, is_cjk, tokens, word_sequence

_WEEKLY_LABEL = re.compile(r"^[-*] \w+: ")
_NAME = re.compile(r"\b[A-Z][\w.-]*")
_IDENTIFIER = re.compile(r"`[^`\n]+`|\b\w+_\w+\b")  # a code span, a snake_case word
_STATED_DAY = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)\s*$")
_CUT_END = re.compile(rf"[\w{re.escape(WORD_MARKS)}]*…\s*$")  # a cut-off last word and the ellipsis
_KEYED = re.compile(
    r"^(?:.*:\s+)?(?P<key>[^:\n]{3,60}?)\s*:\s+(?P<value>.+)$", re.DOTALL
)  # the last "Key: value"; a key is on one line ("next: X\n  owner: Y" has the key "owner")
_NUMBER = re.compile(r"\d")
_WHICH = re.compile(r"v?\d+(?:\.\d+)+|\d{4}-\d{2}-\d{2}")  # a version, a day: which release, which event
_RELEASE = re.compile(r"v\d+(?:\.\d+)+")  # "v0.13.8": a release; a bare "3.12" may be a value
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_STAMP = re.compile(r"^[\W_]*" + CLOCK.pattern + r"[\W_]*")  # "[13:03] ", "**14:29** "
# gc/apply.py: link(), and a supersede's archive record, which says the entry's text then
_GC_LINK = re.compile(r"entry (\d+)(?: \(gc:|: (?P<text>.*))", re.S)
COPIES = ("weekly", "archive")  # kinds that copy an item indexed too
COPY_WORDS = 3  # a copy of fewer words folds only into a line of the same words
LATER = 20  # later lines read per result looked up, in the one full-text query for all of them
LATER_TERMS = 100  # a result is looked up by its rarest terms, which together match at most this many entries
LATER_KINDS = ("note", "memory", "weekly", "archive")
KEY_WORDS = 2  # a key of at least this many words names one thing
MAX_CHAIN = 5  # supersedes followed from one result: A by B by C ...
SHARED_WORDS = 3  # a newer restatement shares at least this many words with the older result
OLDER_ONLY_WORDS = 1  # and leaves out at most this many of them (its old value), or one more not a name
BESIDE_GONE_VALUE = 2  # words a newer result saying a one-word value is gone shares with the older besides


@dataclass
class Ranked:
    """A scored result on its way to a Hit; `newer` is the result that restates it, later."""

    score: float
    decay: float
    row: EntryRow
    relevance: float  # the score before an ended result's weight
    newer: EntryRow | None = None
    also: list[EntryRow] = field(default_factory=list)  # its copies folded into it (`fold_copies`)


def ending_place(ended_by: str) -> tuple[str, int] | None:
    """The sidecar's (source key, line) of an ending's evidence, "memory/2026-11-14.md:3"."""
    path, _, line = ended_by.rpartition(":")
    if not path or not line.isdigit():
        return None
    name = PurePosixPath(path).name
    return ("MEMORY.md" if name == "MEMORY.md" else f"note:{name}", int(line))


def with_successors(
    store: SidecarStore, ranked: list[Ranked], on: str, admits: Callable[[EntryRow], bool], limit: int
) -> list[Ranked]:
    """`ranked` with the line that ended each of the `limit` most relevant ended results ranked above
    that result's relevance (added if missing), best first; `admits(row)`: whether a row may be returned."""
    by_id = {item.row.id: item for item in ranked}
    ended = [item for item in ranked if item.row.ended_on(on) and item.row.ended_by]
    for item in sorted(ended, key=lambda item: -item.relevance)[:limit]:
        current = _current(store, item.row, on, admits)
        if current is None:
            continue
        successor = by_id.get(current.id)
        if successor is None:
            successor = by_id[current.id] = Ranked(0.0, item.decay, current, 0.0)
            ranked.append(successor)
        successor.score = max(successor.score, _above(item.relevance))
    return _sorted(ranked)


def names_entry(ended_by: str) -> bool:
    """Whether an ending names the entry GC merged or superseded it into, by id, rather than a line."""
    return _GC_LINK.match(ended_by) is not None


def ending_row(store: SidecarStore, ended_by: str) -> EntryRow | Literal[False] | None:
    """The row an ending names, None if it is not indexed, False if it names none: a note or MEMORY.md
    line (a line GC compacted away keeps its ending, so the chain goes on through it), or the entry GC
    merged it into ("entry 2436 (gc:compaction)") or superseded it by ("entry 2206: its text"); not a
    row that holds other text now (a MEMORY.md row is rewritten in place when its line changes)."""
    merged = _GC_LINK.match(ended_by)
    if merged:
        row = store.fetch([int(merged.group(1))]).get(int(merged.group(1)))
        said = merged.group("text")
        return None if row is None or (said is not None and said.split() != row.text.split()) else row
    place = ending_place(ended_by)
    if place is None:
        return False
    return store.entry_at(*place) or store.entry_at(*place, live=False)


def _current(
    store: SidecarStore, row: EntryRow, on: str, admits: Callable[[EntryRow], bool]
) -> EntryRow | None:
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
    return None if superseded or len(seen) == 1 or not admits(row) else row


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
    notes = [(item, _statement(item.row).words) for item in ordered if item.row.kind == "note"]
    kept: list[Ranked] = []
    copies: list[tuple[Ranked, frozenset[str]]] = []  # the copies kept, with their words
    for item in ordered:
        if item.row.kind == "note":
            kept.append(item)
            continue
        words = _statement(item.row).words
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


def with_later_statements(
    store: SidecarStore,
    ranked: list[Ranked],
    on: str,
    admits: Callable[[EntryRow], bool],
    limit: int,
    rarest: Callable[[list[str]], list[list[str]]],
    decay: Callable[[EntryRow], float],
) -> list[Ranked]:
    """`ranked` with the later lines that restate any of the `limit` best dated results (`mark_older`
    then ranks them above it): a change worded unlike the question, which shares few words with it,
    is no candidate of it, yet it shares the result's rarest words. One full-text query for them all,
    by each result's own rarest terms (`rarest` of their texts), among the entries dated after the
    earliest of them up to `on`: a line found is added when it restates a result and is dated after
    it (after its supersede, for a superseded result: `_newer_after`)."""
    ranked = _sorted(ranked)
    due = [
        (since, _statement(item.row))
        for item in ranked[:limit]
        if (since := _newer_after(item.row, on)) is not None
    ]
    wanted = sorted({term for terms in rarest([said.text for _, said in due]) for term in terms})
    if not wanted:
        return ranked
    have = {item.row.id for item in ranked}
    start = _day_after(min(day for day, _ in due))
    found = store.dated_matches(wanted, LATER_KINDS, start, _day_after(on), LATER * len(due))
    linked = [
        entry_id
        for entry_id, day, text in found
        if entry_id not in have
        and any(day > then and _restates(said, _stated(text, False)) for then, said in due)
    ]
    added = [row for row in store.fetch(linked).values() if admits(row)]
    return ranked + [Ranked(0.0, decay(row), row, 0.0) for row in added]


def _day_after(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def mark_older(ranked: list[Ranked], on: str, limit: int) -> list[Ranked]:
    """Mark each of the first `limit` dated results that is the latest word (valid, or finished or
    done) but a newer result restates, and rank that newer result above it (the older keeps its
    place). A superseded result that a result dated after its supersede restates ("moved from Y to
    Z" after the supersede linked Y to another line) is asked the same: that result is a later word
    than its successor, and ranks above both. A newer result ranked into the first `limit` so is
    asked the same in turn: the last of a chain of changes ranks first."""
    dated = [item for item in ranked if item.row.day is not None and _latest_word(item.row, on)]
    checked: set[int] = set()
    for _ in range(MAX_CHAIN):
        due = [item for item in _sorted(ranked)[:limit] if item.row.id not in checked]
        for item in due:
            checked.add(item.row.id)
            since = _newer_after(item.row, on)
            if since is None:
                continue
            own = _statement(item.row)
            newer = [
                other
                for other in dated
                if other.row.day > since  # type: ignore[operator]
                and _restates(own, _statement(other.row))
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


@dataclass(frozen=True)
class Statement:
    """What a result states: its words, and (read only when a link asks: most results are only
    compared by their words) its names and its key."""

    words: frozenset[str]
    said: frozenset[str]  # every word, clock times too
    text: str

    @cached_property
    def names(self) -> frozenset[str]:
        """Its capitalised words (a sentence's first too: "Quokka api ..." names a thing; leaving out a
        capitalised verb only costs a missed link) and every word of its identifiers (`ledger_sync_v2`:
        a line naming `invoice_export_v2` is about another thing), lower-cased as `words` are."""
        return frozenset(name.lower() for name in _NAME.findall(self.text)) | {
            word for identifier in _IDENTIFIER.findall(self.text) for word in tokens(identifier)
        }

    @property
    def key(self) -> frozenset[str]:
        """The words of its last "Key:" (at least KEY_WORDS of them; else none)."""
        return self._keyed[0]

    @property
    def value(self) -> str | None:
        """The first word of its key's value that holds a digit: "10:50", "kimi-k2.5"."""
        return self._keyed[1]

    @cached_property
    def key_words(self) -> frozenset[str]:
        """The words of its last "Key:", however few ("owner: Pim" has the key "owner")."""
        keyed = self._key_value
        return frozenset() if keyed is None else frozenset(tokens(keyed["key"]))

    @cached_property
    def value_words(self) -> frozenset[str]:
        """The words of its last key's value."""
        keyed = self._key_value
        return frozenset() if keyed is None else tokens(keyed["value"])

    @cached_property
    def _key_value(self) -> re.Match[str] | None:
        return _KEYED.match(_STAMP.sub("", self.text.replace("*", "").strip()))

    @cached_property
    def _keyed(self) -> tuple[frozenset[str], str | None]:
        keyed = self._key_value
        if keyed is None:
            return frozenset(), None
        key = frozenset(word for word in tokens(keyed["key"]) if not CLOCK.fullmatch(word))
        if len(key) < KEY_WORDS:
            return frozenset(), None
        return key, next((word for word in word_sequence(keyed["value"]) if _NUMBER.search(word)), None)

    @cached_property
    def head(self) -> str:
        """What it is said of and the first word said of it: its last key and that key's first value
        word ("Retention for Quokka invoices 14"), else its subject and verb ("Quokka canary database
        host is"); "" when no key, verb or colon ends its subject ("Pim owns the notifier")."""
        keyed = self._key_value
        if keyed is not None:
            return " ".join([keyed["key"], *word_sequence(keyed["value"])[:1]])
        text = _STAMP.sub("", self.text.replace("*", "").strip())
        said = predicate(text)
        return " ".join([subject_phrase(text), *word_sequence(said)[:1]]) if said else ""

    @cached_property
    def which(self) -> frozenset[str]:
        """The versions and days its subject or its key names: which release or which day's event it
        is about ("Quokka v0.12.2 scope changed: ...", "Pim's leave from 2026-12-09 is now ...",
        "Again: scope of Quokka v0.13.1: ...")."""
        named = tokens(subject_phrase(self.text)) | self.key
        return frozenset(word for word in named if _WHICH.fullmatch(word))

    @cached_property
    def pairs(self) -> frozenset[str]:
        """Its words that are pairs of CJK characters (`tokens` splits an un-spaced run into them)."""
        return frozenset(word for word in self.words if is_cjk(word))

    @cached_property
    def claim(self) -> str:
        """What it claims now, without the values it says are gone (read only when a link needs it)."""
        return current_claim(self.text)

    @cached_property
    def values(self) -> frozenset[str]:
        """The typed values it states now (engines/offline/values.py): not those it says are gone, the
        clock time that stamps a note line, nor those of its subject or the release or day that says
        which one it is about (`which`): "TLS cert for billing.example.io expires 2026-12-02" states
        the day, "Quokka v0.12.3: the new alerts flow" no typed value."""
        text = _STAMP.sub("", self.text.replace("*", "").strip())
        subject = subject_phrase(text) if predicate(text) else ""  # a verb or key ends its subject
        return _typed(text) - _typed(subject) - self.which

    @cached_property
    def gone(self) -> tuple[str, ...]:
        """The values it says are gone: "(was 5432)", "from Kafka to"."""
        return replaced_values(self.text)


def _typed(text: str) -> frozenset[str]:
    return frozenset(value for found in typed_values(text).values() for value in found)


def _statement(row: EntryRow) -> Statement:
    """The words of what a result states: without the clock times that stamp note lines, nor the
    category label and day a weekly summary adds to its copy of an item."""
    return _stated(row.text, row.kind == "weekly")


@functools.lru_cache(maxsize=4096)  # fold_copies and mark_older read the same results' statements
def _stated(text: str, weekly: bool) -> Statement:
    text = _WEEKLY_LABEL.sub("", text) if weekly else text
    if text.rstrip().endswith(")"):  # a stated day ends it: only then is the pattern tried at each offset
        text = _STATED_DAY.sub("", text)
    if text.rstrip().endswith("…"):  # a copy cut short: its last word may be cut too
        text = _CUT_END.sub("", text)
    said = tokens(text)
    return Statement(
        said.difference(word for word in said if ":" in word and CLOCK.fullmatch(word)), said, text
    )


def _restates(older: Statement, newer: Statement) -> bool:
    """The newer states the older's key with another value, or (unless it states every typed value of
    the older again and says none is gone: a restatement, no newer value) repeats the key with the
    older's value, or says the older's value is gone, shares another of its words (two for a
    one-word value) and is not about other things (`_other_things`), or repeats all the older's
    words but one, or but two that are not capitalised; in these last two ways, never of another
    person or thing (`_other_name`, `_other_key`), release or day's event (`_other_release`,
    `_release_left_out`, `_other_event`)."""
    if older.key and older.key == newer.key:
        return older.value_words != newer.value_words  # the same key with a value of its own
    if older.values and older.values <= newer.values and not newer.gone:
        return False  # every typed value it states said again, none said gone: no newer value of it
    if older.value and older.key <= newer.said and older.value in newer.said:
        return True  # the key and its old value named: "moved to X (was Y)", "FROM: Y ... TO: X"
    shared = older.words & newer.words
    gone = newer.gone if len(shared) > 1 and not _other_things(older, newer) else ()
    for value in gone:  # "moves from Pim to Teo" after "ask Pim about ..."
        beside = shared - tokens(value)
        wanted = BESIDE_GONE_VALUE if len(tokens(value)) == 1 and not _NUMBER.search(value) else 1
        if len(beside) >= wanted and mentions_value(older.claim, value):
            return not _other_release(older, newer)
    if _count(shared, older.pairs) < SHARED_WORDS:
        return False
    left = older.words - newer.words
    left_out = _count(left, older.pairs)
    return (
        left_out <= OLDER_ONLY_WORDS or (left_out <= OLDER_ONLY_WORDS + 1 and not left & older.names)
    ) and not (
        _other_name(older, newer, left)
        or _other_release(older, newer)
        or _release_left_out(older, newer, left)
        or _other_event(older, newer, left)
        or _other_subject(older, newer)
        or _other_key(older, newer)
    )


def _other_name(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """A name the older leaves out stands where the newer has another word (statements.swapped): "Pim
    on leave 2026-11-19, 14 days" and "Teo on leave 2026-11-19, 14 days", "Quokka: Contoso pays for
    Starter" and "Quokka: Fabrikam pays for Starter" are said of two people or things. A capitalised
    word left out before the words both say stands in no one's place: "**Owner (Quokka exporter):**
    Pim", then "Teo takes over Quokka exporter from Pim", changes the owner."""
    return bool(left & older.names) and swapped(older.text, newer.text)


def _other_key(older: Statement, newer: Statement) -> bool:
    """Both say "Key: value" and the newer's key lacks a word of the older's: "**Owner (Quokka
    ingest):** Pim" and "status: ...; next: ...; owner: Pim" are said of two keys (the same key is
    `_restates`'s first link; "Quokka Python version: 3.12" keeps every word of "Python for Quokka")."""
    return bool(older.key_words and newer.key_words and not older.key_words <= newer.key_words)


def _other_release(older: Statement, newer: Statement) -> bool:
    """Each one's subject names a version or a day the other never says: "Scope of Quokka v0.16.0:
    audit log v2" and "Quokka v0.12.2 scope changed: ... instead of audit log v2" are two releases;
    "Python for Quokka: 3.12" and "Quokka moved from Python 3.12 to 3.11" change one value."""
    return bool(older.which - newer.said and newer.which - older.said)


def _release_left_out(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The words the older leaves out hold a release ("v0.13.8") the newer says another of: "Audit log
    v2 goes out with Quokka v0.13.8" and "Quokka v0.13.7 will ship audit log v2" are two releases. A
    bare version is a value ("pinned to Python 3.12", then "3.11"), and so may a day be ("expires
    2026-12-02", then "renewed (new expiry 2027-02-17)")."""
    return any(_RELEASE.fullmatch(word) for word in left) and any(
        _RELEASE.fullmatch(word) for word in newer.words - older.said
    )


def _other_event(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The words the older leaves out are the first day it names and a number beside it, and the newer
    says another day: "Pim is out from 2026-11-19 for 4 days" and "Pim is out from 2026-12-27 for 14
    days" are two leaves; the first day says which event, the number its value. The same first day
    with another end and length is the same leave changed ("from 2026-11-29 until 2026-12-08, 10
    days", then "... until 2026-12-12, 14 days"). Nor is another first day beside the same values
    ("Pim is out from 2026-11-23 for 5 days", then "... from 2027-01-01 for 5 days") a change: the
    day says which event. A day alone left out, the older's only value, may be the value ("expires
    2026-12-02", then "renewed (new expiry 2027-02-17)")."""
    first = _DAY.search(older.text)
    if first is None or first.group() not in left:
        return False
    beside = older.values - {first.group()}
    return (
        any(_NUMBER.search(word) and word != first.group() for word in left)
        or bool(beside and beside <= newer.values)
    ) and any(_DAY.fullmatch(word) for word in newer.words - older.said)


def _other_subject(older: Statement, newer: Statement) -> bool:
    """Their heads differ by words of one standing where the other has others, between words both
    have (statements.swapped): "Quokka exporter stack: Elixir 1.17" and "Quokka api stack: Elixir
    1.17", "Quokka canary database host is X" and "Quokka staging database host is Y" are said of two
    things. A lead-in before the head ("For the record, ...", "(repeating for the summary) ...") and
    a value after it ("Python for Quokka: 3.11", then "... 3.12") change nothing of what it is about."""
    return bool(older.head and newer.head) and swapped(older.head, newer.head)


def _other_things(older: Statement, newer: Statement) -> bool:
    """Each names what the other never says and they share no name: "Pim's leave ... (was 7 days)"
    is no change of "Teo on leave 2026-11-27, 7 days"; "port is now 9090 (was 8080)", which names
    nothing the older lacks, may be one of "Quokka port: 8080"."""
    return bool(older.names - newer.words and newer.names - older.words and not older.names & newer.names)


def _count(words: frozenset[str], pairs: frozenset[str]) -> int:
    """How many words these are, of a statement whose CJK pairs are `pairs`: a pair of CJK characters
    (`tokens` splits an un-spaced run into overlapping pairs) is no word; the characters the pairs
    cover make about one word in two, so "继续完善" (three pairs) counts two and one word changed
    inside a run (three pairs left out) two."""
    if not pairs:
        return len(words)
    among = words & pairs
    covered = {character for pair in among for character in pair}
    return len(words) - len(among) + (len(covered) + 1) // 2


def _above(score: float) -> float:
    return score * (1 + 1e-6) + 1e-12


def _sorted(ranked: Sequence[Ranked]) -> list[Ranked]:
    return sorted(ranked, key=lambda item: (-item.score, item.row.id))
