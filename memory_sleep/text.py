"""Text helpers shared by the phases, the engines and the sidecar: the one tokenizer (normalising,
words, CJK bigrams), similarity and date mentions."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date, timedelta
from functools import lru_cache
from itertools import pairwise

from memory_sleep.language import STOPWORDS

CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"  # kana, ideographs, hangul
_MARKUP = re.compile(r"[*_`~>#]|\[[ xX]\]")
_DIGIT = re.compile(r"\d")
WORD_MARKS = "_.:/-"  # what joins letters into one word: "db.internal", "v0.6.5", "node-18"
# capital and small letters for a regex class, Latin-1 and Latin Extended-A included: a name is spelled
# "Åsa", "Zoë", "Łukasz" as often as "Ana", and `[A-Z][a-z]+` stops at its first letter past ASCII
UPPER = "A-ZÀ-ÖØ-Þ" + "".join(char for char in map(chr, range(0x100, 0x180)) if char.isupper())
LOWER = "a-zß-öø-ÿ" + "".join(char for char in map(chr, range(0x100, 0x180)) if char.islower())
NAME = f"[{UPPER}][{LOWER}]+"  # a word spelled as a name: "Ana", "Åsa"


def _compiled(cjk: str) -> tuple[re.Pattern[str], ...]:
    """Runs of CJK characters or of any other script's letters and digits, words ("db.internal",
    "do-fra1-01" stay one word), a CJK character, spaces between two; without `cjk`, never a CJK one."""
    letters = rf"[^\W_{cjk}]+"
    word = re.compile(rf"{letters}(?:[{re.escape(WORD_MARKS)}]+{letters})*")
    if not cjk:
        never = re.compile("(?!)")
        return re.compile(letters), word, never, never
    space_between_cjk = re.compile(rf"(?<=[{cjk}])\s+(?=[{cjk}])")
    return re.compile(rf"[{cjk}]+|{letters}"), word, re.compile(f"[{cjk}]"), space_between_cjk


# Without the CJK classes the patterns read a text with no CJK character exactly as the full ones do,
# so the full ones wait for the first text with a character from U+3040 on (`_meet`) and serve every
# text after it: compiling them is ~9 ms (Python maps each class's 40,000 characters one by one) of
# every process's start, a recall's too, where most notes have none.
_TERM, _WORD, _CJK, _SPACE_BETWEEN_CJK = _compiled("")
_cjk_compiled = False


def _meet(text: str) -> None:
    global _TERM, _WORD, _CJK, _SPACE_BETWEEN_CJK, _cjk_compiled
    if not text.isascii() and re.search("[^\x00-\u303f]", text):
        _TERM, _WORD, _CJK, _SPACE_BETWEEN_CJK = _compiled(CJK_RANGES)
        _cjk_compiled = True


def stable_id(*parts: str) -> str:
    """A short hash identifying content; equal inputs give equal ids across runs and machines."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:12]


def normalize(text: str) -> str:
    """Lower-cased, markup-free, whitespace-folded text for comparisons and ids."""
    text = unicodedata.normalize("NFKC", text)
    text = _MARKUP.sub(" ", text)
    return " ".join(text.lower().split())


def clean(text: str) -> str:
    """`normalize`, case-folded, table bars dropped and spaces between CJK characters removed: what
    the search index splits into terms."""
    folded = " ".join(normalize(text).replace("|", " ").casefold().split())
    if not _cjk_compiled:
        _meet(folded)
    return _SPACE_BETWEEN_CJK.sub("", folded)


def is_cjk_character(character: str) -> bool:
    """`character` is in one of CJK_RANGES' blocks: `is_cjk` of one character, without compiling the
    CJK patterns (the engine's cue words ask it of every phrase's edges at import)."""
    return any(first <= character <= last for first, last in _CJK_BLOCKS)


_CJK_BLOCKS = [(CJK_RANGES[at], CJK_RANGES[at + 2]) for at in range(0, len(CJK_RANGES), 3)]


def is_cjk(term: str) -> bool:
    if term[:1] < "\u3040":
        return False
    if not _cjk_compiled:
        _meet(term)
    return bool(_CJK.match(term))


