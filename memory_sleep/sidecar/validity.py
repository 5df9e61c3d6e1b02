"""Validity in time, derived from the files: an indexed item became true on its day and stopped being
true when archive.md records the entry that said it superseded, done or finished.

The raw note lines (and weekly lines, and the archive's own copy) that state what such an entry said,
dated from the entry's day up to its ending, share its ending; the note that ended it does not. So
the sidecar holds nothing the files do not say, and an undone run's validity goes with its archive.

Each pass derives every ending again, but matches again only the archived statements whose matches
may have changed; the last pass's are kept in the sidecar (`validity_state`): per statement, the
terms it was matched by and the items that state it, and per day a digest of the dated items. A
statement keeps its matches while its rarest terms are the same, no item of its days was added,
edited or deleted, and its matches did not fill the limit (which ones did then depended on the
ranking, which every new item moves). A state that does not read back, or of another version, is
dropped: everything is matched again, as the first pass did.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from datetime import date
from itertools import groupby

from pydantic import ValidationError

from memory_sleep.models import Strict
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.search import within_budget
from memory_sleep.sidecar.tokenize import query_terms
from memory_sleep.text import tokens
from memory_sleep.workspace.archive import ended_statements, records_since, says_the_same
from memory_sleep.workspace.layout import Workspace

Ended = dict[int, tuple[str, str, str | None]]  # entry id: (valid_to, status, ended_by)
CANDIDATES = 100
STATE_KEY = "validity_state"
VERSION = 1  # of what a statement matches: a state of another version is dropped
_KINDS = ("note", "weekly", "archive")
_TERMS_AT_ONCE = 500


class Matched(Strict):
    """What one archived statement matched: its query terms, the rarest of them it was matched by,
    whether its matches filled the limit, and the items among them that state what it said."""

    terms: list[str]
    chosen: list[str]
    full: bool
    ids: list[int]


class ValidityState(Strict):
    version: int = VERSION
    days: dict[str, str]  # day: digest of the items dated that day (id, kind, content hash)
    matched: dict[str, Matched]  # statement (its text, first and last day): what it matched


def update_validity(store: SidecarStore, workspace: Workspace) -> None:
    """Write every item's ending, and the state the next pass starts from (inside the index's
    transaction: the two never disagree)."""
    ended, state = derive_validity(store, workspace, load_state(store))
    store.set_validity(ended)
    store.set_meta(STATE_KEY, state.model_dump_json())


def load_state(store: SidecarStore) -> ValidityState | None:
    """The last pass's state, or None (none yet, another version, or unreadable: match everything)."""
    raw = store.meta(STATE_KEY)
    if raw is None:
        return None
    try:
        state = ValidityState.model_validate_json(raw)
    except ValidationError:
        return None
    return state if state.version == VERSION else None


def derive_validity(
    store: SidecarStore, workspace: Workspace, previous: ValidityState | None = None
) -> tuple[Ended, ValidityState]:
    """Every indexed item that stopped being true, from archive.md's records, and the state that
    derived it; without `previous`, every statement is matched."""
    try:
        text = workspace.archive.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        text = ""
    statements = ended_statements(records_since(text, date.min))
    days = day_digests(store)
    kept, before = (previous.matched, previous.days) if previous else ({}, days)
    changed = sorted(day for day in days.keys() | before.keys() if days.get(day) != before.get(day))
    spans = [
        (old, ending, _first_day(old.day, ending.day), ending.day.isoformat()) for old, ending in statements
    ]
    keys = [_key(old.text, start, until) for old, _, start, until in spans]
    terms = [
        kept[key].terms if key in kept else query_terms(span[0].text)
        for key, span in zip(keys, spans, strict=True)
    ]
    counts = _term_counts(store, {term for found in terms for term in found})
    ended: Ended = {}
    matched: dict[str, Matched] = {}
    for key, wanted, (old, ending, start, until) in zip(keys, terms, spans, strict=True):
        chosen = within_budget({term: counts[term] for term in wanted if term in counts}, CANDIDATES * 2)
        last = kept.get(key)
        if (
            last is not None
            and last.chosen == chosen
            and not last.full
            and not _within(changed, start, until)
        ):
            found = last
        else:
            found = _match(store, old.text, wanted, chosen, start, until)
        matched[key] = found
        for entry_id in found.ids:
            ended[entry_id] = (until, ending.status, ending.by)
    return ended, ValidityState(days=days, matched=matched)


def _match(
    store: SidecarStore, text: str, terms: list[str], chosen: list[str], start: str, until: str
) -> Matched:
    """The items dated from `start` to before `until` that state `text`."""
    if not chosen:
        return Matched(terms=terms, chosen=chosen, full=False, ids=[])
    said = tokens(text)
    rows = store.dated_matches(chosen, _KINDS, start, until, CANDIDATES)
    ids = [
        entry_id for entry_id, day, line in rows if says_the_same(said, tokens(line), restated=day != start)
    ]
    return Matched(terms=terms, chosen=chosen, full=len(rows) >= CANDIDATES, ids=ids)


def day_digests(store: SidecarStore) -> dict[str, str]:
    """Per day, a digest of the items of the matched kinds dated that day: any item added, edited
    (its content hash) or deleted for good changes its day's."""
    where, params = ("", ()) if store.namespace is None else (" AND namespace = ?", (store.namespace,))
    marks = ",".join("?" * len(_KINDS))
    rows = store.db.execute(
        f"SELECT day, id, kind, content_hash FROM entries WHERE day IS NOT NULL AND kind IN ({marks}){where}"
        " ORDER BY day, id",
        (*_KINDS, *params),
    )
    digests: dict[str, str] = {}
    for day, items in groupby(rows, key=lambda row: str(row[0])):
        digest = hashlib.blake2b(digest_size=8)
        for _, entry_id, kind, content in items:
            digest.update(f"{entry_id} {kind} {content}\n".encode())
        digests[day] = digest.hexdigest()
    return digests


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


def _first_day(day: date | None, ended: date) -> str:
    return (day or ended).isoformat()


def _key(text: str, start: str, until: str) -> str:
    return hashlib.blake2b(f"{start} {until} {text}".encode(), digest_size=12).hexdigest()
