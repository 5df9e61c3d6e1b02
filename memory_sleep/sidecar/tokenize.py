"""Splitting text into terms for both the embedder and the full-text index.

Words are NFKC-normalised and case-folded; runs of Chinese, Japanese or Korean characters become
overlapping character bigrams, so un-spaced text is not one giant token per line.
"""

from __future__ import annotations

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
    return bool(_CJK_RUN.match(term))


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


def fts_document(text: str) -> str:
    """What the FTS5 table stores for a text: its terms separated by spaces."""
    return " ".join(terms(text))


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's content terms (BM25 ranks the matches)."""
    wanted = list(dict.fromkeys(t for t in terms(text) if (t not in STOPWORDS and len(t) > 1) or is_cjk(t)))
    if not wanted:
        return None
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in wanted)