def words_and_runs(cleaned: str) -> list[str]:
    """Words of spaced scripts (split at every mark) and whole CJK runs, in order."""
    if not _cjk_compiled:
        _meet(cleaned)
    return _TERM.findall(cleaned)


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a CJK run, so that un-spaced scripts compare; a lone character stays."""
    return [run] if len(run) == 1 else [a + b for a, b in pairwise(run)]


def terms(text: str, whole: bool = False) -> list[str]:
    """Every term the search index sees, in order: words, and CJK runs as bigrams; with `whole`, then
    each word joined by marks that holds a digit as it is written ("v0.6.5", "10.0.9.42", "node-18"),
    beside its parts: an identifier, whose parts alone ("v0", "6") say little, where the parts of
    "fine-tuning" or "db.internal" are words of their own."""
    found: list[str] = []
    cleaned = clean(text)
    for piece in words_and_runs(cleaned):
        if is_cjk(piece):
            found.extend(cjk_bigrams(piece))
        else:
            found.append(piece)
    if whole:
        found.extend(word for word in _WORD.findall(cleaned) if not word.isalnum() and _DIGIT.search(word))
    return found


@lru_cache(maxsize=65_536)
def tokens(text: str) -> frozenset[str]:
    """Content words of a text (a value such as "db.internal" stays one word), and the bigrams of
    its CJK characters taken as one run, so that statements in un-spaced scripts compare."""
    norm = normalize(text)
    words = _content_words(norm)  # which met `norm` first: _CJK finds its CJK characters, if any
    if not _cjk_compiled:  # no text with a CJK character met yet: none in this one (~2 µs of ~11)
        return frozenset(words)
    return frozenset(words + cjk_bigrams("".join(_CJK.findall(norm))))


def word_sequence(text: str) -> list[str]:
    """The content words of `tokens`, in the order the text has them (CJK left out)."""
    return _content_words(normalize(text))


def _content_words(norm: str) -> list[str]:
    if not _cjk_compiled:
        _meet(norm)
    return [word for word in _WORD.findall(norm) if word not in STOPWORDS]


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
    """One line, at most `limit` characters, cut at a word boundary with an ellipsis, closing the
    parentheses and brackets the cut leaves open ("... 10.0.4.27 (was 10.0.3.9, that…)")."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    closing = ""
    while True:  # closing what a cut leaves open takes room, which may cut another bracket off
        cut = line[: max(limit - 1 - len(closing), 1)]
        if " " in cut[limit // 2 :]:
            cut = cut[: cut.rindex(" ")]
        cut = cut.rstrip(" ,;:-")
        if len(_closers(cut)) <= len(closing):
            break
        closing = _closers(cut)
    return cut + "…" + _closers(cut)


def _closers(text: str) -> str:
    """What closes the parentheses and brackets `text` leaves open, innermost first."""
    stack: list[str] = []
    for char in text:
        if char in "([":
            stack.append(")" if char == "(" else "]")
        elif char in ")]" and stack and stack[-1] == char:
            stack.pop()
    return "".join(reversed(stack))


def soft_break(before: str, after: str) -> str:
    """What a soft line break between two lines of one paragraph reads as: a space, or nothing between
    two characters of a script written without spaces (CSS Text 3's segment break rule, as
    markdown-it-cjk-breaks applies it)."""
    return "" if before and after and unspaced(before[-1]) and unspaced(after[0]) else " "


def unspaced(char: str) -> bool:
    """An East Asian wide character other than Hangul: Chinese and Japanese put no spaces between words."""
    return unicodedata.east_asian_width(char) in ("F", "W", "H") and not unicodedata.name(
        char, ""
    ).startswith("HANGUL")


def columns(text: str) -> int:
    """How many columns `text` takes in a monospaced editor: wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in ("F", "W") else 1 for char in text)


_HISTORY = re.compile(r"\s*\(previously: .*$")


def without_history(text: str) -> str:
    """An entry's statement without the "(previously: ...)" note a supersede ends it with."""
    return _HISTORY.sub("", text) if "(previously: " in text else text  # the pattern tries each space


def not_utf8(error: UnicodeDecodeError) -> str:
    """Where a file is not UTF-8, for its message: "not valid UTF-8 (line 3, byte 28)" (the line finds it
    in an editor; the byte, in a hex dump)."""
    line = bytes(error.object[: error.start]).count(b"\n") + 1
    return f"not valid UTF-8 (line {line}, byte {error.start})"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 entry`, `2 entries`, `1,204 entries`: a count and its noun in agreement (`plural` defaults to
    noun + "s"), the count grouped by thousands as every count a message gives."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


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
LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")  # a list item's mark and the space after it
INLINE_MARKUP = re.compile(r"[*_`~#>|]")  # emphasis, code, heading, quote and table marks
CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:]*\d)")
"""A time of day, seconds or not ("14:02", "08:19:33"), not part of a longer run of digits and colons
("1:2:30:45", a ratio "16:9:4")."""
# an email address: its domain ends in letters ("ana@163.com"; "bun@1.3.9" is a package at a version)
EMAIL = re.compile(r"[\w.+-]+@(?:[\w-]+\.)+[^\W\d_]{2,}\b")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
STATED_DAY = re.compile(r"\s*\((\d{4}-\d{2}-\d{2})\)\s*$")  # " (2026-11-03)": the day a line ends with
_MONTH_DAY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]{3,9})\b")  # "3 Dec", "1st of"
_CJK_DATE = re.compile(r"(\d{1,2})月(\d{1,2})日")  # 12月7日
DATE = re.compile(f"{_ISO_DATE.pattern}|{_CJK_DATE.pattern}")  # a day written out: ISO or CJK
_SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
_DEADLINE_CUE = re.compile(
    r"\b(by|before|due|deadline|until|no later than|eod|eow|bis|antes del?|today|tonight|tomorrow)\b|まで|までに",
    re.IGNORECASE,
)
# a day right before a deadline's word: "from 2026-12-20 until 2027-01-04", "vom 30.11. bis 8.1." (German
# "bis" says both "by" and "until"): the end of a span of days, a freeze or a leave, not a task's deadline
_PERIOD_START = re.compile(
    r"(?:\b\d{4}-\d{2}-\d{2}|\b\d{1,2}\.\d{1,2}\.(?:\d{4})?)\s*$"  # not "1.4.12": a version
)
_DUE_MARK = re.compile(r"\(due (\d{4}-\d{2}-\d{2})\)")  # what REM wrote when it read the deadline
# said only of deadlines: "bis 2.12.", "by Thu", "by EOD", "by end of month", "Thursday next week"
_DOTTED_DATE = re.compile(r"^\S+\s+(\d{1,2})\.(\d{1,2})\.?(?![\d.])")
_ANY_WEEKDAY = re.compile(
    r"\b(" + "|".join(_WEEKDAYS) + r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b", re.IGNORECASE
)
_NEXT_WEEK = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")\s+next\s+week\b", re.IGNORECASE)
_RELATIVE = {
    re.compile(r"\b(?:eod|today|tonight)\b", re.IGNORECASE): 0,
    re.compile(r"\btomorrow\b", re.IGNORECASE): 1,
}
_MONTH_END = re.compile(r"\bend of (?:the )?month\b", re.IGNORECASE)
_WEEK_END = re.compile(r"\b(?:eow|end of (?:the )?week)\b", re.IGNORECASE)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def names_day_after(text: str, day: date) -> bool:
    """The text names a calendar day (ISO) after `day`: "delete it on or after 2026-12-16"."""
    return any(
        (named := _safe_date(int(y), int(m), int(d))) is not None and named > day
        for y, m, d in _ISO_DATE.findall(text)
    )


