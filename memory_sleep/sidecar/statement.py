"""What a line states, as recall compares lines: its words, names, key and value, the typed values it
states now and those it says are gone, its head and the choice it states (sidecar/restatement.py
decides from two of them whether the newer restates the older). What a line states leaves out a remark
ahead of it ("Again for the record: "), its list marks, a MEMORY.md entry's "(previously: ...)" and a
weekly copy's place: none is news of what it says.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from functools import cached_property

from memory_sleep.engines.offline.cues import DECISION
from memory_sleep.engines.offline.matching import predicate, subject_phrase, without_lead_in
from memory_sleep.engines.offline.repeats import remark_ahead
from memory_sleep.engines.offline.statements import KEY_WORDS
from memory_sleep.engines.offline.values import current_claim, replaced_values, typed_values
from memory_sleep.language import LEAD_INS
from memory_sleep.sidecar.rows import DatedMatch, EntryRow
from memory_sleep.text import (
    CLOCK,
    LIST_MARK,
    STATED_DAY,
    WORD_MARKS,
    is_cjk,
    tokens,
    without_ending,
    without_history,
    word_sequence,
)

_WEEKLY_LABEL = re.compile(r"^[-*] \w+: ")
NAME = re.compile(r"\b(?:[a-z]+(?=[A-Z]))?[A-Z][\w.-]*")  # "Quokka", "gRPC", "iOS"
_NAME_RUN = re.compile(r"\b[A-Z][\w.-]*(?: [A-Z][\w.-]*)*")  # "Grafana Cloud"
_CLAUSE_END = re.compile(r"\s[—–-]\s|[;,.](?:\s|$)")
_IDENTIFIER = re.compile(r"`[^`\n]+`|\b\w+_\w+\b")  # a code span, a snake_case word
_NOTE_PLACE = re.compile(
    r"\s*\([^()\s]+\.md:\d+\)\s*$"
)  # "(memory/2026-10-03.md:80)": a pending item's place
_CUT_END = re.compile(rf"[\w{re.escape(WORD_MARKS)}]*…\s*$")  # a cut-off last word and the ellipsis
_KEYED = re.compile(
    r"^(?:.*:\s+)?(?P<key>(?:(?!\.\s)[^:\n]){3,60}?)\s*:\s+(?P<value>.+)$", re.DOTALL
)  # the last "Key: value"; a key is on one line ("next: X\n  owner: Y" has the key "owner") and in one
# sentence ("Vega search: Meilisearch. Reason: ..." has the key "Vega search")
NUMBER = re.compile(r"\d")
WHICH = re.compile(r"v?\d+(?:\.\d+)+|\d{4}-\d{2}-\d{2}")  # a version, a day: which release, which event
_LIST_MARKS = re.compile(rf"(?:{LIST_MARK.pattern})+".replace("(?:^", "^(?:", 1))  # "- 3. ": list marks
# "[13:03] ", "**14:29** ", not the bracket a remark after it opens with ("21:11 (repeating for ...) ")
_STAMP = re.compile(r"^[\W_]*" + CLOCK.pattern + r"(?:(?![(\[{])[\W_])*")


@dataclass(frozen=True)
class Statement:
    """What a result states: its words, and (read only when a link asks: most results are only
    compared by their words) its names and its key."""

    words: frozenset[str]
    said: frozenset[str]  # every word, clock times too
    text: str
    # the words of the projects it is filed under and need not name: a MEMORY.md entry's "[Orion]" tag,
    # a note line under a "## Orion" heading (sidecar/successors.py `filed`; only recall sets them)
    filed: frozenset[str] = frozenset()

    @property
    def about(self) -> frozenset[str]:
        """Its words and those of the projects it is filed under: what it is about."""
        return self.words | self.filed

    @cached_property
    def names(self) -> frozenset[str]:
        """Its capitalised words, "gRPC" and "iOS" too (a sentence's first too: "Quokka api ..." names a
        thing; leaving out a capitalised verb only costs a missed link) and every word of its identifiers
        (`ledger_sync_v2`: a line naming `invoice_export_v2` is about another thing), lower-cased as
        `words` are."""
        return frozenset(name.lower() for name in NAME.findall(self.text)) | {
            word for identifier in _IDENTIFIER.findall(self.text) for word in tokens(identifier)
        }

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Its code spans and snake_case words, each one word: "async_ingest"."""
        return frozenset(identifier.strip("`").lower() for identifier in _IDENTIFIER.findall(self.text))

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
    def value_text(self) -> str:
        """Its last key's value, "" without a key."""
        keyed = self._key_value
        return "" if keyed is None else keyed["value"]

    @cached_property
    def opening(self) -> tuple[str, ...]:
        """Its words in order, without the clock time that stamps a note line."""
        return tuple(word for word in word_sequence(self._plain) if not CLOCK.fullmatch(word))

    @cached_property
    def value_words(self) -> frozenset[str]:
        """The words of its last key's value."""
        return tokens(self.value_text)

    @cached_property
    def _plain(self) -> str:
        """Its text without the clock time that stamps a note line nor bold marks ("**Key:** value")."""
        return _STAMP.sub("", self.text.replace("*", "").strip())

    @cached_property
    def _key_value(self) -> re.Match[str] | None:
        """Its last "Key: value", read without its history: "X: v (previously: w)" has the key X."""
        return _KEYED.match(without_history(self._plain))

    @cached_property
    def _keyed(self) -> tuple[frozenset[str], str | None]:
        keyed = self._key_value
        if keyed is None:
            return frozenset(), None
        key = frozenset(word for word in tokens(keyed["key"]) if not CLOCK.fullmatch(word))
        if len(key) < KEY_WORDS:
            return frozenset(), None
        return key, next((word for word in word_sequence(keyed["value"]) if NUMBER.search(word)), None)

    @cached_property
    def head(self) -> str:
        """What it is said of and the first word said of it: its last key and that key's first value
        word ("Retention for Quokka invoices 14"), else its subject and verb ("Quokka canary database
        host is"); "" when no key, verb or colon ends its subject ("Pim owns the notifier")."""
        keyed = self._key_value
        if keyed is not None:
            return " ".join([keyed["key"], *word_sequence(keyed["value"])[:1]])
        text = self._plain
        said = predicate(text)
        return " ".join([subject_phrase(text), *word_sequence(said)[:1]]) if said else ""

    @cached_property
    def which(self) -> frozenset[str]:
        """The versions and days its subject or its key names: which release or which day's event it
        is about ("Quokka v0.12.2 scope changed: ...", "Pim's leave from 2026-12-09 is now ...",
        "Again: scope of Quokka v0.13.1: ...")."""
        named = tokens(subject_phrase(self._plain)) | self.key
        return frozenset(word for word in named if WHICH.fullmatch(word))

    @cached_property
    def pairs(self) -> frozenset[str]:
        """Its words that are pairs of CJK characters (`tokens` splits an un-spaced run into them)."""
        return frozenset(word for word in self.words if is_cjk(word))

    @cached_property
    def choice(self) -> tuple[frozenset[str], frozenset[str]] | None:
        """Of the first two names of its first clause, a label aside, the first word of the first (what
        a choice is of) and the words of the second (what it chose): "Quokka" and "GraphQL" in "Quokka
        API style settled: GraphQL, since ...", "Quokka" and "Render" in "Decision: host Quokka on
        Render"; None without two."""
        clause = _CLAUSE_END.split(without_lead_in(self.text), maxsplit=1)[0]
        runs = [run for run in _NAME_RUN.findall(clause) if run.lower() not in LEAD_INS]
        return (tokens(runs[0].split()[0]), tokens(runs[1])) if len(runs) > 1 else None

    @cached_property
    def decision(self) -> bool:
        """Whether it states a choice (engines/offline/cues.py: "Decided: ...", "... settled: X")."""
        return DECISION.search(self.text) is not None

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
        text = self._plain
        subject = subject_phrase(text) if predicate(text) else ""  # a verb or key ends its subject
        return _typed(without_history(text)) - _typed(subject) - self.which

    @cached_property
    def claimed(self) -> frozenset[str]:
        """Every typed value it claims now, those naming its subject or release too: "Quokka notifier
        rewritten from Elixir 1.17 to Rust 1.79" claims Rust 1.79."""
        return _typed(self.claim)

    @cached_property
    def value_words_typed(self) -> frozenset[str]:
        """The words of the typed values it states."""
        return frozenset(word for value in self.values for word in tokens(value))

    @cached_property
    def fields(self) -> tuple[Statement, ...]:
        """The lines set under its first that each state a named key's value ("- iOS review: 2 apps
        rejected" over "  - Sheikhify iOS: REJECTED"): a status board's rows, each a statement of its
        own. A key naming nothing ("owner: Pim", "next: ...") says what it is of only with its line's
        parent, so is none."""
        found = []
        for line in self.text.split("\n")[1:]:
            said = stated(line, False, self.filed)
            if said.key and said.key & said.names:
                found.append(said)
        return tuple(found)

    @cached_property
    def gone(self) -> tuple[str, ...]:
        """The values it says are gone: "(was 5432)", "from Kafka to"."""
        return replaced_values(self.text)


