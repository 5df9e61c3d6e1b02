"""The word cues the offline engine recognises, per category: the layout of a note (timestamps, bullets,
fences, checkboxes, bold keys, hex ids, tracebacks) here, the words of each language in the files of
memory_sleep/languages/ (each cue's lists, merged over the languages, make one pattern here)."""

from __future__ import annotations

import re
from itertools import product

from memory_sleep.language import SECTION_NAMES, cue_words
from memory_sleep.text import EMAIL, is_cjk_character

_PART = re.compile(r"\(([^()]*)\)|(\*)|([^()*]+)")  # "(a|b)", a lone "*" (any one word), or literal text


def _phrase(line: str, *, start: bool = True, end: bool = True) -> str:
    """The pattern of one phrase of a language file: "(a|b)" one of its alternatives, a lone "*" any
    word; whole words at an edge that is a letter or digit when `start`/`end` (CJK runs have no spaces)."""
    pattern, options = "", list[list[str]]()
    for group, star, text in _PART.findall(line):
        if star:
            pattern, alternatives = pattern + r"\w+", ["w"]
        elif text:
            pattern, alternatives = pattern + re.escape(text), [text]
        else:
            alternatives = group.split("|")
            pattern += "(?:" + "|".join(map(re.escape, alternatives)) + ")"
        options.append(alternatives)
    spelled = ["".join(parts) for parts in product(*options)]
    first, last = [word[:1] for word in spelled], [word[-1:] for word in spelled]
    return _bound(line, first, start) + pattern + _bound(line, last, end)


def _bound(line: str, edges: list[str], wanted: bool) -> str:
    """A word boundary where the phrase's edge is a letter or digit (CJK runs have no spaces)."""
    wordy = (
        {(edge.isalnum() or edge == "_") and not is_cjk_character(edge) for edge in edges}
        if wanted
        else set()
    )
    if len(wordy) > 1:
        raise ValueError(
            f"cue {line!r}: some alternatives start or end with a letter, some not; write two lines"
        )
    return r"\b" if wordy == {True} else ""


def _lines(cue: str, kind: str, **bounds: bool) -> list[str]:
    return [_phrase(line, **bounds) for line in cue_words(cue, kind)]


def _cue(cue: str) -> list[str]:
    """A cue's words and marks, its labels ("Merke:"), and its patterns, as alternatives."""
    return [
        *_lines(cue, "words"),
        *_lines(cue, "marks", start=False, end=False),
        *(label + r"\s*:" for label in _lines(cue, "labels")),
        *cue_words(cue, "patterns"),
    ]


def _one_of(alternatives: list[str]) -> str:
    return "(?:" + "|".join(alternatives) + ")"


def _words(*patterns: str) -> re.Pattern[str]:
    return re.compile(_one_of(list(patterns)), re.IGNORECASE)


# "14:32", "[14:32:07]", "**08:30 UTC** :": the zone belongs to the time, not to the text after it; a
# bold that opens before the time closes right after it, or the time is part of a bold key
# ("**11:00実行**: ...", kept whole)
_CLOCK_TIME = r"\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:UTC|GMT|[A-Z]{1,3}T|[+-]\d{1,2}(?::?\d{2})?))?\]?"
TIMESTAMP = re.compile(rf"^\s*(?:\*\*{_CLOCK_TIME}\*\*|{_CLOCK_TIME})\s*[-–—:]?\s*")
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")  # a code fence's opening or closing line
CHECKBOX_OPEN = re.compile(r"^\s*(?:[-*+]\s+)?\[ \]\s*")
CHECKBOX_DONE = re.compile(r"^\s*(?:[-*+]\s+)?\[[xX✓]\]\s*")
BOLD_KEY = re.compile(r"^\s*\*\*([^*\n]{1,60}?)(?::\*\*|\*\*:)\s*(.*)$", re.DOTALL)
# a code span, a path or an address: the name of a thing, whose words are no cue ("`knowledge/lessons/x.md`
# created" is no lesson, "see docs/decisions/" no decision); a path has two slashes, a file's extension
# after its slash, or opens with one ("Preserved/rolled back" and "TODO/FIXME" are words, as "设计/决策")
_NAMED = re.compile(
    r"`[^`\n]+`|[a-z]+://\S+|(?<![!-~])(?:[~.]?/[!-~]+|[!-~]*\w/[!-~]*/[!-~]*|[!-~]*\w/[\w-]+\.[A-Za-z]\w*)(?![!-~])"
)


def prose(text: str) -> str:
    """The text with its code spans, paths and addresses blanked: the author's own words, which cues read."""
    return _NAMED.sub(" ", text)


