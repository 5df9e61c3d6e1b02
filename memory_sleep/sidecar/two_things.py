"""Whether two statements that share most of their words are said of two things (sidecar/restatement.py
asks before it reads a newer line as a new value of an older one): two people or names, two parts of
one thing, two keys or attributes, two releases, two days' events, two identifiers, or a value said gone
of what the older's subject does not name."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory_sleep.engines.offline.matching import predicate, subject, subject_phrase
from memory_sleep.engines.offline.statements import sequence, swapped
from memory_sleep.engines.offline.task_words import stem
from memory_sleep.engines.offline.values import typed_values
from memory_sleep.sidecar.statement import NAME, NUMBER, WHICH, Statement
from memory_sleep.text import CLOCK, tokens, without_history

_RELEASE = re.compile(r"v\d+(?:\.\d+)+")  # "v0.13.8": a release; a bare "3.12" may be a value
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# a newer restatement leaves out at most this many words of the older (its old value), or one more not a name
OLDER_ONLY_WORDS = 1


def two_things(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The newer, which repeats all the older's words but `left`, is said of another person or thing
    (`other_name`, `other_part`, `other_key`, `roles_swapped`, `attribute_left`), release or day's event
    (`other_release`, `release_left_out`, `other_event`), or subject (`other_subject`)."""
    return (
        other_name(older, newer, left)
        or other_release(older, newer)
        or release_left_out(older, newer, left)
        or other_event(older, newer, left)
        or other_subject(older, newer)
        or other_part(older, newer, left)
        or other_key(older, newer)
        or roles_swapped(older, newer)
        or attribute_left(older, newer)
        or attribute_left(newer, older)
    )


