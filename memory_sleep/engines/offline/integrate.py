"""Offline REM: match each kept item to MEMORY.md entries lexically and pick noop/update/add/supersede."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...memory_doc import SECTION_FOR
from ...models import EntryView, KeptItem, Operation
from ...text import jaccard, shorten, similarity, tokens
from . import cues

ENTRY_MAX_CHARS = 240
_SAME = 0.8
_RELATED = 0.5
_VALUE = re.compile(r"\d[\w.:/-]*|\b[\w-]+\.(?:internal|local|com|io|net|org|dev|app)\b")
_KEY_VALUE = re.compile(r"^\s*([^:\n]{2,40}):\s+(\S.*)$")


@dataclass
class _Candidate:
    ref: str | None
    section: str
    topic: str | None
    text: str
    words: frozenset[str]


class OfflineIntegrator:
    """Deterministic REM decisions; newer notes win over older entries."""

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        candidates = [_Candidate(e.ref, e.section, e.topic, e.text, tokens(e.text)) for e in entries]
        operations = []
        for kept in items:
            text = entry_text(kept)
            operation = _decide(kept, text, candidates)
            operations.append(operation)
            if operation.op == "add":
                candidates.append(
                    _Candidate(
                        None,
                        SECTION_FOR.get(kept.category, "Facts"),
                        kept.topic,
                        text,
                        tokens(text),
                    )
                )
            elif operation.op in ("update", "supersede"):
                for candidate in candidates:
                    if candidate.ref == operation.target:
                        candidate.text, candidate.words = text, tokens(text)
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
    text = shorten("; ".join(lines), ENTRY_MAX_CHARS)
    if kept.topic and text.lower().startswith(kept.topic.lower() + ":"):
        text = text[len(kept.topic) + 1 :].strip()
    if kept.deadline and kept.deadline.isoformat() not in text:
        text = f"{text} (due {kept.deadline.isoformat()})"
    return text


def _decide(kept: KeptItem, text: str, candidates: Sequence[_Candidate]) -> Operation:
    words = tokens(text)
    section = SECTION_FOR.get(kept.category)
    best: _Candidate | None = None
    best_score = 0.0
    for candidate in candidates:
        if kept.topic and candidate.topic and candidate.topic != kept.topic:
            continue
        score = similarity(words, candidate.words)
        if score > best_score:
            best, best_score = candidate, score
    item_id = kept.item.id
    if (
        best is not None
        and best_score >= _SAME
        and jaccard(words, best.words) >= 0.5
        and not _values_differ(text, best.text)
    ):
        if best.ref is None:
            return Operation(item_id=item_id, op="noop", reason="repeats an item of this run")
        return Operation(item_id=item_id, op="noop", target=best.ref, reason="already in memory")
    rival = _contradicted(kept, text, words, [c for c in candidates if c.ref and c.section == section])
    if rival is not None:
        return Operation(
            item_id=item_id,
            op="supersede",
            target=rival.ref,
            text=text,
            reason="newer statement on the same subject",
        )
    if (
        best is not None
        and best.ref
        and best.section == section
        and best_score >= _RELATED
        and best.words < words
    ):
        return Operation(
            item_id=item_id, op="update", target=best.ref, text=text, reason="adds detail to an entry"
        )
    return Operation(item_id=item_id, op="add", text=text, reason="new")


def _contradicted(
    kept: KeptItem, text: str, words: frozenset[str], same_section: Sequence[_Candidate]
) -> _Candidate | None:
    """An entry on the same subject that this newer item changes: same key with a new value, or a reversal."""
    if kept.category not in ("decision", "fact", "relationship"):
        return None
    reversal = bool(cues.REVERSAL.search(text))
    key = _subject_key(text)
    best, best_score = None, 0.0
    for candidate in same_section:
        if kept.topic != candidate.topic and (kept.topic is not None and candidate.topic is not None):
            continue
        if key and key == _subject_key(candidate.text) and _value_part(text) != _value_part(candidate.text):
            return candidate
        subject_overlap = jaccard(_without_values(words), _without_values(candidate.words))
        score = subject_overlap + (0.25 if reversal else 0.0)
        differs = _values_differ(text, candidate.text)
        related = (reversal and subject_overlap >= 0.2) or (differs and subject_overlap >= 0.45)
        if related and score > best_score:
            best, best_score = candidate, score
    return best


def _subject_key(text: str) -> str | None:
    match = _KEY_VALUE.match(text)
    return " ".join(tokens(match.group(1))) if match else None


def _value_part(text: str) -> str:
    match = _KEY_VALUE.match(text)
    return match.group(2).strip().lower() if match else text.lower()


def _values_differ(a: str, b: str) -> bool:
    values_a, values_b = set(_VALUE.findall(a.lower())), set(_VALUE.findall(b.lower()))
    return bool(values_a and values_b and values_a.isdisjoint(values_b))


def _without_values(words: frozenset[str]) -> frozenset[str]:
    return frozenset(word for word in words if not _VALUE.fullmatch(word))
