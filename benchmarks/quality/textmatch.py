"""How the scorer decides that two texts say the same thing: informative tokens, containment, values."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from memory_sleep.text import jaccard, tokens

_TIMESTAMP = re.compile(r"^\d{1,2}:\d{2}(?::\d{2})?$")
_PREVIOUSLY = "(previously:"


def informative_tokens(text: str) -> frozenset[str]:
    """memory_sleep.text.tokens without clock times ("14:32" is when, not what); a literal "\\n" an
    agent wrote for a line break is read as one, as the note parser does."""
    return frozenset(word for word in tokens(text.replace("\\n", "\n")) if not _TIMESTAMP.match(word))


def containment(needle: frozenset[str], haystack: frozenset[str]) -> float:
    """Share of `needle`'s tokens found in `haystack` (0 when `needle` is empty)."""
    if not needle:
        return 0.0
    return len(needle & haystack) / len(needle)


def near_duplicates(a: frozenset[str], b: frozenset[str]) -> bool:
    """Jaccard >= 0.6, or one contains >= 0.8 of the other (when the smaller has 3 tokens or more)."""
    if jaccard(a, b) >= 0.6:
        return True
    smaller = min(len(a), len(b))
    return smaller >= 3 and len(a & b) / smaller >= 0.8


def current_text(text: str) -> str:
    """An entry's text without its "(previously: ...)" parentheticals: what it claims now."""
    while (start := text.find(_PREVIOUSLY)) >= 0:
        depth = 0
        end = len(text)
        for index in range(start, len(text)):
            if text[index] == "(":
                depth += 1
            elif text[index] == ")":
                depth -= 1
                if depth == 0:
                    end = index + 1
                    break
        text = (text[:start].rstrip() + " " + text[end:].lstrip()).strip()
    return text


@lru_cache(maxsize=4096)
def _value_pattern(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(value.lower()) + r"(?!\w|\.\d)")


def contains_value(text: str, value: str) -> bool:
    """`value` occurs in `text` as a whole token run, case aside ("8080" is not in "18080")."""
    return bool(value) and _value_pattern(value).search(text.lower()) is not None


class LineIndex:
    """Lines of text with an inverted index, to find the line that best contains a set of tokens."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = [line for line in lines if line.strip()]
        self.tokens = [informative_tokens(line) for line in self.lines]
        self._postings: dict[str, list[int]] = {}
        for number, words in enumerate(self.tokens):
            for word in words:
                self._postings.setdefault(word, []).append(number)

    def best(self, needle: frozenset[str]) -> tuple[float, str | None]:
        """The highest containment of `needle` in one line, and that line."""
        if not needle:
            return 0.0, None
        counts: Counter[int] = Counter()
        for word in needle:
            counts.update(self._postings.get(word, ()))
        if not counts:
            return 0.0, None
        number, shared = max(counts.items(), key=lambda pair: (pair[1], -pair[0]))
        return shared / len(needle), self.lines[number]
