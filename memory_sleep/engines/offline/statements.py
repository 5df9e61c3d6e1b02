"""The parts of a one-line statement that REM compares: its first clause, its key and value, the
releases it names, its content words."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import groupby

from memory_sleep.engines.offline import matching
from memory_sleep.language import LEAD_IN_WORDS
from memory_sleep.sidecar.tokenize import stem, stems
from memory_sleep.text import is_cjk, normalize, tokens, word_sequence

# a value as one run: "10.0.0.5", "180ms", "$3,400/month" (not "3" and "400/month"), "db.internal"; CJK
# characters after a number are words, not part of it ("10月25日まで" holds the values 10 and 25)
_VALUE_CHAR = r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"
VALUE = re.compile(
    rf"\d(?:{_VALUE_CHAR}|[.:/-]|,(?=\d{{3}}))*|\b[\w-]+\.(?:internal|local|com|io|net|org|dev|app)\b"
)
KEY_VALUE = re.compile(r"^\s*([^:\n]{2,40}):\s+(\S.*)$")
# a key of at least this many words names one thing; one word ("Status:", "Time:") is a field any note fills
KEY_WORDS = 2
RELEASE = re.compile(r"\bv\d+\.\d+(?:\.\d+)?\b")
CLAUSE_END = re.compile(r"(?:(?<!\d)\.|;)\s|\s[—–]\s|\s-\s")


@lru_cache(maxsize=16_384)
def first_clause(text: str) -> str:
    """A statement up to its first full stop, semicolon or dash: what it says before the reasons."""
    return CLAUSE_END.split(text, maxsplit=1)[0]


@lru_cache(maxsize=16_384)
def subject_words(text: str) -> frozenset[str]:
    """Content words of the first clause, without values and decision vocabulary."""
    return frozenset(
        w for w in tokens(first_clause(text)) if not VALUE.fullmatch(w) and w not in matching.NOT_SUBJECT
    )


def informative(words: frozenset[str]) -> frozenset[str]:
    return frozenset(
        w for w in words if len(w) >= 4 and w not in matching.NOT_SUBJECT and not VALUE.fullmatch(w)
    )


@lru_cache(maxsize=16_384)
def releases(text: str) -> frozenset[str]:
    """The releases a statement's first clause names ("Pavo v0.6.5 will ship ..."): what it is about."""
    return frozenset(version.lower() for version in RELEASE.findall(first_clause(text)))


@lru_cache(maxsize=16_384)
def named_values(text: str) -> frozenset[str]:
    """The values a text names (VALUE: versions, hosts, identifiers), lower-cased."""
    return frozenset(VALUE.findall(text.lower()))


@lru_cache(maxsize=16_384)
def subject_key(text: str, projects: frozenset[str]) -> str | None:
    """The key of a `Key: value` statement, unless the key is a label such as "Decided" or "TODO" or
    only a project's name ("Borealis: Contoso pays for Team")."""
    match = KEY_VALUE.match(text)
    if not match:
        return None
    words = tokens(match.group(1)) - matching.NOT_SUBJECT - LEAD_IN_WORDS - projects
    return " ".join(sorted(words)) or None


def new_value_of_key(text: str, other: str, projects: frozenset[str]) -> bool:
    """Both are `Key: value` lines of one key, and each value has a word the other lacks (in any form):
    "Sprint 14 goal: ship the Orion exporter" gives another value of "Sprint 14 goal: ship the Orion
    importer", however few words it changes; "Kai timezone: Europe/Berlin (again)" adds a remark only."""
    key = subject_key(text, projects)
    if key is None or key != subject_key(other, projects):
        return False
    own, theirs = stems(tokens(value_part(text))), stems(tokens(value_part(other)))
    return bool(own - theirs) and bool(theirs - own)


def names_a_subject(text: str, projects: frozenset[str]) -> bool:
    """The key of a `Key: value` line says whose value it is: two words or more ("exporter owner",
    "Quokka region"), or one with a project's name. A one-word key ("Time:", "Source:", "项目:") is a
    field of the section it stands in; the same field in another section is another subject."""
    match = KEY_VALUE.match(text)
    if not match:
        return False
    words = [word for word in match.group(1).replace("*", " ").lower().split() if word not in LEAD_IN_WORDS]
    return len(words) >= 2 or bool(tokens(match.group(1)) & projects)


def value_part(text: str) -> str:
    match = KEY_VALUE.match(text)
    return match.group(2).strip().lower() if match else text.lower()


def _moved_claim(text: str, other: str) -> frozenset[str]:
    """Words of `other`'s first clause that `text` leaves out of its own first clause and gives after
    it: the value `other` claimed, named by `text` beside a new claim ("v1.4 ships A; B waits" after
    "v1.4 ships B")."""
    own_first = first_clause(text)
    return (tokens(first_clause(other)) - tokens(own_first)) & tokens(text[len(own_first) :])


def reordered(text: str, other: str) -> bool:
    """Each names after its first clause a content word the other claims in its first clause: the same
    words arranged as another statement ("A ships; B waits" and "B ships; A waits"), not a repeat. A
    sentence only broken in two ("X: Y; pulled the budget" for "X: Y pulled the budget") moves one way."""
    return bool(informative(_moved_claim(text, other)) and informative(_moved_claim(other, text)))


