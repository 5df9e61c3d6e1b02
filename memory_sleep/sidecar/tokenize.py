"""Terms for the full-text index and its queries: the shared tokenizer's terms (memory_sleep/text.py),
words lightly stemmed, CJK bigrams as they are, words joined by marks ("v0.6.5") also whole,
stopwords left out of queries."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable

from memory_sleep.language import STOPWORDS
from memory_sleep.text import WORD_MARKS, is_cjk, terms

# The full-text table's tokenizer: terms come split and stemmed from Python, separated by spaces, and
# a word joined by marks stays one token (the SQL literal doubles its quotes).
FTS_TOKENIZE = f"unicode61 remove_diacritics 2 tokenchars ''{WORD_MARKS}''"
# Which reading `index_terms` gives a text; a new one when it reads texts differently, so that terms
# kept by an earlier version (cycle/kept_vectors.py) are read again, not mixed with this one's.
INDEX_TERMS_VERSION = 2


def _undouble(base: str) -> str:
    """stopp -> stop, but roll and pass stay (Porter's rule for l, s and z)."""
    if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
        return base[:-1]
    return base


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A light suffix stripper (plurals, -ed, -ing); character n-grams catch the rest."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        return _undouble(word[:-3])
    if word.endswith("ed") and len(word) > 4:
        return _undouble(word[:-2])
    if word.endswith("es") and word[-3:-2] in ("s", "x", "z", "h") and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stems(words: Iterable[str]) -> frozenset[str]:
    """The `stem` of each word: "ships" and "shipped" say one word."""
    return frozenset(map(stem, words))


def index_terms(text: str) -> list[str]:
    """The terms the full-text index stores: words stemmed, CJK bigrams as they are, joined words whole."""
    return [term if is_cjk(term) else stem(term) for term in terms(text, whole=True)]


def fts_document(text: str) -> str:
    """What the FTS5 table stores for a text: its index terms separated by spaces."""
    return " ".join(index_terms(text))


def query_terms(text: str) -> list[str]:
    """A query's distinct content terms, as the index stores them (stopwords and 1-letter words out).
    A word joined by marks is asked for whole, not by its parts as well: a line holding it would
    match it three times over ("glm-4.6v", "glm", "6v") and outrank the lines that answer the rest."""
    found = terms(text, whole=True)
    parts = Counter(part for term in found if not term.isalnum() for part in terms(term))
    asked = []
    for term in found:
        if parts[term]:  # a part of a joined word, asked for whole
            parts[term] -= 1
        elif (term not in STOPWORDS and len(term) > 1) or is_cjk(term):
            asked.append(term)
    return list(dict.fromkeys(term if is_cjk(term) else stem(term) for term in asked))


def fts_match(wanted: list[str]) -> str:
    """An FTS5 MATCH expression for any of the terms (BM25 ranks the matches)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in wanted)
