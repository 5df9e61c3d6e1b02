"""Offline REM: whether a kept item repeats an entry in other words, or gives a person a new address."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory_sleep.engines.offline import cues, matching, statements, values
from memory_sleep.language import BEFORE_LABELS, LEAD_IN_WORDS, NEGATIONS, OLD_VALUE_MARKS, REPEAT_MARKS
from memory_sleep.sidecar.tokenize import stem, stems
from memory_sleep.text import NAME, similarity, tokens, word_sequence

_ADDRESS_KINDS = (*matching.IDENTITY_KINDS, "zone")
_PERSONAL_KINDS = ("zone", "email", "handle")
_SENTENCE_END = re.compile(r"(?<!\d)[.!?]\s")
_REPEATED = 0.6  # share of a self-declared repeat's words an entry must hold
_SAYS_REPEAT = re.compile(
    r"^\W*(?:\d{1,2}:\d{2}\W*)?(?:" + "|".join(map(re.escape, REPEAT_MARKS)) + r")\b\s*[,:—–-]?",
    re.IGNORECASE,
)


# a remark ahead of what a line says: words alone (no value, code or markup), in parentheses opening
# it or as first clauses ended by a colon, comma or dash ("(repeating for the summary) X", "Again, for
# the record: X"); a semicolon joins a list's parts, not a remark to what it says
_WORDS_ALONE = r"[^\W\d_](?:[^\W\d_]|[ '’-]){0,60}?"
_PARENTHESISED = re.compile(rf"^\(({_WORDS_ALONE})\)\s*")
_CLAUSE = re.compile(rf"{_WORDS_ALONE}\s*(?:[:,]|\s[—–-])\s+")
_CLAUSE_MARKS = ":,—–-"  # one of them ends any _CLAUSE: a line without one has none
# cues that give what follows a remark a category or say it is done ("Decided:", "Blocked:", "Done:")
_CUES = (cues.DECISION, cues.LESSON, cues.ACTION, cues.STATUS, cues.RELATIONSHIP, cues.FACT, cues.DONE)
# a remark that says what follows is not, or no longer, so ("Not anymore:", "Previously:", "Old:")
_DENIES = re.compile(
    r"\b(?:" + "|".join(map(re.escape, (*NEGATIONS, *OLD_VALUE_MARKS, *BEFORE_LABELS))) + r")\b",
    re.IGNORECASE,
)
_REMARK_WORDS = 3  # content words of a remark at most: more is a clause of what the line says
_SAID_WORDS = 3  # content words after it at least: fewer is a key's value ("Owner: Ana"), not a statement


def remark_ahead(text: str, projects: frozenset[str], lead_in: bool = False) -> tuple[str, str] | None:
    """The remark ahead of what a line says, and what it says, when the remark is a few words with no
    value, no project and no category's cue standing apart from a statement: "(repeating for the
    summary)" and "the rollout is back on track ...", "Again, for the record:" and "the launch is at
    risk ..." (the longest such remark). "Blocked: X", "Decided: X", "Done: X", "Not anymore: X" and
    "<a project>: X" say more than X. With `lead_in`, only a remark with a word of a lead-in label,
    the shortest: "For the record," of "For the record, Vega search: X" (no project is known there to
    keep "Vega search:" out of the remark)."""
    if not text.startswith("(") and not any(mark in text for mark in _CLAUSE_MARKS):
        return None  # most lines: the clause pattern tried at each word costs ~3 µs (recall reads hundreds)
    found = None
    opening = _PARENTHESISED.match(text)
    clause = opening or _CLAUSE.match(text)
    while clause is not None and len(tokens(text[: clause.end()])) <= _REMARK_WORDS:
        remark, said = text[: clause.end()], text[clause.end() :]
        if tokens(remark) and len(tokens(said)) >= _SAID_WORDS:
            found = (remark, said)
            if lead_in and not tokens(remark).isdisjoint(LEAD_IN_WORDS):
                break
        clause = None if opening else _CLAUSE.match(text, clause.end())
    if (
        found is None
        or (lead_in and tokens(found[0]).isdisjoint(LEAD_IN_WORDS))
        or not tokens(found[0]).isdisjoint(projects)
        or _DENIES.search(found[0])
        or any(cue.search(found[0]) for cue in _CUES)
    ):
        return None
    return found


def says_repeat(text: str) -> bool:
    """The note says it repeats: "Recap: ...", "To confirm: ..."."""
    return _SAYS_REPEAT.search(text) is not None


def same_address(text: str, other: str, projects: frozenset[str]) -> bool:
    """Both give one subject the same time zone, e-mail, handle, host, IP, URL or channel, and no
    other value: "Cy timezone: Europe/London" and "Cy works from Europe/London time", not
    "Oli works from Europe/London time" (the same names, or what each is about named in the other)."""
    if matching.values_conflict(text, other):
        return False
    own, theirs = values.typed_values(text), values.typed_values(other)
    if not any(own.get(kind, frozenset()) & theirs.get(kind, frozenset()) for kind in _ADDRESS_KINDS):
        return False
    if any(own.get(kind, frozenset()) - theirs.get(kind, frozenset()) for kind in _ADDRESS_KINDS):
        return False  # "new IP is 10.0.9.42 (10.0.4.17 is decommissioned)": it gives another address too
    named, named_other = _people(text, projects), _people(other, projects)
    if named or named_other:
        return named == named_other
    about, about_other = matching.subject(text) - projects, matching.subject(other) - projects
    return bool(about and about_other) and (about <= tokens(other) or about_other <= tokens(text))


def new_address(text: str, other: str, projects: frozenset[str]) -> bool:
    """The same person gets another time zone, e-mail, handle or channel: "Eva timezone:
    America/Sao_Paulo" after "Eva works from America/Los_Angeles time". Each states it in its first
    sentence (`personal_values`)."""
    own, theirs = personal_values(text), personal_values(other)
    kinds = [kind for kind in _PERSONAL_KINDS if kind in own and kind in theirs]
    if not kinds or not all(own[kind].isdisjoint(theirs[kind]) for kind in kinds):
        return False
    named = _people(text, projects)
    return bool(named) and named == _people(other, projects)


def personal_values(text: str) -> dict[str, frozenset[str]]:
    """The typed values of a statement's first sentence: a person's new address is what it says, not
    a word of the sentences that explain it ("Bot1's mention-gating checks for a native Telegram
    mention entity. The @mention in the text body isn't one" gives no handle of anyone; "Contact: Ines
    (VP engineering) — ines@contoso.example" gives her address)."""
    return values.typed_values(_SENTENCE_END.split(text, maxsplit=1)[0])


def _people(text: str, projects: frozenset[str]) -> frozenset[str]:
    """The capitalised names a statement gives, less project names and a time zone's words."""
    zones = values.typed_values(text).get("zone", frozenset())
    return matching.names(text, projects) - {
        word for zone in zones for word in re.findall(r"[^\W\d_]+", zone)
    }


def repeats(text: str, other: str, other_words: frozenset[str], projects: frozenset[str]) -> bool:
    """An item that says it repeats ("For the record, ...", "... is still pending") repeats the entry
    that holds most of its words, or its values and a word of what they are about, and no other
    value: "For the record, Kai is in Europe/Berlin" and "Kai works from Europe/Berlin time"."""
    if matching.values_conflict(text, other):
        return False
    said = tokens(_SAYS_REPEAT.sub(" ", text)) - projects
    if len(statements.informative(said) & other_words) >= _REPEATED * len(
        statements.informative(said) or said
    ):
        return True
    named = {kind: found for kind, found in values.typed_values(text).items() if kind != "number"}
    held = values.typed_values(other)
    if not named or any(found.isdisjoint(held.get(kind, frozenset())) for kind, found in named.items()):
        return False
    value_words = {word for found in named.values() for value in found for word in tokens(value)}
    return bool((said - value_words) & other_words)


_OTHER_CONTENT = 3  # words in place of as many others that say another thing, not another wording
_INNER_RUN = 2  # words of a statement in a row, between words another has, that it lacks
_CODE = re.compile(r"`([^`]+)`")
_SPELLED = re.compile(r"[\w.+@#/:-]*\d[\w.+@#/:-]*|\w+_\w+")  # "MER-748", "hetzner-fsn1-12", "rate_limit_v2"
_MID_NAME = re.compile(rf"(?<=[\w,)]\s){NAME}\b")  # "... with Larchwood", not a clause's first word
# a clause's first word that is its subject: "Ines owns ...", "Teo is ...", "Ines now owns ...", "Teo will
# lead ..." (not "Again, ...", "Learned the ...")
_SUBJECT_NAME = re.compile(
    rf"(?:^|[:;]\s)({NAME})(?=\s+(?:[a-z]+\s+)?[a-z]+s\b|\s+(?:will|would|can|must|should)\b)"
)


def echoes(text: str, other: str, projects: frozenset[str]) -> bool:
    """`text` says nothing `other` does not, in other words: found near it by meaning (the sidecar's
    embeddings), it names no value, identifier, name or project that `other` lacks, says no value is gone,
    contradicts none, and is no sibling of it (the same words around one word swapped: "the design for
    the new export flow" and "... the new sso flow"), unless both state the same values of the same
    subject in other words. "Yara owns Vela gateway" echoes "Vela gateway is Yara's area"; "(again)
    Quokka keeps exports for 30 days" echoes "Quokka exports retention: 30 days"."""
    claim, other_claim = values.current_claim(text), values.current_claim(other)
    if similarity(tokens(claim), tokens(other_claim)) < _ECHOED_WORDS:
        return False  # near by meaning alone, in words it shares too little with
    if values.replaced_values(text) or matching.values_conflict(claim, other_claim):
        return False
    own, theirs = values.typed_values(claim), values.typed_values(other_claim)
    if any(not found <= theirs.get(kind, frozenset()) for kind, found in own.items()):
        return False
    named = {
        *_CODE.findall(claim),
        *_SPELLED.findall(claim),
        *_MID_NAME.findall(claim),
        *_SUBJECT_NAME.findall(claim),
    }
    held = other_claim.lower()
    if not (tokens(claim) & projects) <= tokens(other_claim):
        return False  # "Quokka API style: REST" is not "Decided: Vela public API is REST"
    if any(not values.mentions_value(held, name.strip(".,:;")) for name in named if name.strip(".,:;")):
        return False
    if _says_other_of_it(claim, other_claim) or statements.crossed(claim, other_claim):
        return False
    if statements.new_value_of_key(claim, other_claim, projects):
        return False
    own_words, other_words = word_sequence(claim), word_sequence(other_claim)
    if not _swapped(own_words, other_words) and not _inserted(own_words, other_words):
        return True
    return _same_values_of_its_subject(claim, other_claim, projects)


# the share of its words (or of the other's, the fewer) an echo says again: an embedding puts unrelated
# lines of a script it reads poorly near each other ("文档需要随着代码一起演进" by "决定: 从简单的工作流模式开始")
_ECHOED_WORDS = 0.5
_KEY_AHEAD = re.compile(rf"^\W*{_WORDS_ALONE}\s*(?::|\s[—–-])\s+")  # "Follow-up: ", "Reminder — "


def _says_other_of_it(claim: str, other: str) -> bool:
    """What `claim` says of its subject (the words after it) is nowhere in `other`, and `other` has
    words of its own: each says another thing of what they share ("Vela flag `beta` is off in prod" and
    the task "clean up the `beta` flag in Vela"), not one thing in two wordings ("Migrate the ledger off
    box-7 is still open" and "TODO migrate the ledger off box-7 (due 2026-11-30)": the task is its
    subject, and the task has nothing of its own ahead of the words they share past a key such as
    "Follow-up:": a deadline after them says when, not what)."""
    said, own = stems(tokens(matching.predicate(claim))), stems(tokens(claim))
    if not said or not said.isdisjoint(stems(tokens(other))):
        return False
    key = _KEY_AHEAD.match(other)
    words = word_sequence(other[key.end() if key else 0 :])
    shared = [index for index, word in enumerate(words) if stem(word) in own]
    ahead = frozenset(words[: shared[-1]] if shared else ())
    return bool(stems(statements.informative(ahead)) - own)


_OWN_WORDS = 1  # content words either of two statements of the same values may have that the other lacks


def _same_values_of_its_subject(claim: str, other: str, projects: frozenset[str]) -> bool:
    """Both state the same values, one names all that the other is about (its subject, less project
    names), and each has at most one other content word of its own (the other's subject, or what
    `claim` says), a word in another form of one root counting as the same ("renews", "renewal"): a
    key in one is a verb in the other ("Vela notifier is written in Python 3.12" and "Vela notifier
    stack: Python 3.12", "Orla contract renews on 2026-12-16" and "Orla renewal: 2026-12-16"), not
    another thing ("Vela api stack: Python 3.12", "Vela needs Python 3.12") nor more said of it ("...
    Python 3.12 and deployed nightly")."""
    claimed = values.typed_values(claim)
    if not claimed or claimed != values.typed_values(other):
        return False
    own, theirs = stems(matching.subject(claim) - projects), stems(matching.subject(other) - projects)
    said, held = stems(tokens(claim)), stems(tokens(other))
    return (
        bool(own)
        and (not _lacking(own, held) or (bool(theirs) and not _lacking(theirs, said)))
        and len(_lacking(theirs, said)) <= _OWN_WORDS
        and len(_lacking(stems(statements.informative(tokens(claim) - projects)), held)) <= _OWN_WORDS
    )


_ROOT = 5  # letters at least of a stem another word of its root extends
_ENDING = 3  # letters at most of the ending that extends it ("renew" + "al")


def _lacking(words: frozenset[str], other: frozenset[str]) -> set[str]:
    """The stems of `words` with no stem of their root in `other`."""
    return {word for word in words if not any(_one_root(word, known) for known in other)}


def _one_root(word: str, other: str) -> bool:
    """Two stems of one root: the same, or one a stem of _ROOT letters or more that the other extends
    by an ending of at most _ENDING letters ("renew", "renewal"; not "api", "apis" nor "contract",
    "contractors")."""
    short, long = sorted((word, other), key=len)
    return short == long or (
        len(short) >= _ROOT and long.startswith(short) and len(long) - len(short) <= _ENDING
    )


def _swapped(own: list[str], other: list[str]) -> bool:
    """Some words of `own` stand where `other` has others of another stem, between words both share, or
    as many before them ("Ines owns" and "Omar owns"; not "renews on" and "renewal:"), or several before
    or after them ("..., weil it removes a moving part" and "..., weil it unblocks Teo's work")."""
    for start, end, other_start, other_end in _replacements(own, other):
        before = start > 0 and other_start > 0
        after = end < len(own) and other_end < len(other)
        if (before and after) or (after and end - start == other_end - other_start):
            return True
        if (before or after) and min(end - start, other_end - other_start) >= _OTHER_CONTENT:
            return True
    return False


def _inserted(own: list[str], other: list[str]) -> bool:
    """`own` has words `other` lacks, several in a row between words both have ("Retention for Quokka
    email archives: 30 days" and "Quokka exports retention: 30 days"): it names another thing."""
    stems = {stem(word) for word in other}
    held = [stem(word) in stems for word in own]
    inner = re.compile(rf"(?<=1)0{{{_INNER_RUN},}}(?=1)")
    return inner.search("".join("1" if found else "0" for found in held)) is not None


def _replacements(own: list[str], other: list[str]) -> list[tuple[int, int, int, int]]:
    """Where words of `own` stand in place of others of another stem in `other`."""
    opcodes = SequenceMatcher(None, own, other, autojunk=False).get_opcodes()
    return [
        (start, end, other_start, other_end)
        for tag, start, end, other_start, other_end in opcodes
        if tag == "replace"
        and not {stem(word) for word in own[start:end]}
        & {stem(word) for word in other[other_start:other_end]}
    ]


def same_thing(text: str, other: str, projects: frozenset[str]) -> bool:
    """Both say something of one thing, whatever its values: `echoes` with every value blanked out
    ("Quill keeps invoices for 90 days" and "Quill invoices retention: 30 days", not "Quill keeps
    backups for 30 days")."""
    own, theirs = _unvalued(text), _unvalued(other)
    if _replacements(word_sequence(own), word_sequence(theirs)):
        return False  # "keeps invoices" and "keeps backups": words in place of others, anywhere
    return echoes(own, theirs, projects)


def _unvalued(text: str) -> str:
    for pattern in values.VALUE_KINDS.values():
        text = pattern.sub(" ", text)
    return re.sub(r"\d+", " ", text)


_TASK_WORDS = 3  # words of a task in a row that name it
_REMARK = 2  # words beside a task said again: a remark on it, not another task


def task_said_again(text: str, task: str, projects: frozenset[str]) -> bool:
    """`text` says an open action's `task` again with a remark of a word or two before or after it: it
    `echoes` the task, the words they share are one run in the same order (three or more), and at most
    two of its words are outside that run ("send Ana the deck, still waiting" after "send Ana the deck
    (due 2026-11-27)"; not "the deck to Ana: send it", nor "send Ana the deck and the budget sheet")."""
    if not echoes(text, task, projects):
        return False
    own = [stem(word) for word in word_sequence(text)]
    theirs = [stem(word) for word in word_sequence(task)]
    runs = [
        block
        for block in SequenceMatcher(None, own, theirs, autojunk=False).get_matching_blocks()
        if block.size
    ]
    if len(runs) != 1 or runs[0].size < _TASK_WORDS or len(own) - runs[0].size > _REMARK:
        return False
    run = own[runs[0].a : runs[0].a + runs[0].size]
    return set(own) & set(theirs) <= set(run)  # no shared word out of the run's order
