"""Lexical matching of statements: what a statement is about (its subject), and whether two
statements say the same thing, or one thing with other values (values.py reads the values).

"Borealis auth port: 9643" and "Borealis auth lives on do-fra1-01" share a subject but state values of
different kinds (a port, a host), so neither replaces the other; "Fornax exporter listens on 5432"
and "Correction: Fornax exporter listens on 8000" state two ports for one subject, so the newer wins.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_sleep.engines.offline.values import VALUE_KINDS, current_claim, typed_values, value_phrase
from memory_sleep.language import LEAD_IN_WORDS, LEAD_INS, OLD_BETWEEN
from memory_sleep.sidecar.tokenize import stems
from memory_sleep.text import tokens, word_sequence

_LABEL = re.compile(
    r"^(?:(?:" + "|".join(re.escape(label) for label in LEAD_INS) + r")(?:\s+for\s+\w+)?\s*[:—–-]\s*)+",
    re.IGNORECASE,
)
_PIVOT = re.compile(
    r"\s(?:is|are|was|were|now|runs|lives|moved|moves|uses|listens|resolves|renews|expires|will|has|have|"
    r"switched|changed|points|goes|starts|ends|costs|takes|needs|sits|stays|became|becomes|allows)\b|\s*[:=]\s|\s[—–]\s"
    r"|:$"  # "Validation:" before its list ("Validation:; tests pass"): a key, no sentence
    r"|\s*：",  # a full-width colon ends a key with or without a space after it: "页面链接：", "时间：00:29"
    re.IGNORECASE,
)
NOT_SUBJECT = (
    frozenset(
        [
            "decisions",
            "reversing",
            "reverse",
            "reversed",
            "call",
            "last",
            "week",
            "week's",
            "agreed",
            "going",
            "will",
            "use",
            "moves",
            "move",
            "moving",
            "switch",
            "switching",
            "switched",
            "bumped",
            "upgraded",
            "downgraded",
            "back",
            "instead",
            "from",
            "now",
            "on",
            "go",
            "with",
            "actually",
        ]
    )
    | LEAD_IN_WORDS
)
"""Words that say a statement changes or decides something, never what it is about."""
_OLD_OPENERS = frozenset(opener for opener, _ in OLD_BETWEEN)  # "from" of "from X to Y"
_PLAIN_VALUE = re.compile(r"v?[\d.,:/-]+[a-z%]{0,3}")


@lru_cache(maxsize=16_384)
def subject(text: str) -> frozenset[str]:
    """The content words before the statement's verb or colon ("Fornax exporter" in "Fornax
    exporter listens on 8000"), without labels such as "Correction:" or "Decided:"."""
    return frozenset(word for word in tokens(subject_phrase(text)) if _names_subject(word))


