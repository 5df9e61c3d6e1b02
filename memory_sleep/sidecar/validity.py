"""Validity in time, derived from the files: an indexed item became true on its day and stopped being
true when archive.md records the entry that said it superseded, done or finished.

The raw note lines (and weekly lines, and the archive's own copy) that state what such an entry said,
dated from the entry's day up to its ending, share its ending; the note that ended it does not. So
the sidecar holds nothing the files do not say, and an undone run's validity goes with its archive.

Each pass derives every ending again, but matches again only the archived statements whose matches
may have changed; the last pass's are kept in the sidecar (validity_state.py): per statement, the
terms it was matched by and the items that state it; per day, digests of its dated items (with
their contents, and of their ids alone); and the highest id among them. A statement keeps its
matches while its rarest terms are the same (in any order), its matches did not fill the limit
(which ones did then depended on the ranking, which every new item moves), and in its days no item
was deleted for good or moved, no item added since holds one of those terms, and no day whose items
were edited in place holds one of its matches or an item holding one of those terms. A statement
whose matches filled the limit is asked again each pass; found among the same rows as the last
pass's (a digest of them is kept), it keeps the same items, in the new order, and the rows are not
read again. Items added are told apart by their ids (above the last pass's highest), items edited
by a day's ids digesting as they did while its contents do not. The garbage collector's compaction
adds items to old days every night and the week's summary is rewritten in place: neither matches a
statement again unless it could change what it matches. Only the days an item may have joined or
left since are digested again (`_joined`): a year of history is not read every night. A state that
does not read back, or of another version, is dropped: everything is matched again, as the first
pass did.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

from memory_sleep.engines.offline.values import changes_away
from memory_sleep.sidecar.boundary import SidecarStore, in_namespace
from memory_sleep.sidecar.evidence import Evidence, evidence_since
from memory_sleep.sidecar.search import within_budget
from memory_sleep.sidecar.tokenize import query_terms
from memory_sleep.sidecar.validity_state import Matched, ValidityState, keep, load
from memory_sleep.text import is_cjk, tokens, without_ending
from memory_sleep.workspace.archive import (
    archive_text,
    ended_statements,
    says_the_same,
    stated_words,
)
from memory_sleep.workspace.layout import Workspace

Ended = dict[int, tuple[str, str, str | None]]  # entry id: (valid_to, status, ended_by)
CANDIDATES = 100
_KINDS = ("note", "weekly", "archive")
_TERMS_AT_ONCE = 500
# items added or edited since the last pass whose terms are read at once: beyond that (a large
# import), each statement asks the full-text index, as without them
_PROBED_AT_MOST = 20_000
# a term the full-text tokenizer reads as itself, one token: a MATCH of it finds the items holding it
_WORD = re.compile("[a-z0-9]+")
# a day as one term ("2025-12-02"): every summary line of that day states it, so as a statement's
# rarest term it found the day's lines, not the statement's, and filled the limit every night
_DAY_TERM = re.compile(r"\d{4}-\d{2}-\d{2}")


class Day(NamedTuple):
    """The digests of a day's items: all of them, and those up to an earlier pass's highest id."""

    digest: str
    ids: str
    earlier: str | None  # None: no item up to that id
    earlier_ids: str | None
    earlier_items: list[int]
    last: int  # the highest id


class Changes(NamedTuple):
    """Since the last pass: days whose items were deleted for good, moved or came back under an old
    id (`altered`), days that gained items (`grown`), and days whose items were edited in place
    (`edited`, with the ids of all their items); and, where the store can say, the days on which
    the items added since or dated an edited day hold each term (`touched`)."""

    altered: list[str]
    grown: list[str]
    edited: list[str]
    edited_ids: set[int]
    since_id: int  # the last pass's highest id: the items above it were added since
    touched: dict[str, list[str]] | None = None  # term: sorted days
    # the terms the index reads each statement term not of one plain word as ("björn": "bjorn")
    read_as: dict[str, list[str]] | None = None


def update_validity(store: SidecarStore, workspace: Workspace) -> None:
    """Write every item's ending, and the state the next pass starts from (inside the index's
    transaction: the two never disagree)."""
    kept = load(store)
    ended, state = derive_validity(store, workspace, kept.state if kept else None)
    store.set_validity(ended)
    keep(store, state, kept)


def derive_validity(
    store: SidecarStore, workspace: Workspace, previous: ValidityState | None = None
) -> tuple[Ended, ValidityState]:
    """Every indexed item that stopped being true, from archive.md's records, and the state that
    derived it; without `previous`, every statement is matched."""
    statements = ended_statements(archive_text(workspace.archive))
    earlier_id = previous.last_id if previous else 0
    generation, schema = store.generation(), store.schema_version()
    sizes = day_counts(store)
    days = day_digests(store, earlier_id, _joined(store, sizes, previous, schema))
    if previous is not None:  # the days not digested again are as the last pass digested them
        for day in sorted(sizes.keys() - days.keys()):
            days[day] = Day(
                previous.days[day], previous.day_ids[day], previous.days[day], previous.day_ids[day], [], 0
            )
    kept = previous.matched if previous else {}
    spans = [
        (old, ending, _first_day(old.day, ending.day), ending.day.isoformat()) for old, ending in statements
    ]
    keys = [_key(old.text, start, until) for old, _, start, until in spans]
    terms = [
        kept[key].terms if key in kept else _statement_terms(span[0].text)
        for key, span in zip(keys, spans, strict=True)
    ]
    every_term = {term for found in terms for term in found}
    counts = _term_counts(store, every_term)
    changes = _changes(store, days, previous, every_term) if previous else Changes([], [], [], set(), 0)
    matched: dict[str, Matched] = {}
    found: list[Matched] = []
    by_day: dict[str, list[DayItem]] = {}  # a day's items, read once for all its statements
    for key, wanted, (old, _, start, until) in zip(keys, terms, spans, strict=True):
        chosen, first_day_only = _chosen({term: counts[term] for term in wanted if term in counts})
        until = min(until, _day_after(start)) if first_day_only else until
        last = kept.get(key)
        if last is not None and _still(store, last, chosen, start, until, changes):
            found.append(last)
        else:
            known = _known(last, chosen, start, until, changes) if last is not None else None
            day_items = by_day if first_day_only else None
            found.append(_match(store, old.text, wanted, chosen, start, until, last, known, day_items))
        matched[key] = found[-1]
    # the item an ending names as its evidence (the note line of a supersede or close, the entry GC
    # merged or superseded it into) states the change, and in doing so may repeat every word of what
    # it ended ("`flag` (X): off", then "X flag `flag` changed from off to on"); it is the new word,
    # never ended by its own ending
    evidence = evidence_since(
        store,
        (ending.by for (_, ending, _, _), its in zip(spans, found, strict=True) if its.ids and ending.by),
        Evidence(previous.evidence, previous.files) if previous else None,
        previous.generation if previous else None,
    )
    named = evidence.ids
    ended: Ended = {}
    for (_, ending, _, until), its in zip(spans, found, strict=True):
        said = named[ending.by] if its.ids and ending.by else None
        for entry_id in its.ids:
            if entry_id != said:
                ended[entry_id] = (until, ending.status, ending.by)
    return ended, ValidityState(
        days={day: marks.digest for day, marks in days.items()},
        day_ids={day: marks.ids for day, marks in days.items()},
        last_id=max([earlier_id, *(marks.last for marks in days.values())]),
        matched=matched,
        generation=generation,
        schema_version=schema,
        counts=sizes,
        evidence=evidence.ids,
        files=evidence.files,
    )


def _statement_terms(text: str) -> list[str]:
    """The terms a statement is matched by: its words, not the days it names (its span dates them)."""
    return [term for term in query_terms(text) if not _DAY_TERM.fullmatch(term)]


def _chosen(counts: dict[str, int]) -> tuple[list[str], bool]:
    """The terms a statement is matched by, and whether in its first day alone: its rarest terms, whose
    items add up to at most twice the limit, in all its days; when even the rarest is held by more (a
    person's name, said on hundreds of days), that one in its first day alone, which holds the line
    it was written from. Matched by no term, a statement of common words marked no line that states
    it; by its rarest in all its days, it filled the limit and was matched again every night."""
    chosen = within_budget(counts, CANDIDATES * 2)
    if chosen or not counts:
        return chosen, False
    return sorted(counts, key=lambda term: (counts[term], term))[:1], True


@dataclass
class DayItem:
    """An item of a day as `_holding` reads it: its text NFKC-normalized and case-folded (the index's
    `clean` does that and only drops marks and spaces besides, so a term's letters stand in it as in
    the index's text), and its terms once asked for."""

    id: int
    text: str
    folded: str
    terms: frozenset[str] | None = None

    def holds(self, term: str) -> bool:
        """Whether the item holds the index term; its text is split only when it holds the term's
        letters (a term is its word with at most its last letter changed: "companies", "company")."""
        probe = term if len(term) < 3 or is_cjk(term) else term[:-1]
        if not is_cjk(term) and probe not in self.folded:
            return False
        if self.terms is None:
            self.terms = frozenset(query_terms(self.text))
        return term in self.terms


def _holding(
    store: SidecarStore, by_day: dict[str, list[DayItem]], day: str, term: str
) -> list[tuple[int, str, str]]:
    """(id, day, text) of the items dated `day` that hold `term`, in id order, at most the limit: what
    matching the term in that day finds, read from the day's items (once for all its statements)
    rather than from the full-text index, which ranks every item holding a common term in the whole
    history (6 s more for a full derivation at 365 days)."""
    if day not in by_day:
        where, params = in_namespace(store)
        marks = ",".join("?" * len(_KINDS))
        by_day[day] = [
            DayItem(int(entry_id), str(text), unicodedata.normalize("NFKC", str(text)).casefold())
            for entry_id, text in store.db.execute(
                f"SELECT id, text FROM entries WHERE day = ? AND kind IN ({marks}){where} ORDER BY id",
                (day, *_KINDS, *params),
            )
        ]
    return [(item.id, day, item.text) for item in by_day[day] if item.holds(term)][:CANDIDATES]


def _match(
    store: SidecarStore,
    text: str,
    terms: list[str],
    chosen: list[str],
    start: str,
    until: str,
    last: Matched | None = None,
    known: Known | None = None,
    by_day: dict[str, list[DayItem]] | None = None,
) -> Matched:
    """The items dated from `start` to before `until` that state `text`. Whether a row states it
    depends on the row and the statement alone: among the rows `last` was matched among (a statement
    whose matches fill the limit is matched again every pass, as new items move the ranking), the
    same rows state it, in tonight's order; so does each row `known` says `last` was matched among."""
    if not chosen:
        return Matched(terms=terms, chosen=chosen, full=False, ids=[])
    rows = (
        _holding(store, by_day, start, chosen[0])
        if by_day is not None
        else [match[:3] for match in store.dated_matches(chosen, _KINDS, start, until, CANDIDATES)]
    )
    full = len(rows) >= CANDIDATES
    digest = (
        _digest([f"{entry_id} {day} {len(line)} {line}\n" for entry_id, day, line in sorted(rows)])
        if full
        else None
    )
    if last is not None and digest is not None and last.rows == digest:
        stated = set(last.ids)
        ids = [entry_id for entry_id, _, _ in rows if entry_id in stated]
    else:
        said = tokens(text)
        ids = [
            entry_id
            for entry_id, day, line in rows
            if (
                entry_id in known.stated
                if known is not None and entry_id <= known.since_id and day not in known.edited
                else says_the_same(said, stated_words(line), restated=day != start)
                and not changes_away(text, without_ending(line))
            )
        ]
    return Matched(terms=terms, chosen=chosen, full=full, ids=ids, rows=digest)


class Known(NamedTuple):
    """What the last pass read of a statement's rows: each row with an id up to `since_id` dated a day
    not `edited` was among them, and states it if it is one of `stated`."""

    since_id: int
    edited: frozenset[str]
    stated: frozenset[int]


def _known(last: Matched, chosen: list[str], start: str, until: str, changes: Changes) -> Known | None:
    """The rows a statement was matched among last pass, when they were every row holding one of the
    same terms (not the limit) and none of its days lost, moved or brought back an item since: a row
    it finds again that no edit touched since is the same row, and states it as it did then."""
    if not _same_rows(last, chosen, start, until, changes):
        return None
    return Known(changes.since_id, frozenset(changes.edited), frozenset(last.ids))


def _same_rows(last: Matched, chosen: list[str], start: str, until: str, changes: Changes) -> bool:
    """The last pass matched the statement among every row holding the same terms (not the limit), and
    none of its days lost, moved or brought back an item since."""
    return set(last.chosen) == set(chosen) and not last.full and not _within(changes.altered, start, until)


def _still(
    store: SidecarStore,
    last: Matched,
    chosen: list[str],
    start: str,
    until: str,
    changes: Changes,
) -> bool:
    """Whether a statement's last matches are still what matching it again finds: the same rarest
    terms (in any order: they are ranked by their counts, which every new item moves), not the limit
    filled, no item of its days deleted or moved, none added since that holds one of those terms,
    and no item of a day edited since among its matches or holding one of them."""
    if not _same_rows(last, chosen, start, until, changes):
        return False
    edited = [day for day in changes.edited if start <= day < until]
    if edited and not changes.edited_ids.isdisjoint(last.ids):
        return False
    read = _read_as(chosen, changes.read_as)
    if changes.touched is not None and read is not None:
        # the items added since (all dated grown days, or altered ones) and those of edited days: one
        # holds a term only if it holds all that the term reads as
        touched = changes.touched
        return not any(all(_within(touched.get(part, []), start, until) for part in parts) for parts in read)
    if _within(changes.grown, start, until) and store.dated_matches(
        chosen, _KINDS, start, until, 1, changes.since_id
    ):
        return False
    return not any(store.dated_matches(chosen, _KINDS, day, _day_after(day), 1) for day in edited)


def day_counts(store: SidecarStore) -> dict[str, int]:
    """How many items of the matched kinds each day has (the store counts them from its index)."""
    where, params = in_namespace(store)
    marks = ",".join("?" * len(_KINDS))
    rows = store.db.execute(
        f"SELECT day, count(*) FROM entries WHERE day IS NOT NULL AND kind IN ({marks}){where} GROUP BY day",
        (*_KINDS, *params),
    )
    return {str(day): int(count) for day, count in rows}


def _joined(
    store: SidecarStore, counts: dict[str, int], previous: ValidityState | None, schema: int
) -> set[str] | None:
    """The days whose items may have changed since the last pass (None: every day): a day an item
    joined (added, or rewritten or restored into it: each stamps the item with a newer generation)
    and a day holding another number of items (one left: deleted for good or rewritten into another
    day). Any other day holds the same items, unchanged."""
    if previous is None or previous.generation is None or previous.schema_version != schema:
        return None
    where, params = in_namespace(store)
    # the stamp alone in the condition: asked for days and kinds too, SQLite read the day index whole
    rows = store.db.execute(
        f"SELECT day, kind FROM entries WHERE vector_generation > ?{where}", (previous.generation, *params)
    )
    joined = {str(day) for day, kind in rows if day is not None and kind in _KINDS}
    joined.update(day for day, count in counts.items() if previous.counts.get(day) != count)
    return joined | (counts.keys() - previous.days.keys())


def day_digests(store: SidecarStore, earlier_id: int, only: set[str] | None = None) -> dict[str, Day]:
    """Per day (of `only`, or every day), digests of the items of the matched kinds dated that day:
    any item added, edited (its content hash) or deleted for good changes its day's; and those of its
    items up to `earlier_id`."""
    where, params = in_namespace(store)
    marks = ",".join("?" * len(_KINDS))
    query = (
        f"SELECT day, id, kind, content_hash FROM entries WHERE day IS NOT NULL AND kind IN ({marks}){where}"
    )
    if only is None:
        rows: list[tuple[str, int, str, str]] = list(
            store.db.execute(f"{query} ORDER BY day, id", (*_KINDS, *params))
        )
    else:
        wanted, rows = sorted(only), []
        for start in range(0, len(wanted), _TERMS_AT_ONCE):
            chunk = wanted[start : start + _TERMS_AT_ONCE]
            rows.extend(
                store.db.execute(
                    f"{query} AND day IN ({','.join('?' * len(chunk))}) ORDER BY day, id",
                    (*_KINDS, *params, *chunk),
                )
            )
    days: dict[str, Day] = {}
    for day, items in groupby(rows, key=lambda row: str(row[0])):
        group = list(items)  # ids ascend within the day
        cut = bisect_right(group, earlier_id, key=itemgetter(1))
        lines = [f"{entry_id} {kind} {content}\n" for _, entry_id, kind, content in group]
        ids = [f"{entry_id}\n" for _, entry_id, _, _ in group]
        days[day] = Day(
            digest=_digest(lines),
            ids=_digest(ids),
            earlier=_digest(lines[:cut]) if cut else None,
            earlier_ids=_digest(ids[:cut]) if cut else None,
            earlier_items=[row[1] for row in group[:cut]],
            last=group[-1][1],
        )
    return days


def _digest(lines: list[str]) -> str:
    return hashlib.blake2b("".join(lines).encode(), digest_size=8).hexdigest()


def _read_as(chosen: list[str], read_as: dict[str, list[str]] | None) -> list[list[str]] | None:
    """What the index reads each of `chosen` as (a plain word as itself); None when one reads as
    nothing or the store cannot say."""
    read = [[term] if _WORD.fullmatch(term) else (read_as or {}).get(term, []) for term in chosen]
    return read if all(read) else None


def _changes(store: SidecarStore, days: dict[str, Day], previous: ValidityState, terms: set[str]) -> Changes:
    altered, grown, edited = [], [], []
    edited_ids: set[int] = set()
    for day in sorted(days.keys() | previous.days.keys()):
        marks = days.get(day)
        if marks is None or marks.earlier_ids != previous.day_ids.get(day):
            altered.append(day)
            continue
        if marks.earlier != previous.days.get(day):
            edited.append(day)
            edited_ids.update(marks.earlier_items)
        if marks.digest != marks.earlier:
            grown.append(day)
    found = store.dated_terms(previous.last_id, edited, _KINDS, _PROBED_AT_MOST)
    touched: dict[str, list[str]] | None = None
    read_as: dict[str, list[str]] | None = None
    if found is not None:
        touched = {}
        for day, term in sorted(found):
            touched.setdefault(term, []).append(day)
        read_as = store.term_tokens(sorted(term for term in terms if not _WORD.fullmatch(term)))
    return Changes(altered, grown, edited, edited_ids, previous.last_id, touched, read_as)


def _term_counts(store: SidecarStore, terms: set[str]) -> dict[str, int]:
    ordered = sorted(terms)
    counts: dict[str, int] = {}
    for start in range(0, len(ordered), _TERMS_AT_ONCE):
        counts.update(store.term_counts(ordered[start : start + _TERMS_AT_ONCE]))
    return counts


def _within(days: list[str], start: str, until: str) -> bool:
    """Whether any of the sorted `days` falls from `start` to before `until`."""
    at = bisect_left(days, start)
    return at < len(days) and days[at] < until


def _day_after(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def _first_day(day: date | None, ended: date) -> str:
    return (day or ended).isoformat()


def _key(text: str, start: str, until: str) -> str:
    return hashlib.blake2b(f"{start} {until} {text}".encode(), digest_size=12).hexdigest()
