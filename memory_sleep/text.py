"""Text helpers shared by the phases: normalising, tokenising, similarity and date mentions."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date, timedelta
from functools import lru_cache
from itertools import pairwise

_LETTER = (
    r"[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"  # any script's letters or digits but CJK
)
_WORD = re.compile(rf"{_LETTER}(?:{_LETTER}|[_.:/-])*{_LETTER}|{_LETTER}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_MARKUP = re.compile(r"[*_`~>#]|\[[ xX]\]")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "we",
        "i",
        "you",
        "he",
        "she",
        "they",
        "our",
        "my",
        "your",
        "their",
        "me",
        "us",
        "them",
        "will",
        "would",
        "should",
        "can",
        "could",
        "do",
        "did",
        "does",
        "done",
        "has",
        "have",
        "had",
        "not",
        "no",
        "so",
        "if",
        "then",
        "than",
        "also",
        "just",
        "into",
        "out",
        "up",
        "about",
        "over",
        "after",
        "before",
        "via",
        "per",
    ]
)


def stable_id(*parts: str) -> str:
    """A short hash identifying content; equal inputs give equal ids across runs and machines."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:12]


def normalize(text: str) -> str:
    """Lower-cased, markup-free, whitespace-folded text for comparisons and ids."""
    text = unicodedata.normalize("NFKC", text)
    text = _MARKUP.sub(" ", text)
    return " ".join(text.lower().split())


@lru_cache(maxsize=65_536)
def tokens(text: str) -> frozenset[str]:
    """Content words of a text; CJK characters count as bigrams so that un-spaced scripts compare."""
    norm = normalize(text)
    words = {w.strip(".:/-") for w in _WORD.findall(norm)}
    result = {w for w in words if w and w not in _STOPWORDS}
    cjk = _CJK.findall(norm)
    result.update(a + b for a, b in pairwise(cjk))
    if len(cjk) == 1:
        result.add(cjk[0])
    return frozenset(result)


def word_sequence(text: str) -> list[str]:
    """The content words of `tokens`, in the order the text has them (CJK left out)."""
    words = (w.strip(".:/-") for w in _WORD.findall(normalize(text)))
    return [w for w in words if w and w not in _STOPWORDS]


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two token sets, relative to the smaller one (containment), in [0, 1]."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Intersection over union of two token sets."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def shorten(text: str, limit: int) -> str:
    """One line, at most `limit` characters, cut at a word boundary with an ellipsis."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b")
_SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")\b", re.IGNORECASE)
_DEADLINE_CUE = re.compile(
    r"\b(by|before|due|deadline|until|no later than|eod|bis|antes del?)\b", re.IGNORECASE
)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def mentioned_dates(text: str, written_on: date) -> list[tuple[int, date]]:
    """Dates a text mentions with their positions, resolved against the day it was written."""
    found: list[tuple[int, date]] = []
    for match in _ISO_DATE.finditer(text):
        if (parsed := _safe_date(*(int(part) for part in match.groups()))) is not None:
            found.append((match.start(), parsed))
    for match in _MONTH_DAY.finditer(text):
        month = _MONTHS.get(match.group(1).lower())
        if month and (parsed := _safe_date(written_on.year, month, int(match.group(2)))) is not None:
            if parsed < written_on - timedelta(days=180):
                parsed = _safe_date(written_on.year + 1, month, int(match.group(2))) or parsed
            found.append((match.start(), parsed))
    for match in _SLASH_DATE.finditer(text):
        month_text, day_text, year_text = match.groups()
        year = written_on.year
        if year_text:
            year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        if (parsed := _safe_date(year, int(month_text), int(day_text))) is not None:
            found.append((match.start(), parsed))
    for match in _WEEKDAY.finditer(text):
        ahead = (_WEEKDAYS.index(match.group(1).lower()) - written_on.weekday()) % 7 or 7
        found.append((match.start(), written_on + timedelta(days=ahead)))
    return sorted(found, key=lambda pair: pair[0])


def deadline_in(text: str, written_on: date) -> date | None:
    """The deadline a text states ("by Dec 3", "due 2026-12-03", "before Friday"), if any."""
    match = _DEADLINE_CUE.search(text)
    if not match:
        return None
    dates = mentioned_dates(text[match.start() :], written_on)
    return dates[0][1] if dates else None