def _typed(text: str) -> frozenset[str]:
    return frozenset(value for found in typed_values(text).values() for value in found)


def _bare(text: str, weekly: bool) -> str:
    """The text without what a copy or a note adds to a statement: a weekly copy's label, place and
    ending ("[superseded 2026-11-13 by memory/2026-11-13.md:53]", which quotes what ended it), a
    stated day at its end, a cut-off last word, the clock time stamping a note line, list marks."""
    text = _WEEKLY_LABEL.sub("", without_ending(text)) if weekly else text
    # a stated day ends it, or a pending item's place: only then are the patterns tried at each offset
    if text.rstrip().endswith(")"):
        text = STATED_DAY.sub("", text)
        text = _NOTE_PLACE.sub("", text) if weekly else text
    if text.rstrip().endswith("…"):  # a copy cut short: its last word may be cut too
        text = _CUT_END.sub("", text)
    return _LIST_MARKS.sub("", _STAMP.sub("", text.strip()))  # "3. Pim is out ...": no number of it


def values_key(text: str, kind: str) -> int:
    """The values an entry states now (a version, a day, an address, a port, a count; not the clock
    time that stamps a note line, nor the values it says are gone), as one signed 64-bit key, 0 for
    none. SleepGate counts two entries as copies of one statement only when their keys agree: "Quokka
    v1.11.7 will ship audit log v2" and "Quokka v1.12.5 will ship audit log v2" are two releases, however
    near their embeddings; a MEMORY.md entry, its weekly line and its archive record state the same
    values."""
    found = typed_values(current_claim(_bare(text, kind == "weekly")))
    values = sorted(value for values in found.values() for value in values)
    if not values:
        return 0
    digest = hashlib.blake2b("\n".join(values).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True) or 1  # 0 is kept for "no values"


def statement(row: EntryRow | DatedMatch, filed: frozenset[str] = frozenset()) -> Statement:
    """The words of what a result states: without the clock times that stamp note lines, nor the
    category label and day a weekly summary adds to its copy of an item; `filed`, the words of the
    projects it is filed under (`Statement.filed`)."""
    return stated(row.text, row.kind == "weekly", filed)


@functools.lru_cache(maxsize=4096)  # fold_copies and mark_older read the same results' statements
def stated(text: str, weekly: bool, filed: frozenset[str] = frozenset()) -> Statement:
    text = _bare(text, weekly)
    # "Again for the record: X", "(repeating for the summary) X": the remark is no news of X
    ahead = remark_ahead(text, frozenset(), lead_in=True)
    if ahead is not None:
        text = ahead[1]
    said = tokens(without_history(text))  # "X (previously: Y)" states X; `gone` reads Y
    return Statement(
        said.difference(word for word in said if ":" in word and CLOCK.fullmatch(word)), said, text, filed
    )
