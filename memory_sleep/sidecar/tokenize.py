"""Splitting text into terms for both the embedder and the full-text index.

Words are NFKC-normalised and case-folded; runs of Chinese, Japanese or Korean characters become
overlapping character bigrams, so un-spaced text is not one giant token per line.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from itertools import pairwise

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TERM = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
_CJK_RUN = re.compile(rf"[{CJK}]")
_SPACE_BETWEEN_CJK = re.compile(rf"(?<=[{CJK}])\s+(?=[{CJK}])")
_MARKUP = re.compile(r"[*_`~>#|]+|\[[ xX]\]")
STOPWORDS = frozenset(
    """a an the and or but of to in on at for with by from as is are was were be been being it its this
    that these those we i you he she they our my your their me us them will would should can could do
    did does has have had not no so if then than also just into out up about over after before via per
    what when where which who whom whose why how there here any some all get got let lets s t""".split()  # noqa: SIM905
)
# frequent in agents' notes and in questions, but say nothing about the topic: left out of embeddings
GENERIC = frozenset(
    """one two new now today yesterday tomorrow ok yes sent checked nothing again still already very much
    more less may might must need needs want wants like use used using make made thing things way""".split()  # noqa: SIM905
)


def clean(text: str) -> str:
    """NFKC, case-folded, markup dropped, spaces between CJK characters removed, whitespace folded."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _MARKUP.sub(" ", text)
    text = " ".join(text.split())
    return _SPACE_BETWEEN_CJK.sub("", text)


def is_cjk(term: str) -> bool:
    return term[:1] >= "\u3040" and bool(_CJK_RUN.match(term))


def words_and_runs(cleaned: str) -> list[str]:
    """Latin-script (and other spaced-script) words and whole CJK runs, in order."""
    return _TERM.findall(cleaned)


def cjk_bigrams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [a + b for a, b in pairwise(run)]


def terms(text: str) -> list[str]:
    """Every term in order: words, and CJK runs as bigrams (a lone CJK character stays itself)."""
    found: list[str] = []
    for piece in words_and_runs(clean(text)):
        if is_cjk(piece):
            found.extend(cjk_bigrams(piece))
        else:
            found.append(piece)
    return found


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