def deadline_in(text: str, written_on: date) -> date | None:
    """The deadline a text states ("by Dec 3", "by 3 Dec", "due 2026-12-03", "bis 2.12.",
    "（12月7日まで）", "before Friday", "by Thu", "by Monday next week", "by EOD", "by end of month"),
    if any; a "(due 2026-12-03)" REM wrote wins, and a date on the calendar beats a weekday or
    "tomorrow" ("by Fri 2026-11-20")."""
    marked = _DUE_MARK.search(text)
    if marked:
        return date.fromisoformat(marked.group(1))
    cue = next(
        (cue for cue in _DEADLINE_CUE.finditer(text) if not _PERIOD_START.search(text, 0, cue.start())), None
    )
    if not cue:
        return None
    if cue.group(0) in ("まで", "までに"):  # the date comes before the cue: （12月7日まで）
        found = _CJK_DATE.search(text[max(0, cue.start() - 8) : cue.start()])
        return _day_of_year(written_on, int(found.group(1)), int(found.group(2))) if found else None
    tail = text[cue.start() :]
    for dates in (_calendar_dates(tail, written_on), _relative_dates(tail, written_on)):
        if dates:
            return min(dates)[1]
    return None


def _calendar_dates(tail: str, written_on: date) -> list[tuple[int, date]]:
    """Calendar dates in `tail` (which starts at a deadline cue), by position."""
    found: list[tuple[int, date]] = []
    for match in _ISO_DATE.finditer(tail):
        if (parsed := _safe_date(*(int(part) for part in match.groups()))) is not None:
            found.append((match.start(), parsed))
    for pattern, month_group, day_group in ((_MONTH_DAY, 1, 2), (_DAY_MONTH, 2, 1)):
        for match in pattern.finditer(tail):
            month = _MONTHS.get(match.group(month_group).lower())
            if month and (parsed := _day_of_year(written_on, month, int(match.group(day_group)))):
                found.append((match.start(), parsed))
    for match in _CJK_DATE.finditer(tail):
        if (parsed := _day_of_year(written_on, int(match.group(1)), int(match.group(2)))) is not None:
            found.append((match.start(), parsed))
    for match in _SLASH_DATE.finditer(tail):
        month_text, day_text, year_text = match.groups()
        year = int(year_text) + (2000 if len(year_text) == 2 else 0) if year_text else written_on.year
        if (parsed := _safe_date(year, int(month_text), int(day_text))) is not None:
            found.append((match.start(), parsed))
    dotted = _DOTTED_DATE.match(tail)  # "bis 2.12.": day first, right after the cue
    if dotted and (parsed := _day_of_year(written_on, int(dotted.group(2)), int(dotted.group(1)))):
        found.append((dotted.start(1), parsed))
    return found


