"""Terms for the full-text index and its queries: the shared tokenizer's terms (memory_sleep/text.py),
words lightly stemmed, CJK bigrams as they are, stopwords left out of queries."""

from __future__ import annotations

import functools

from memory_sleep.language import STOPWORDS
from memory_sleep.text import is_cjk, terms


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


def index_terms(text: str) -> list[str]:
    """The terms the full-text index stores: words stemmed, CJK bigrams as they are."""
    return [term if is_cjk(term) else stem(term) for term in terms(text)]


def fts_document(text: str) -> str:
    """What the FTS5 table stores for a text: its index terms separated by spaces."""
    return " ".join(index_terms(text))


def query_terms(text: str) -> list[str]:
    """A query's distinct content terms, as the index stores them (stopwords and 1-letter words out)."""
    wanted = (term for term in terms(text) if (term not in STOPWORDS and len(term) > 1) or is_cjk(term))
    return list(dict.fromkeys(term if is_cjk(term) else stem(term) for term in wanted))


def fts_match(wanted: list[str]) -> str:
    """An FTS5 MATCH expression for any of the terms (BM25 ranks the matches)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in wanted)
