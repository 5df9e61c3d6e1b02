"""Words of human languages that the tokenizer and the offline engine need, read once from the files
in memory_sleep/languages/ (one per language; their lists are merged, since notes mix languages).

Plain dataclasses, not pydantic models: every process reads these files, a recall included, and
importing pydantic cost a recall ~90 ms. The files ship with the package; an unknown key in one is
still an error naming the file, and tests/test_language.py checks every value is text."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Sections:
    """Section names by what their items are, one name a line."""

    decision: str = ""
    lesson: str = ""
    action: str = ""
    blocker: str = ""
    people: str = ""
    fact: str = ""


@dataclass(frozen=True)
class Changes:
    """Words that mark a value as no longer current, and a note as a repeat, one phrase a line."""

    old_value: str = ""
    old_value_in_text: str = ""
    negation: str = ""
    instead: str = ""
    old_between: str = ""
    dropped: str = ""
    dropping: str = ""
    retired: str = ""
    repeat: str = ""
    before_label: str = ""
    now_label: str = ""


@dataclass(frozen=True)
class DoneForms:
    """How a task's own verb says the task is done (see en.toml): where the verb stands in a task,
    ending rules one a line, irregular verbs one a line, words saying it is not done yet one a line."""

    verb: str = "first"
    endings: str = ""
    irregular: str = ""
    not_yet: str = ""


@dataclass(frozen=True)
class CueWords:
    """The words of one word cue of the offline engine (memory_sleep/engines/offline/cues.py says how
    each cue uses them), one phrase a line; see en.toml for how a phrase is written."""

    words: str = ""
    marks: str = ""
    starts: str = ""
    labels: str = ""
    patterns: str = ""


@dataclass(frozen=True)
class Cues:
    """The word cues of the offline engine, by what they tell of a note's line."""

    filler: CueWords = field(default_factory=CueWords)
    narration: CueWords = field(default_factory=CueWords)
    debug: CueWords = field(default_factory=CueWords)
    recalled: CueWords = field(default_factory=CueWords)
    briefing_heading: CueWords = field(default_factory=CueWords)
    generic_heading: CueWords = field(default_factory=CueWords)
    decision: CueWords = field(default_factory=CueWords)
    lesson: CueWords = field(default_factory=CueWords)
    action: CueWords = field(default_factory=CueWords)
    action_verb: CueWords = field(default_factory=CueWords)
    deadline: CueWords = field(default_factory=CueWords)
    relationship: CueWords = field(default_factory=CueWords)
    status: CueWords = field(default_factory=CueWords)
    finished: CueWords = field(default_factory=CueWords)
    blocked: CueWords = field(default_factory=CueWords)
    done: CueWords = field(default_factory=CueWords)
    value_changed: CueWords = field(default_factory=CueWords)
    fact: CueWords = field(default_factory=CueWords)
    declarative_verb: CueWords = field(default_factory=CueWords)
    task_state: CueWords = field(default_factory=CueWords)
    away: CueWords = field(default_factory=CueWords)
    away_after_days: CueWords = field(default_factory=CueWords)
    away_until: CueWords = field(default_factory=CueWords)
    away_days: CueWords = field(default_factory=CueWords)
    away_weeks: CueWords = field(default_factory=CueWords)


@dataclass(frozen=True)
class LanguageWords:
    """One language's file: stopwords, generic words and log verbs separated by spaces, lead-ins and
    marks of what is still to do one a line, section names by kind, markers of changed values."""

    stopwords: str = ""
    generic: str = ""
    lead_ins: str = ""
    log_verbs: str = ""
    still_open: str = ""
    completed: str = ""
    sections: Sections = field(default_factory=Sections)
    changes: Changes = field(default_factory=Changes)
    done_forms: DoneForms = field(default_factory=DoneForms)
    cues: Cues = field(default_factory=Cues)


def read_languages() -> dict[str, LanguageWords]:
    """Every language file shipped in the package, by file name."""
    return {
        path.name: _language(path, tomllib.loads(path.read_text("utf-8")))
        for path in sorted(Path(__file__).with_name("languages").glob("*.toml"))
    }


def _language(path: Path, data: dict[str, Any]) -> LanguageWords:
    try:
        sections = Sections(**data.pop("sections", {}))
        changes = Changes(**data.pop("changes", {}))
        done_forms = DoneForms(**data.pop("done_forms", {}))
        cues = Cues(**{name: CueWords(**words) for name, words in data.pop("cues", {}).items()})
        return LanguageWords(**data, sections=sections, changes=changes, done_forms=done_forms, cues=cues)
    except TypeError as error:  # an unknown key: "... got an unexpected keyword argument 'x'"
        raise ValueError(f"{path}: {error}") from None


_LANGUAGES = read_languages().values()

