"""Offline REM: match each kept item to MEMORY.md entries lexically and pick noop/update/add/supersede."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ... import matching
from ...memory_doc import SECTION_FOR
from ...models import EntryView, KeptItem, Operation
from ...text import jaccard, shorten, similarity, tokens
from . import cues

ENTRY_MAX_CHARS = 200
_SAME = 0.8
_RELATED = 0.5
_RESTATED = 0.25
_NEW_WORDS = 0.2  # a repeat may bring at most this share of words the entry lacks
_SAME_SUBJECT = 0.75
# a statement may change one filed in another of these ("Nadia moved to ..." vs "Nadia is in ...")
_STATEMENT_SECTIONS = frozenset({"Facts", "Decisions", "People"})
_ELABORATES = 0.8  # share of an entry's words a newer text must repeat to count as its new wording
_VALUE = re.compile(r"\d[\w.:/-]*|\b[\w-]+\.(?:internal|local|com|io|net|org|dev|app)\b")
_KEY_VALUE = re.compile(r"^\s*([^:\n]{2,40}):\s+(\S.*)$")
_CLAUSE_END = re.compile(r"(?<!\d)[.;]\s|\s[—–]\s|\s-\s")
_LABELS = frozenset(
    [
        "note",
        "todo",
        "update",
        "summary",
        "lesson",
        "til",
        "status",
        "fyi",
        "done",
        "next",
        "plan",
        "idea",
        "question",
        "answer",
        "reason",
        "why",
        "eod",
        "correction",
        "important",
        "reminder",
        "action",
        "contact",
        "heads-up",
        "blocker",
        "news",
    ]
)


@dataclass(eq=False)  # compared by identity in the index
class _Candidate:
    ref: str
    section: str
    topic: str | None
    text: str
    words: frozenset[str]
    order: int = 0


class _Candidates:
    """Entries to compare against, with an inverted index so an item is scored only against entries
    that share a word with it."""

    def __init__(self, entries: Sequence[EntryView]) -> None:
        self.all: list[_Candidate] = []
        self.by_word: dict[str, list[_Candidate]] = defaultdict(list)
        for entry in entries:
            self.add(_Candidate(entry.ref, entry.section, entry.topic, entry.text, tokens(entry.text)))

    def add(self, candidate: _Candidate) -> None:
        candidate.order = len(self.all)
        self.all.append(candidate)
        for word in candidate.words:
            self.by_word[word].append(candidate)

    def sharing_words(self, words: frozenset[str]) -> list[_Candidate]:
        seen: dict[int, _Candidate] = {}
        for word in words:
            for candidate in self.by_word.get(word, ()):
                seen.setdefault(id(candidate), candidate)
        return sorted(seen.values(), key=lambda candidate: candidate.order)

    def rewrite(self, ref: str, text: str) -> None:
        """New wording for an entry; postings of words it lost stay (scores use `words`, not the index)."""
        for candidate in self.all:
            if candidate.ref == ref:
                words = tokens(text)
                for word in words - candidate.words:
                    self.by_word[word].append(candidate)
                candidate.text, candidate.words = text, words


class OfflineIntegrator:
    """Deterministic REM decisions; newer notes win over older entries."""

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        candidates = _Candidates(entries)
        operations = []
        for kept in items:
            text = entry_text(kept)
            operation = _decide(kept, text, candidates.sharing_words(tokens(text)))
            operations.append(operation)
            if operation.op == "add":
                section = SECTION_FOR.get(kept.category, "Facts")
                candidates.add(_Candidate(kept.item.id, section, kept.topic, text, tokens(text)))
            elif operation.op in ("update", "supersede") and operation.target:
                candidates.rewrite(operation.target, text)
        return operations


def entry_text(kept: KeptItem) -> str:
    """The one-line MEMORY.md wording of a kept item: markup stripped, lines joined, length capped."""
    lines = []
    for line in kept.item.text.splitlines():
        line = cues.BULLET.sub("", line.strip(), count=1)
        line = cues.CHECKBOX_OPEN.sub("", line, count=1)
        line = cues.TIMESTAMP.sub("", line, count=1)
        line = re.sub(r"\*\*([^*]+)\*\*", r"\1", line).strip()
        if line:
            lines.append(line.rstrip(".;"))
    lead = re.sub(r"\*\*([^*]+)\*\*", r"\1", kept.item.lead or "").strip()
    text = shorten((f"{lead}: " if lead else "") + "; ".join(lines), ENTRY_MAX_CHARS)
    if kept.topic and text.lower().startswith(kept.topic.lower() + ":"):
        text = text[len(kept.topic) + 1 :].strip()
    if kept.deadline and kept.deadline.isoformat() not in text:
        text = f"{text} (due {kept.deadline.isoformat()})"
    return text


def _decide(kept: KeptItem, text: str, candidates: Sequence[_Candidate]) -> Operation:
    words = tokens(text)
    section = SECTION_FOR.get(kept.category)
    item_id = kept.item.id
    comparable = [c for c in candidates if not (kept.topic and c.topic and c.topic != kept.topic)]
    scored = sorted(((similarity(words, c.words), c) for c in comparable), key=lambda pair: -pair[0])
    best_score, best = scored[0] if scored else (0.0, None)
    if (
        best is not None
        and best_score >= _SAME
        and jaccard(words, best.words) >= 0.5
        and len(words - best.words) <= max(1, _NEW_WORDS * len(words))
        and (kept.category == "lesson" or not matching.values_conflict(text, best.text))
    ):
        return _noop(item_id, best, "already in memory")
    if kept.category == "lesson":
        lesson = tokens(_first_clause(text))
        for _, candidate in scored[:5]:
            known = tokens(_first_clause(candidate.text))
            if candidate.section == section and len(lesson) >= 3 and jaccard(lesson, known) >= 0.8:
                return _noop(item_id, candidate, "the same lesson, told again")
    same_section = [c for c in comparable if c.section == section]
    statement_sections = _STATEMENT_SECTIONS if section in _STATEMENT_SECTIONS else {section}
    rival = _contradicted(kept, text, [c for c in comparable if c.section in statement_sections])
    if rival is not None:
        return Operation(
            item_id=item_id,
            op="supersede",
            target=rival.ref,
            text=text,
            reason="newer statement on the same subject",
        )
    for score, candidate in scored:
        if candidate.section == section and _restates(text, candidate.text, score):
            return _noop(item_id, candidate, "restates a fact already in memory")
    for score, candidate in scored:
        if score < _RELATED:
            break
        if candidate.section != section:
            continue
        elaborates = len(words & candidate.words) >= _ELABORATES * len(candidate.words)
        if elaborates and jaccard(words, candidate.words) >= 0.4:
            return Operation(
                item_id=item_id,
                op="update",
                target=candidate.ref,
                text=text,
                reason="newer wording of an entry",
            )
    if kept.category == "action" and kept.deadline:
        same_task = _same_deadline_task(kept, words, same_section)
        if same_task is not None:
            return Operation(
                item_id=item_id, op="update", target=same_task.ref, text=text, reason="news on an open action"
            )
    return Operation(item_id=item_id, op="add", text=text, reason="new")


def _noop(item_id: str, candidate: _Candidate, reason: str) -> Operation:
    return Operation(item_id=item_id, op="noop", target=candidate.ref, reason=reason)


def _contradicted(kept: KeptItem, text: str, same_section: Sequence[_Candidate]) -> _Candidate | None:
    """An entry this newer item changes: the same key or subject with a new value of the same kind,
    or an explicit reversal ("switching back to", "instead of", "reversing") of the same subject."""
    if kept.category not in ("decision", "fact", "relationship", "status"):
        return None
    reversal = bool(cues.REVERSAL.search(text))
    key = _subject_key(text)
    own_subject = matching.subject(text)
    first_clause = _subject_words(text)
    best, best_score = None, 0.0
    for candidate in same_section:
        if key and key == _subject_key(candidate.text) and _value_part(text) != _value_part(candidate.text):
            return candidate
        other = matching.subject(candidate.text)
        same_subject = (
            own_subject <= other or other <= own_subject or jaccard(own_subject, other) >= _SAME_SUBJECT
        )
        if own_subject and other and same_subject and matching.values_conflict(text, candidate.text):
            score = 1.0 + jaccard(own_subject, other)
            if score > best_score:
                best, best_score = candidate, score
            continue
        if matching.same_named_thing(text, candidate.text) and matching.values_conflict(
            text, candidate.text, matching.IDENTITY_KINDS
        ):
            return candidate  # "Noah ... has a new address: noah.z@..." after "contact: Noah, noah@..."
        own_values = matching.typed_values(_first_clause(text))
        if not reversal or (
            own_values and not own_values.keys() & matching.typed_values(candidate.text).keys()
        ):
            continue
        other_clause = _subject_words(candidate.text)
        overlap = similarity(first_clause, other_clause)
        if len(first_clause & other_clause) >= 2 and overlap >= 0.4 and overlap > best_score:
            best, best_score = candidate, overlap
    return best


def _same_deadline_task(
    kept: KeptItem, words: frozenset[str], actions: Sequence[_Candidate]
) -> _Candidate | None:
    assert kept.deadline is not None
    due = kept.deadline.isoformat()
    for candidate in actions:
        shared = _informative(words) & _informative(candidate.words)
        if due in candidate.text and (len(shared) >= 2 or any(len(word) >= 6 for word in shared)):
            return candidate
    return None


@lru_cache(maxsize=16_384)
def _first_clause(text: str) -> str:
    return _CLAUSE_END.split(text, maxsplit=1)[0]


@lru_cache(maxsize=16_384)
def _subject_words(text: str) -> frozenset[str]:
    """Content words of the first clause, without values and decision vocabulary."""
    return frozenset(
        w for w in tokens(_first_clause(text)) if not _VALUE.fullmatch(w) and w not in matching.NOT_SUBJECT
    )


def _informative(words: frozenset[str]) -> frozenset[str]:
    return frozenset(
        w for w in words if len(w) >= 4 and w not in matching.NOT_SUBJECT and not _VALUE.fullmatch(w)
    )


def _restates(a: str, b: str, word_similarity: float) -> bool:
    """Both name the same host, URL or identifier, and either the wording or more values agree."""
    shared = set(_VALUE.findall(a.lower())) & set(_VALUE.findall(b.lower()))
    distinctive = any(len(value) >= 6 and any(ch.isalpha() for ch in value) for value in shared)
    return distinctive and (word_similarity >= _RESTATED or len(shared) >= 2)


def _subject_key(text: str) -> str | None:
    """The key of a `Key: value` statement, unless the key is a label such as "Decided" or "TODO"."""
    match = _KEY_VALUE.match(text)
    if not match:
        return None
    words = tokens(match.group(1)) - matching.NOT_SUBJECT - _LABELS
    return " ".join(sorted(words)) or None


def _value_part(text: str) -> str:
    match = _KEY_VALUE.match(text)
    return match.group(2).strip().lower() if match else text.lower()