def _relative_dates(tail: str, written_on: date) -> list[tuple[int, date]]:
    """Days named relative to `written_on`: weekdays, "next week", "tomorrow", "end of month"."""
    found: list[tuple[int, date]] = []
    for match in _ANY_WEEKDAY.finditer(tail):
        index = [day[:3] for day in _WEEKDAYS].index(match.group(1).lower()[:3])
        if _NEXT_WEEK.match(tail, match.start()):
            monday = written_on + timedelta(days=7 - written_on.weekday())
            found.append((match.start(), monday + timedelta(days=index)))
        else:
            found.append(
                (match.start(), written_on + timedelta(days=(index - written_on.weekday()) % 7 or 7))
            )
    for pattern, ahead in _RELATIVE.items():
        found.extend((match.start(), written_on + timedelta(days=ahead)) for match in pattern.finditer(tail))
    for match in _MONTH_END.finditer(tail):
        next_month = written_on.replace(day=28) + timedelta(days=4)
        found.append((match.start(), next_month - timedelta(days=next_month.day)))
    for match in _WEEK_END.finditer(tail):
        found.append((match.start(), written_on + timedelta(days=(4 - written_on.weekday()) % 7)))
    return found


def _day_of_year(written_on: date, month: int, day: int) -> date | None:
    """Month and day in the year that puts them nearest after `written_on` (up to half a year back)."""
    parsed = _safe_date(written_on.year, month, day)
    if parsed is not None and parsed < written_on - timedelta(days=180):
        parsed = _safe_date(written_on.year + 1, month, day) or parsed
    return parsed


ENDING_STATUSES = ("superseded", "done", "finished", "expired")  # workspace/archive.py's Status
# how a summary line or an archive record says its item ended: "... [superseded 2026-11-02 by X]"
ENDING = re.compile(
    rf"^(?P<rest>.*) \[(?P<status>{'|'.join(ENDING_STATUSES)}) (?P<day>\d{{4}}-\d{{2}}-\d{{2}})"
    r"(?: by (?P<by>[^\]]+))?\]$"
)


def without_ending(line: str) -> str:
    """A summary line without the ending marked after it ("... [superseded 2026-11-02 by ...]"), which
    quotes what ended it: the line's own words are before it."""
    match = ENDING.match(line)
    return match["rest"] if match else line