@lru_cache(maxsize=16_384)
def subject_head(text: str, ignore: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The last two words of the subject, less those in `ignore` (project names): the thing it names
    and the word that says which one (("invoices", "retention") in "Pavo invoices retention changed ...")."""
    words = word_sequence(subject_phrase(text))
    return tuple(word for word in words if _names_subject(word) and word not in ignore)[-2:]


_PHRASE_WORD = re.compile(r"[\w.-]*\w")
# "mac-mini-10", "WORKER_CONCURRENCY": a word spelled to name one thing (not a label such as "P3")
_IDENTIFIER = re.compile(r"^(?=[\w.-]{4})(?:[A-Za-z][\w.-]*\d|\d[\w.-]*[A-Za-z])|[A-Za-z]_[A-Za-z]")


# a name of one thing in code or a tracker: a code span, "ONY-1889", "#412", "sable-webhooks-03"
_NAMED_ID = re.compile(r"`[^`\n]+`|\b[A-Z][A-Z0-9]+-\d+\b|#\d+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+\b")


def identifiers(text: str) -> frozenset[str]:
    """The identifiers a text names, in lower case (a code span with its backticks)."""
    return frozenset(match.lower() for match in _NAMED_ID.findall(text))


@lru_cache(maxsize=16_384)
def specific_words(text: str, projects: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words of a statement's subject that name one thing: a project ("Quokka reports
    replicas"), an identifier ("WORKER_CONCURRENCY", "mac-mini-10"), a capitalised name inside the
    phrase ("Zephyr Ltd contact"); in a sentence, whose verb says what its subject is or does, also a
    capitalised first word ("Quokka needs ...") or a subject of several words ("The build box is at
    ..."). The key of a record's field ("Session Duration:", "Time:", "Key insight:", "代码行数:") names
    none: the same field in two notes is two subjects."""
    phrase, sentence = _subject_of(text)
    found = _names(_PHRASE_WORD.findall(phrase), projects, first=sentence)
    content = {word for word in tokens(phrase) if _names_subject(word)}
    return found or frozenset(content if sentence and len(content) >= 2 else ())


def acted_on(text: str, value: str) -> frozenset[str]:
    """What a change acts on when it names it between its verb and its old value `value`: the content
    words there, if one is a name ("quokka" in "We moved Quokka from MySQL to PostgreSQL 16", whose
    subject names nothing); none when the value follows the verb ("Pavo flag `x` changed from on to
    off": its subject is what changed)."""
    said = predicate(text)
    at = said.lower().find(value.lower())
    if at < 0:
        return frozenset()
    words = [word for word in _PHRASE_WORD.findall(said[:at])[1:] if word.lower() not in _OLD_OPENERS]
    if not _names(words, frozenset(), first=True):
        return frozenset()
    return frozenset(word for word in tokens(" ".join(words)) if _names_subject(word))


def _names(words: list[str], projects: frozenset[str], first: bool) -> frozenset[str]:
    """Of a phrase's words, those naming one thing: a project, an identifier, a capitalised name (the
    first word only when `first`; none in a title-cased phrase, "Session Duration")."""
    title_case = all(word[0].isupper() for word in words if word.isalpha() and len(word) > 3)
    found: set[str] = set()
    for index, word in enumerate(words):
        if words[index + 1 : index + 2] and words[index + 1].isdigit():
            continue  # "Cycle 2", "Phase 1": a numbered part of a list, one of several
        capitalised = word[:1].isupper() and word[1:].islower()
        named = capitalised and ((index > 0 and not title_case) or (index == 0 and first))
        if named or word.lower() in projects or (_IDENTIFIER.search(word) and not _is_value(word)):
            found |= {token for token in tokens(word) if _names_subject(token)}
    return frozenset(found)


def subject_phrase(text: str) -> str:
    """The words before the statement's verb or colon ("Fornax exporter"), values and labels kept."""
    return _subject_of(text)[0]


def without_lead_in(text: str) -> str:
    """The text without the labels it starts with ("Decided: ", "Reversed: ", lead_ins in languages/*.toml)."""
    return _LABEL.sub("", text.strip())


def predicate(text: str) -> str:
    """What a statement says of its subject in its first clause: its words from the verb or key that
    ends the subject on ("is off in prod" in "Vela flag `beta` is off in prod"), or "" when none does
    ("Vela exporter → port 6379, behind nginx", a task, a line in a script without spaces)."""
    head = re.split(r"(?:(?<!\d)\.|;)\s", _LABEL.sub("", text.strip()), maxsplit=1)[0]  # the first clause
    match = _PIVOT.search(head)
    return head[match.start() :] if match and match.start() > 0 else ""


@lru_cache(maxsize=16_384)
def _subject_of(text: str) -> tuple[str, bool]:
    """The subject phrase, and whether it begins a sentence rather than a key's colon ends it."""
    head = re.split(r"(?:(?<!\d)\.|;)\s", _LABEL.sub("", text.strip()), maxsplit=1)[0]  # the first clause
    match = _PIVOT.search(head)
    if match and match.start() > 0:
        return head[: match.start()], match.group(0).strip().isalpha()
    return re.split(r",\s", head, maxsplit=1)[0], True  # no key: a sentence ("Orion switches from ...")


def _names_subject(word: str) -> bool:
    return len(word) > 1 and word not in NOT_SUBJECT and not _is_value(word)


def restated(a: str, b: str, ignore: frozenset[str] = frozenset()) -> bool:
    """The same value of the same thing in other words: "SLO for Orion /v1/invoices: 180 ms p95" and
    "Orion /v1/invoices has to stay under 180 ms p95". The values and the words from the first value on
    agree, and what one is about (less the names in `ignore`) is all named in the other."""
    a, b = current_claim(a), current_claim(b)
    values = typed_values(a)
    if not values or values != typed_values(b):
        return False
    phrase = value_phrase(a)
    if phrase is None or phrase != value_phrase(b) or len(phrase.split()) < 2:
        return False
    about_a, about_b = subject(a) - ignore, subject(b) - ignore
    return bool(about_a and about_b) and (about_a <= tokens(b) or about_b <= tokens(a))


IDENTITY_KINDS = frozenset({"email", "url", "ip", "host", "channel", "handle"})


def values_conflict(a: str, b: str, kinds: frozenset[str] | None = None) -> bool:
    """Both name a value of the same kind (of `kinds`, default any), and each names one of it the other
    does not: "Phase 2 runs on port 9090" after "Phase 2 runs on port 8080" (a value both share beside
    the changed one, "2", makes it no repeat). One that only adds a value ("Postgres 15 and 16" after
    "Postgres 15") changes none."""
    values_a, values_b = typed_values(a), typed_values(b)
    shared = values_a.keys() & values_b.keys() & (kinds or values_a.keys())
    return any(values_a[kind] - values_b[kind] and values_b[kind] - values_a[kind] for kind in shared)


def measure_alike(a: str, b: str) -> bool:
    """Their bare numbers may measure the same thing: the words beside them ("Python 3.13", "v0.2.4 will
    ship") are not all different. Without such words either way, nothing says they differ."""
    words_a, words_b = number_words(a), number_words(b)
    return not (words_a and words_b) or bool(words_a & words_b)


def subjects_differ(a: str, b: str, ignore: frozenset[str] = frozenset()) -> bool:
    """The head of each one's subject (its last two words, less the names in `ignore`, project names)
    has a word the other never names, whatever values they share: "Vela notifier runs on t3.medium
    instances" and "Vela exporter instance type: t3.medium" are two things with one value, not one
    thing in two wordings ("cost ~$63/day vs ~$19/day for the nightly batch" and "first cost estimate:
    ... $63/day ..., against about $19/day for the nightly batch job")."""
    words_a, words_b = stems(tokens(a)), stems(tokens(b))
    own = stems(subject_head(a, ignore)) - words_b
    theirs = stems(subject_head(b, ignore)) - words_a
    return bool(own) and bool(theirs)


def people_differ(a: str, b: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Each names someone the other does not ("Proseware contact: Jo" and "Dev is Proseware's
    CTO"): two people of one company, not one person's new address. Give it the statements' subjects
    (first clauses): reasons name people too ("...; agreed with Oli")."""
    names_a, names_b = names(a, ignore), names(b, ignore)
    return bool(names_a - names_b) and bool(names_b - names_a)


def shared_values(a: str, b: str, kinds: frozenset[str] | None = None) -> int:
    """How many values of the same kind (of `kinds`, default any) both name."""
    values_a, values_b = typed_values(a), typed_values(b)
    shared = values_a.keys() & values_b.keys() & (kinds or values_a.keys())
    return sum(len(values_a[kind] & values_b[kind]) for kind in shared)


_WORD = re.compile(r"\b[^\W\d_]{3,}\b")
_BARE_NUMBER = re.compile(r"v?\d+(?:[.,]\d+){0,2}")  # not an IP address
_UNITS_OF_TIME = frozenset(["ms", "s", "sec", "min", "minutes", "h", "hours", "days", "weeks", "months"])


@lru_cache(maxsize=16_384)
def number_words(text: str) -> frozenset[str]:
    """The words next to a statement's bare numbers, which say what they measure: "4 replicas",
    "port 5801", "Postgres 16", "16 seats", "RATE_BURST=2" (units of time aside: "5 days" says how
    long, not what)."""
    words = current_claim(text).split()
    found: set[str] = set()
    settings: set[str] = set()  # "RATE_BURST=2": the setting's name says what 2 is
    for index, word in enumerate(words):
        name, equals, value = word.strip("`*()[],;:").partition("=")
        if equals and name and _BARE_NUMBER.fullmatch(value):
            settings.add(name.lower())
        if not _BARE_NUMBER.fullmatch(word.strip("`*()[],;:")):
            continue
        for neighbour in words[max(0, index - 1) : index] + words[index + 1 : index + 2]:
            found.update(tokens(neighbour))
    return frozenset(
        word for word in found if word.isalpha() and word not in _UNITS_OF_TIME and word not in NOT_SUBJECT
    ) | frozenset(settings)


@lru_cache(maxsize=16_384)
def names(text: str, ignore: frozenset[str] = frozenset()) -> frozenset[str]:
    """Capitalised words (people, customers, tools), lower-cased, less those in `ignore` (project names)
    and values ("Tuesdays" says when, not who)."""
    titled = (
        word
        for word in _WORD.findall(text)
        if word[0].isupper() and word[1:].islower() and not VALUE_KINDS["weekday"].fullmatch(word)  # "Alba"
    )
    words = tokens(text)  # "The" is no name: tokens() leaves stopwords out
    found = frozenset(word.lower() for word in titled if word.lower() in words)
    return found - ignore - NOT_SUBJECT


def same_named_thing(a: str, b: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Both name the same person or thing by capitalised words (two of them, or the only one), leaving
    out the names in `ignore`: a project's name says where a statement belongs, not what it is about."""
    names_a, names_b = names(a, ignore), names(b, ignore)
    shared = names_a & names_b
    return len(shared) >= 2 or (len(shared) == 1 and len(names_a) == 1 and len(names_b) == 1)


def _is_value(word: str) -> bool:
    """Numbers, dates, times, versions, money, URLs and emails are values; a hostname or an API path
    with digits in it (mac-mini-03, /v1/reports) names what a statement is about."""
    return bool(_PLAIN_VALUE.fullmatch(word)) or "://" in word or "@" in word