STOPWORDS = frozenset(word for language in _LANGUAGES for word in language.stopwords.split())
"""Words left out of content words, search queries and embeddings."""
GENERIC = frozenset(word for language in _LANGUAGES for word in language.generic.split())
"""Words frequent in notes and questions that say nothing about the topic (left out of embeddings)."""
LEAD_INS = tuple(
    sorted(
        {" ".join(line.split()) for language in _LANGUAGES for line in language.lead_ins.splitlines()} - {""},
        key=lambda label: (-len(label), label),
    )
)
"""Labels a note line may start with ("Decided: ...", "Correction: "), lower-case, longest first."""
LEAD_IN_WORDS = frozenset(word for label in LEAD_INS for word in label.split())
"""The words of the lead-in labels: they name no subject and no person."""
LOG_VERBS = frozenset(word for language in _LANGUAGES for word in language.log_verbs.split())
"""Verbs a line of an activity log starts with ("deployed ...", "ran ...")."""


def _marks(lines: Callable[[LanguageWords], str]) -> tuple[str, ...]:
    """One phrase a line of every language, lower-case, longest first."""
    found = {
        " ".join(line.lower().split()) for language in _LANGUAGES for line in lines(language).splitlines()
    }
    return tuple(sorted(found - {""}, key=lambda mark: (-len(mark), mark)))


STILL_OPEN = _marks(lambda language: language.still_open)
"""Words after which a line says what is still to do ("created (pending: the API key)"), longest first."""
COMPLETED = _marks(lambda language: language.completed)
"""Words that say a section's items are done ("Tasks Completed", "已完成"), lower-case."""
DONE_FORMS = tuple(language.done_forms for language in _LANGUAGES if language.done_forms.endings)
"""Each language's done forms of a task's verb (memory_sleep/engines/offline/done_forms.py reads them)."""
NOT_YET = _marks(lambda language: language.done_forms.not_yet)
"""Words that, ahead of a task's verb done, say it is not done yet ("needs to be", "noch nicht"), longest first."""
SECTION_KINDS = ("decision", "lesson", "action", "blocker", "people", "fact")
SECTION_NAMES: dict[str, tuple[str, ...]] = {
    kind: tuple(
        sorted(
            {
                " ".join(line.lower().split())
                for language in _LANGUAGES
                for line in getattr(language.sections, kind).splitlines()
            }
            - {""}
        )
    )
    for kind in SECTION_KINDS
}
"""Section names by kind ("decision": "decisions", "决策", ...), lower-case."""


def _phrases(field: str) -> tuple[str, ...]:
    """A `[changes]` list of every language, lower-case, longest first (so a regex prefers "old one")."""
    found = {
        " ".join(line.lower().split())
        for language in _LANGUAGES
        for line in getattr(language.changes, field).splitlines()
    }
    return tuple(sorted(found - {""}, key=lambda phrase: (-len(phrase), phrase)))


OLD_VALUE_MARKS = _phrases("old_value")
"""Words before an old value in parentheses: "(was 5432)", "(previously: Kafka)"."""
OLD_VALUE_IN_TEXT = _phrases("old_value_in_text")
"""Words before an old value in running text: "was 5432", "previously on Slack"."""
NEGATIONS = _phrases("negation")
"""Words before a value that is not, or no longer, current: "not 5432", "no longer on Slack"."""
INSTEAD = _phrases("instead")
"""Words before the value another one replaces: "instead of Dev"."""


def _frame(phrase: str) -> tuple[str, str]:
    before, dots, after = phrase.partition("...")
    if not (dots and before.strip() and after.strip()):
        raise ValueError(f"old_between {phrase!r}: write the words around the old value as 'from ... to'")
    return before.strip(), after.strip()


OLD_BETWEEN = tuple(_frame(phrase) for phrase in _phrases("old_between"))
"""The words before and after a value that is gone, the new one after them: ("replacing", "with")."""
DROPPED = _phrases("dropped")
"""Words after a value that is gone: "the rebuilt dashboard is dropped"."""
DROPPING = _phrases("dropping")
"""Words before a value that is gone: "Dropping Fly.io, moving to Render"."""
RETIRED = _phrases("retired")
"""Words after an address, host or link no longer in use: "10.0.4.17 is decommissioned"."""
REPEAT_MARKS = _phrases("repeat")
"""Words a note starts with when it says it repeats: "Recap: ...", "To confirm: ..."."""
BEFORE_LABELS = frozenset(_phrases("before_label"))
"""Keys of a line stating the old value of a change told as a pair: "Before:", "之前:"."""
NOW_LABELS = frozenset(_phrases("now_label"))
"""Keys of the line stating its current value: "Now:", "现在:"."""


def cue_words(cue: str, kind: str) -> tuple[str, ...]:
    """One list of one word cue of the offline engine, every language's lines in turn (for the engine
    only: the cues' patterns are built in memory_sleep/engines/offline/cues.py)."""
    return tuple(
        line.strip()
        for language in _LANGUAGES
        for line in getattr(getattr(language.cues, cue), kind).splitlines()
        if line.strip()
    )
