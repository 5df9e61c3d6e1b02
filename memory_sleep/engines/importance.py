"""Importance through the model: each entry rated 0-1 for future usefulness, one call per batch,
the offline rater for a batch the model cannot answer."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from memory_sleep.engines.base import RatedEntry, Rater
from memory_sleep.engines.calls import Ask, ModelCalls
from memory_sleep.engines.related import as_attribute, as_data
from memory_sleep.engines.schemas import Answer
from memory_sleep.text import counted, shorten

TEMPLATE = "gc_importance.md.j2"
TEXT_CHARS = 300


class EntryRating(Answer):
    reason: str = Field(description="a few words on what the entry is worth later, before the rating")
    id: str = Field(description="the entry's id as given, e.g. E3")
    importance: float = Field(ge=0, le=1, description="future usefulness, 0 (none) to 1 (essential)")


class ImportanceAnswer(Answer):
    ratings: list[EntryRating]


class LLMRater:
    def __init__(self, calls: ModelCalls, fallback: Rater) -> None:
        self.calls, self.fallback = calls, fallback

    def rate(self, entries: Sequence[RatedEntry]) -> dict[int, float]:
        if not entries:
            return {}
        refs = {f"E{number}": entry for number, entry in enumerate(entries, start=1)}
        values = {
            "entries": [
                {
                    "id": ref,
                    "kind": entry.kind,
                    "category": as_attribute(entry.category),
                    "day": entry.day.isoformat() if entry.day else None,
                    "days_written": entry.days_written,
                    "text": as_data(shorten(entry.text, TEXT_CHARS)),
                }
                for ref, entry in refs.items()
            ]
        }
        answer = self.calls.ask(
            Ask(
                phase="gc",
                template=TEMPLATE,
                values=values,
                schema=ImportanceAnswer,
                what=f"importance of {counted(len(entries), 'entry', 'entries')}",
                check=lambda answer: _problems(answer, refs),
            )
        )
        if answer is None:
            return self.fallback.rate(entries)
        return {refs[rating.id].id: rating.importance for rating in answer.ratings}


def _problems(answer: ImportanceAnswer, refs: dict[str, RatedEntry]) -> list[str]:
    seen = [rating.id for rating in answer.ratings]
    problems = [
        f"entry {ref} needs exactly one rating (got {seen.count(ref)})"
        for ref in refs
        if seen.count(ref) != 1
    ]
    problems.extend(
        f"entry {ref} does not exist (only {', '.join(refs)} exist)" for ref in seen if ref not in refs
    )
    return problems