def demotes(text: str, other: str) -> bool:
    """`text` claims something new in its first clause and names after it what `other`'s first clause
    claimed, the rest of that clause kept (a word in another form counts: "ship", "ships"): "R now
    ships B; A waits" after "R will ship A", and "R ships A; B waits" after "R ships B; A waits".
    Not "R notes drafted; A docs pending" after "R will ship A": its claim is another one. The rest
    of that clause may go when the new claim stands in its place, between words both clauses have:
    "R now ships the new B flow; the new A flow waits" after "Scope of R: the new A flow plus fixes"."""
    own_first, other_first = first_clause(text), first_clause(other)
    moved = _moved_claim(text, other)
    own = tokens(own_first)
    if not informative(moved) or not informative(own - tokens(other_first)):
        return False
    kept = tokens(other_first) - moved - own - matching.NOT_SUBJECT  # "now", "will": how, not what
    return all(any(_one_word(word, mine) for mine in own) for word in kept) or _in_place(
        own_first, other_first, moved
    )


def _in_place(own_first: str, other_first: str, moved: frozenset[str]) -> bool:
    """Words of `own_first` stand where `other_first` has a word of `moved`, between words both have."""
    own, theirs = word_sequence(own_first), word_sequence(other_first)
    return any(
        tag == "replace"
        and start > 0
        and end < len(own)
        and other_start > 0
        and other_end < len(theirs)
        and informative(frozenset(theirs[other_start:other_end])) & moved
        for tag, start, end, other_start, other_end in SequenceMatcher(
            None, own, theirs, autojunk=False
        ).get_opcodes()
    )


_STEM = 4


def _one_word(a: str, b: str) -> bool:
    """The same word in another form: the same first four letters, both that long at least ("ship", "ships")."""
    return min(len(a), len(b)) >= _STEM and a[:_STEM] == b[:_STEM]


def other_releases(text: str, other: str) -> bool:
    """Both name releases, and no release in common ("Pavo v1.4.0 will ship ...", "Pavo v1.4.1 ...")."""
    own, theirs = releases(text), releases(other)
    return bool(own) and bool(theirs) and own.isdisjoint(theirs)


def swapped(text: str, other: str, *, values: frozenset[str] = frozenset()) -> bool:
    """Words of one stand where the other has words of another stem, between words both have: the same
    sentence said of another ticket, host, customer, part or project ("Won't fix MER-117: ..." and "Won't
    fix MER-345: ...", "check free disk on nuc-06 before ..." and "... on db-02 before ..."). A word or
    two told before or after the shared words ("...; agreed with Oli") changes nothing of what is said.
    A run of CJK characters is one word here ("决定：Vela 的 exporter 先不拆分，原因是 Ola 没有时间").
    So do names on the other side of a word both have ("A reports to B", "B reports to A"). Words of
    `text` among `values` standing in another's place count for nothing: "Orion stores audit logs for
    7 days" beside "**Orion audit logs retention:** 30 days" has only its value ("7") there."""
    own, theirs = sequence(text), sequence(other)
    return _crossed(own, theirs, matching.names(text) & matching.names(other)) or bool(
        _replaced(own, theirs) - values
    )


def _replaced(own: list[str], theirs: list[str]) -> frozenset[str]:
    """The words of `own` that stand where `theirs` has words of another stem, between words both have."""
    opcodes = SequenceMatcher(None, own, theirs, autojunk=False).get_opcodes()
    return frozenset(
        word
        for tag, start, end, other_start, other_end in opcodes
        if tag == "replace"
        and start > 0
        and other_start > 0
        and end < len(own)
        and other_end < len(theirs)
        and not {stem(word) for word in own[start:end]}
        & {stem(word) for word in theirs[other_start:other_end]}
        for word in own[start:end]
    )


def crossed(text: str, other: str) -> bool:
    """Names both hold stand on the other side of a word both say once: "Ines reports to Oskar" and
    "**Oskar reports to:** Ines" say two things in the same words; "Pim and Teo own X" and "Teo and Pim
    own X" (no word between them) one."""
    return _crossed(sequence(text), sequence(other), matching.names(text) & matching.names(other))


def _crossed(own: list[str], theirs: list[str], named: frozenset[str]) -> bool:
    for word in set(own) & set(theirs) - named:
        if own.count(word) != 1 or theirs.count(word) != 1:
            continue
        before, after = _sides(own, own.index(word), named)
        other_before, other_after = _sides(theirs, theirs.index(word), named)
        if before & other_after and after & other_before:
            return True
    return False


def _sides(words: list[str], at: int, named: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names only before and only after the word at `at` ("Ola ... GitHub ... @ola" has Ola on both)."""
    before, after = named & set(words[:at]), named & set(words[at + 1 :])
    return before - after, after - before


def sequence(text: str) -> list[str]:
    """Content words ("nuc-02" one word) and whole CJK runs, in order."""
    found: list[str] = []
    for cjk, chars in groupby(normalize(text), key=is_cjk):
        span = "".join(chars)
        found.extend([span] if cjk else word_sequence(span))
    return found