def other_name(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """A name the older leaves out stands where the newer has another word (statements.swapped): "Pim
    on leave 2026-11-19, 14 days" and "Teo on leave 2026-11-19, 14 days", "Quokka: Contoso pays for
    Starter" and "Quokka: Fabrikam pays for Starter" are said of two people or things. A capitalised
    word left out before the words both say stands in no one's place: "**Owner (Quokka exporter):**
    Pim", then "Teo takes over Quokka exporter from Pim", changes the owner; one the newer puts a name
    of its own in the place of, naming nothing else both say, is another person (`_another_persons`)."""
    return bool(left & older.names) and (
        swapped(older.text, newer.text) or _another_persons(older, newer, left)
    )


def _another_persons(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The older opens with a name it leaves out, the newer has a name of its own in its place, and the
    words both say after it name nothing but who the name is ("(Contoso)", "from Contoso"): the same
    thing said of two people, "Ines (Contoso) wants cost estimates in every proposal", then "Working
    with Ola from Contoso: wants cost estimates in every proposal". When those words name a thing, the
    name may be its value: "Pim owns Quokka notifier", then "Teo owns Quokka notifier"."""
    own = [word for word in sequence(older.text) if not CLOCK.fullmatch(word)]
    theirs = [word for word in sequence(newer.text) if not CLOCK.fullmatch(word)]
    opcodes = SequenceMatcher(None, own, theirs, autojunk=False).get_opcodes()
    if len(opcodes) < 2 or opcodes[0][0] != "replace" or opcodes[1][0] != "equal":
        return False
    _, start, end, other_start, other_end = opcodes[0]
    if not (
        tokens(" ".join(own[start:end])) <= left & older.names
        and tokens(" ".join(theirs[other_start:other_end])) & (newer.names - older.words)
    ):
        return False
    after = own[end + 1 :] if tokens(own[end]) <= older.names else own[end:]
    return not tokens(" ".join(after)) & older.names


def other_part(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """Words the older leaves out, plain ones (no name, no number), follow a name both say, and the
    newer has words of its own after that name in their place: the name's parts, "Ines owns Quokka
    webhooks" and "Ines owns Quokka gateway", "Ask Ines about Quokka ingest" and "Ask Ines about Quokka
    grpc", are two things. A plain word after another word is a value: "Quokka backups run weekly",
    then "Quokka backups run daily"; so is a number after a name ("Python 3.12", then "Python 3.11")."""
    own, theirs = sequence(older.text), sequence(newer.text)
    named = older.names & newer.names
    return any(
        tag == "replace"
        and start > 0
        and other_start > 0
        and own[start - 1] == theirs[other_start - 1]
        and tokens(own[start - 1]) <= named
        and tokens(" ".join(own[start:end])) & left
        and not any(NUMBER.search(word) or tokens(word) & older.names for word in own[start:end])
        for tag, start, end, other_start, other_end in SequenceMatcher(
            None, own, theirs, autojunk=False
        ).get_opcodes()
    )


def other_key(older: Statement, newer: Statement) -> bool:
    """Both say "Key: value" and the newer's key lacks a word of the older's: "**Owner (Quokka
    ingest):** Pim" and "status: ...; next: ...; owner: Pim" are said of two keys (the same key is
    `restates`'s first link; "Quokka Python version: 3.12" keeps every word of "Python for Quokka")."""
    return bool(older.key_words and newer.key_words and not older.key_words <= newer.key_words)


def other_release(older: Statement, newer: Statement) -> bool:
    """Each one's subject names a version or a day the other never says: "Scope of Quokka v0.16.0:
    audit log v2" and "Quokka v0.12.2 scope changed: ... instead of audit log v2" are two releases;
    "Python for Quokka: 3.12" and "Quokka moved from Python 3.12 to 3.11" change one value. Nor does
    a newer that says which value is gone and names in its subject, ended by its verb, a day the
    older never says change one whose day is another: "Pim's leave from 2026-12-17 is now 3 days
    (was 5 days)" is no change of "Pim is out from 2026-11-28 for 5 days" ("renewed (new expiry
    2027-02-17)" names no value gone: the day may be the value). A day or version either says is gone
    names no release or event of its own: "Contoso renewal pushed to 2026-12-14 (was 2026-10-18)"
    changes "Contoso renewal pushed to 2026-10-18 (was 2026-09-13)"."""
    own, theirs = _which(older), _which(newer)
    if own - newer.said and theirs - older.said:
        return True
    days = own | frozenset(value for value in older.values if WHICH.fullmatch(value))
    return bool(newer.gone and days - newer.said and theirs - older.said and predicate(newer.text))


def _which(said: Statement) -> frozenset[str]:
    """The versions and days that say which release or event it is about (`Statement.which`), less
    those it says are gone."""
    return said.which - frozenset(word for value in said.gone for word in tokens(value))


def release_left_out(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The words the older leaves out hold a release ("v0.13.8") the newer says another of: "Audit log
    v2 goes out with Quokka v0.13.8" and "Quokka v0.13.7 will ship audit log v2" are two releases. A
    bare version is a value ("pinned to Python 3.12", then "3.11"), and so may a day be ("expires
    2026-12-02", then "renewed (new expiry 2027-02-17)")."""
    return any(_RELEASE.fullmatch(word) for word in left) and any(
        _RELEASE.fullmatch(word) for word in newer.words - older.said
    )


def other_event(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The words the older leaves out are the first day it names and a number beside it, and the newer
    says another day: "Pim is out from 2026-11-19 for 4 days" and "Pim is out from 2026-12-27 for 14
    days" are two leaves; the first day says which event, the number its value. The same first day
    with another end and length is the same leave changed ("from 2026-11-29 until 2026-12-08, 10
    days", then "... until 2026-12-12, 14 days"). Nor is another first day beside the same values
    ("Pim is out from 2026-11-23 for 5 days", then "... from 2027-01-01 for 5 days") a change: the
    day says which event. A day alone left out, the older's only value, may be the value ("expires
    2026-12-02", then "renewed (new expiry 2027-02-17)")."""
    first = _DAY.search(older.text)
    if first is None or first.group() not in left:
        return False
    beside = older.values - {first.group()}
    return (
        any(NUMBER.search(word) and word != first.group() for word in left)
        or bool(beside and beside <= newer.values)
    ) and any(_DAY.fullmatch(word) for word in newer.words - older.said)


def other_subject(older: Statement, newer: Statement) -> bool:
    """Their heads differ by words of one standing where the other has others, between words both
    have (statements.swapped): "Quokka exporter stack: Elixir 1.17" and "Quokka api stack: Elixir
    1.17", "Quokka canary database host is X" and "Quokka staging database host is Y" are said of two
    things. A lead-in before the head ("For the record, ...", "(repeating for the summary) ...") and
    a value after it ("Python for Quokka: 3.11", then "... 3.12") change nothing of what it is about."""
    return bool(older.head and newer.head) and swapped(older.head, newer.head)


def other_things(older: Statement, newer: Statement, gone: tuple[str, ...]) -> bool:
    """Each names what the other never says and they share no name but the values said gone: "Pim's
    leave ... (was 7 days)" is no change of "Teo on leave 2026-11-27, 7 days", "Switching Vega from a
    local Llama to Claude" none of "Quokka LLM provider: a local Llama" (a value is no name of what
    holds it); "port is now 9090 (was 8080)", which names nothing the older lacks, may be one of
    "Quokka port: 8080"."""
    values = frozenset(word for value in gone for word in tokens(value))
    shared = older.names & newer.names - values
    own, theirs = _forms(older.names), _forms(newer.names)
    return bool(own - _forms(newer.words) and theirs - _forms(older.words) and not shared)


def other_subject_named(older: Statement, newer: Statement) -> bool:
    """In their subjects a name of one stands where the other has a name of its own, ahead of words
    both say: "Vega flag `async_ingest` changed from on for everyone to off" is no change of "Quokka
    flag `async_ingest` is on for everyone" (the same flag, another project's). "Quokka exporter moves
    from Pim to Teo" after "Pim owns Quokka exporter" names Pim; "Switching Vega from ... to ..."
    after "Vega LLM provider: ..." holds no name in another's place. The newer's name need not be new
    to the older, only to its subject: "Ola's leave from 2026-10-29 is now 3 days (was 14 days)" is
    no change of "Ines on leave 2026-10-29, 14 days, ping Ola instead"."""
    own = sequence(subject_phrase(older.text))
    theirs = sequence(subject_phrase(newer.text))
    names, other_names = older.names - newer.words, newer.names - tokens(" ".join(own))
    return any(
        tag == "replace"
        and end < len(own)
        and other_end < len(theirs)
        and tokens(" ".join(own[start:end])) & names
        and tokens(" ".join(theirs[other_start:other_end])) & other_names
        for tag, start, end, other_start, other_end in SequenceMatcher(
            None, own, theirs, autojunk=False
        ).get_opcodes()
    )


def elsewhere(older: Statement, newer: Statement, gone: str) -> bool:
    """A number said gone (a count, an amount, a duration, an instance size) is said of many things: the
    newer changes the older's only when the older's key names nothing the newer never says, or the
    newer's subject nothing the older never says, capitalised or not: "vega audit logs retention
    changed 365 days → 180 days" is no change of "Retention for Quokka invoices: 365 days"; "port is
    now 9090 (was 8080)", whose subject names nothing the older lacks, may be one of "Quokka port:
    8080". A number with no name ("m6i.large", not "Postgres 15") is weighed so against the subject
    a verb ends too: "Quokka api resized from m6i.large to c7g.xlarge" is no change of "Quokka billing
    runs on m6i.large instances"; in a statement whose verb is none the subject reader knows, against
    every word but the value, of which the newer may leave out one (the verb): "Quokka user uploads
    retention: 365 days (previously: 90 days)" is no change of "Quokka keeps backups for 90 days", but
    one of "Quokka keeps uploads for 90 days"."""
    if NUMBER.search(gone) is None:
        return False
    own = older.key
    if not own and not NAME.search(gone):
        if not predicate(older.claim):
            left = older.words - tokens(gone) - newer.words
            return len(left) > OLDER_ONLY_WORDS and bool(subject(newer.claim) - older.about)
        own = subject(older.claim)
    return bool(_forms(own) - _forms(newer.about)) and bool(
        _forms(subject(newer.claim)) - _forms(older.about)
    )


def _forms(words: frozenset[str]) -> frozenset[str]:
    """The words crudely stemmed, a hyphenated word as its parts: "DB-host" says what "DB hosts" says."""
    return frozenset(stem(part) for word in words for part in word.split("-") if part)


def attribute_left(one: Statement, other: Statement) -> bool:
    """One says a typed value, and a word naming what it is, the other never says, and the other has
    no value of its kind: "runs on port 8443" and "runs on t3.medium instances" say two attributes
    ("on for 10%", then "on for everyone", changes the one value it leaves out)."""
    left = one.words - other.said
    own = typed_values(without_history(one.text))
    kinds = [kind for kind, found in own.items() if any(tokens(value) & left for value in found)]
    if not kinds or not left - one.value_words_typed:
        return False
    theirs = typed_values(without_history(other.text))
    return not any(theirs.get(kind) for kind in kinds)


def roles_swapped(older: Statement, newer: Statement) -> bool:
    """The names each one's subject holds are others, and each names the other's: "Pim on leave
    2026-12-07, 7 days, ping Teo instead" and "Teo on leave 2026-12-07, 10 days, ping Pim instead"
    are two leaves, not one changed ("Ola owns Orion notifier" after "Ines owns ..." names no Ines)."""
    own, theirs = subject(older.claim) & older.names, subject(newer.claim) & newer.names
    return bool(own and theirs and own.isdisjoint(theirs) and own <= newer.words and theirs <= older.words)


def other_identifier(older: Statement, newer: Statement) -> bool:
    """Each names an identifier the other never says: "`async_ingest` (Quokka): on for internal users"
    and "Quokka flag `webhooks_v3` changed from on for internal users to ..." are two flags."""
    return bool(older.identifiers - newer.identifiers and newer.identifiers - older.identifiers)