NARRATION = _words(
    r"^(?:"
    + _one_of(_lines("filler", "words", start=False, end=False))
    + r"[,.]?\s+)?"
    + _one_of(_lines("narration", "starts", end=False))
)
DEBUG = _words(
    *_cue("debug"),
    r"\b0x[0-9a-f]{8,}\b",
    r"^Traceback \(most recent call last\)",
    r"^\s*File \"[^\"]+\", line \d+",
    r"^\s*at [\w.$<>]+\(.*:\d+\)",
    r"^\$ \S",
    r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}\S*\s+(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\b",
    r"^(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)[: \]]",
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?\s+)?\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\]",
    r"^[0-9a-f]{7,40} \S",
    r"\bexit (?:code|status) \d+",
    r"^[\w. ]{0,40}(?:Error|Exception)\b:",
    r"^npm (?:ERR|WARN)",
    r"^\s*at Object\.",
)
BRIEFING_HEADING = _words("^" + _one_of(_lines("briefing_heading", "starts")))
RECALLED = _words(*_cue("recalled"))

DECISION = _words(*_cue("decision"))
LESSON = _words(*_cue("lesson"))
_TASK_VERBS = _one_of(_lines("action_verb", "words"))
ACTION = _words(
    # a line that starts with an action section's name: "**下一步**: ...", "Next steps: ..."
    r"^\W*(?:" + "|".join(re.escape(name) for name in SECTION_NAMES["action"]) + r")\W*[:：]",
    # a task with its deadline: "renew the cert by Friday"
    r"^(?:\w+:\s+)?" + _TASK_VERBS + r"\s+\S+.*" + _one_of(_lines("deadline", "words")),
    *_cue("action"),
)
# a value that opens with what is to be done: "fix the cron job", "renew the cert"
TASK_VERB = _words("^" + _TASK_VERBS)
# an absence notice (absences.py reads who, from when, until when): the words for being away, right
# after the name or after the notice's first day; the words before its last day; its length's units
AWAY = _words(*_lines("away", "words"))
AWAY_AFTER_DAYS = _words(*_lines("away_after_days", "words"))
AWAY_UNTIL = _one_of(_lines("away_until", "words"))
AWAY_DAYS = _one_of(_lines("away_days", "words"))
AWAY_WEEKS = _one_of(_lines("away_weeks", "words"))
RELATIONSHIP = _words(
    # a person named with the organisation they are from: "Ana (Contoso) wants ...", "Ines (Fabrikam) ist ..."
    r"(?-i:^[A-ZÀ-Þ][a-zß-ÿ]+ \([A-ZÀ-Þ][a-zß-ÿ][\w&.' -]{0,30}\) [a-zß-ÿ])",
    EMAIL.pattern,
    *_cue("relationship"),
)
STATUS = _words(*_cue("status"))
FINISHED = _words(*_cue("finished"))
BLOCKED = _words(*_cue("blocked"))
_ITEM_START = r"^\s*(?:[-*+]\s+)?"
DONE = _words(  # in this order: DONE.sub takes the first that matches where several do
    "^" + _one_of(_lines("done", "starts")) + "[：:]",
    *cue_words("done", "patterns"),
    *_lines("done", "words"),
    *_lines("done", "marks", start=False, end=False),
    "✅",
    _ITEM_START + r"(?:✅|☑️|✔️?)",
    _ITEM_START + _one_of(_lines("done", "labels")) + r"\s*[:!-]",
)
# a value that changed: "retention changed 7 days → 365 days", "got rewritten from Rust to Go",
# "Corvus bumped Node 22.9 → 20.12" (a fact, however routine "bumped" sounds)
VALUE_CHANGED = _words(*_cue("value_changed"))
FACT = _words(
    r"(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b)",
    r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b",
    r"\bs3://|gs://",
    VALUE_CHANGED.pattern,
    r"\b[\w.-]+\.(?:internal|local|com|io|net|org|dev|app)(?::\d+)?\b",
    r"https?://",
    r"\bv\d+\.\d+",
    r"[$€£]\s?\d",  # an amount of money, as the typed values read one
    r"\b\d+ ?(?:(?:GB|MB|ms|req/s|rps)\b|%)",  # "50% of", "12%": no word need follow the sign
    *_cue("fact"),
)
DECLARATIVE = re.compile(
    r"^[^\n:]{2,60}?(?:\s" + _one_of(_lines("declarative_verb", "words")) + r"\s|:\s+\S)[^\n]{1,120}$",
    re.IGNORECASE,
)
GENERIC_HEADINGS = frozenset(
    word.lower() for line in cue_words("generic_heading", "words") for word in line.split()
)
