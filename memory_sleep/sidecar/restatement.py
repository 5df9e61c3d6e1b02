"""Whether a newer line states a new value of what an older line states (sidecar/statement.py reads
what each states: words, keys, typed values; sidecar/successors.py ranks the newer first and marks
the older).

The newer restates the older when it says the older's key with another value (or the key the older's
change opens with, "Quokka renewal pushed to ... (was ...)" then "Quokka renewal: ..."), names the
older's key and old value ("moved to X (was Y)"), says the older's value is gone as the offline engine
reads a change ("(was Y)", "from Y to X": engines/offline/values.py) and shares another word with it,
names what the older's choice is of and what it chose beside a new name ("Reversed: Quokka API goes gRPC
rather than REST" after "Quokka API style settled: REST"), or states of the older's subject a value the
older says is gone (a change taken back, `_takes_back`), or repeats all its words but one, which it says
otherwise in its place (or a typed value of which it gives another of the kind). It does not when it
states every typed value or the key's value of the older again and says none is gone (a restatement, no
newer value), nor when the two are said of two things: two of the workspace's projects (MEMORY.md's
`## Projects`), another person or name (or two people each named in the other's place), another part
of a name ("Quokka webhooks", "Quokka gateway"), another key or attribute ("port 8443", then "t3.medium
instances"), another release or another day's event, or a number said gone of a subject the older's key
does not name.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory_sleep.engines.offline.matching import predicate, subject, subject_phrase, without_lead_in
from memory_sleep.engines.offline.statements import KEY_WORDS, sequence, swapped
from memory_sleep.engines.offline.task_words import stem
from memory_sleep.engines.offline.values import mentions_value, typed_values
from memory_sleep.language import INSTEAD, NEGATIONS, OLD_BETWEEN, OLD_VALUE_IN_TEXT, OLD_VALUE_MARKS
from memory_sleep.sidecar.statement import NAME, NUMBER, WHICH, Statement, stated
from memory_sleep.text import CLOCK, tokens, without_history

_RELEASE = re.compile(r"v\d+(?:\.\d+)+")  # "v0.13.8": a release; a bare "3.12" may be a value
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
SHARED_WORDS = 3  # a newer restatement shares at least this many words with the older result
OLDER_ONLY_WORDS = 1  # and leaves out at most this many of them (its old value), or one more not a name
BESIDE_GONE_VALUE = 2  # words a newer result saying a one-word value is gone shares with the older besides
# the words saying a value is gone ("instead of", "from ... to", "no longer"), no words of what it is of
_CHANGE_WORDS = tokens(
    " ".join(
        [*OLD_VALUE_MARKS, *OLD_VALUE_IN_TEXT, *NEGATIONS, *INSTEAD, *(" ".join(f) for f in OLD_BETWEEN)]
    )
)


def restates(older: Statement, newer: Statement, projects: frozenset[frozenset[str]]) -> bool:
    """Never of two of the workspace's `projects` (each the words of its name: `_other_projects`). The
    newer states the older's key with another value (or the key a change the older tells opens with:
    `_another_of_a_kind`), or (unless it states every typed value of the older again and says none is
    gone: a restatement, no newer value) repeats the key with the older's value, or says the older's
    value is gone, shares another of its words (two for a one-word value; "instead", "from" and the other
    words saying a value is gone are none) and is not about other things
    (`_other_things`, `_other_identifier`, `_elsewhere`), or names what the older's choice is of and
    what it chose beside a new name (`_names_old_value`), or repeats all the older's words but one, or
    but two that are not capitalised; in these last two ways, never of another person or thing
    (`_other_name`, `_other_part`, `_other_key`, `_roles_swapped`, `_attribute_left`), release or day's event
    (`_other_release`, `_release_left_out`, `_other_event`)."""
    if _other_projects(older, newer, projects):
        return False
    if older.key and older.key == newer.key:
        return older.value_words != newer.value_words  # the same key with a value of its own
    field = next((field for field in newer.fields if field.key == older.key), None) if older.key else None
    if field is not None:  # a row of a status board the newer sets under its first line
        return older.value_words != field.value_words
    if older.gone and newer.key and not older.key and frozenset(older.opening[: len(newer.key)]) == newer.key:
        return _another_of_a_kind(older, newer)  # a change of the key told in a sentence, then the key
    shared = older.words & newer.words
    if len(shared) < 2:
        return False  # each link below shares a word besides the value
    if older.values and older.values <= newer.values | newer.claimed and not _says_gone(older, newer):
        return False  # every typed value it states claimed again, none said gone: no newer value of it
    if (
        older.value_words
        and older.value_words <= newer.words
        and not newer.names - older.words
        and not _says_gone(older, newer)
    ):
        return False  # its key's value said again, no other name: "Ola owns X" after "Owner (X): Ola"
    # the key and its old value named: "moved to X (was Y)", "FROM: Y ... TO: X"; not its whole value
    # said again as the newer's own ("Quokka v1.2: audit log v2", then "Quokka v1.2 is live, ships
    # audit log v2" over lines that name other things)
    if (
        older.value
        and older.key <= newer.said
        and older.value in newer.said
        and not (older.value_words <= newer.words and not _says_gone(older, newer))
    ):
        return True
    gone = newer.gone
    if gone and (
        _other_things(older, newer, gone)
        or _other_identifier(older, newer)
        or _other_subject_named(older, newer)
    ):
        gone = ()  # said of two things: what one says is gone is not the other's
    for value in gone:  # "moves from Pim to Teo" after "ask Pim about ..."
        beside = shared - tokens(value) - _CHANGE_WORDS
        wanted = BESIDE_GONE_VALUE if len(tokens(value)) == 1 and not NUMBER.search(value) else 1
        if len(beside) >= wanted and _gone_from(older, value) and not _elsewhere(older, newer, value):
            return not _other_release(older, newer)
    if _names_old_value(older, newer):
        return True
    if _takes_back(older, newer):
        return not (_other_release(older, newer) or _other_identifier(older, newer))
    if _count(shared, older.pairs) < SHARED_WORDS:
        return False
    left = older.words - newer.words
    left_out = _count(left, older.pairs)
    if not (left_out <= OLDER_ONLY_WORDS or (left_out <= OLDER_ONLY_WORDS + 1 and not left & older.names)):
        return False
    if not left_out:
        return False  # every word said again: no newer value
    if (
        left & older.value_words_typed
        and left - older.value_words_typed
        and swapped(older.text, newer.text, values=older.value_words_typed)
    ):
        return False  # a value and what it is of: "keeps invoices for 180 days", then "exports for 90 days"
    return (_replaced(older, newer, left) or _another_typed_value(older, newer, left)) and not (
        _other_name(older, newer, left)
        or _other_release(older, newer)
        or _release_left_out(older, newer, left)
        or _other_event(older, newer, left)
        or _other_subject(older, newer)
        or _other_part(older, newer, left)
        or _other_key(older, newer)
        or _roles_swapped(older, newer)
        or _attribute_left(older, newer)
        or _attribute_left(newer, older)
    )


def _other_projects(older: Statement, newer: Statement, projects: frozenset[frozenset[str]]) -> bool:
    """Each names a project the other does not (every word of its name), or is filed under one:
    "Quokka flag `async_ingest` is on for 10%", then "Orion flag `async_ingest` is off", are two
    projects' flags, and "Agreed: Quokka goes on Render", then "Agreed: Orion goes on Fly.io", two
    choices; so are two lines that differ in their project alone ("quokka flag `x` is off in prod", then
    "Orion flag `x` is off in prod", a name in lower case). One word of a name is no project: "web" and
    "app" are not "Web App". Filing alone does not part two lines when the newer says the older's key
    and that its value is gone: "Contoso renewal pushed to 2026-10-22 (was 2026-10-19)" in a note filed
    under Orion changes "**Contoso renewal:** 2026-10-19" in one filed under Quokka (a note's front
    matter may file a day of many projects' lines under one). The author's "(was ...)" names what
    changed; the filing is only where it was written."""
    own = {project for project in projects if project <= older.about}
    theirs = {project for project in projects if project <= newer.about}
    if not (own and theirs) or own & theirs:
        return False
    named = any(project <= older.words or project <= newer.words for project in own | theirs)
    return named or not (older.key and older.key <= newer.said and _says_gone(older, newer))


def _another_of_a_kind(older: Statement, newer: Statement) -> bool:
    """The newer's key, which the older's change opens with, gives a typed value of a kind the older
    states now, and another one: "**Quokka renewal:** 2026-12-28" after "Quokka renewal pushed to
    2026-11-10 (was 2026-10-11)". Only a change: the key's words may open a line about another thing
    ("Quokka renewal call moved to ..."), while a change is of what it opens with."""
    own, theirs = typed_values(older.claim), typed_values(newer.value_text)
    return any(not own[kind] & theirs[kind] for kind in own.keys() & theirs.keys())


def _names_old_value(older: Statement, newer: Statement) -> bool:
    """The older states a choice (`Statement.choice`) and the newer names, capitalised, what it is of
    and what it chose beside a name the older never says: a decision reversed in words no change
    phrase lists, "Reversed: Quokka API goes gRPC rather than REST" after "Quokka API style settled:
    REST", "Scrapping Vue for Quokka; we rebuild on Solid" after "Decided to build the Quokka UI with
    Vue". The newer may only add to the choice ("Lina set up the Datadog alerts for Quokka" after
    "Decided: Quokka monitoring goes to Datadog"): it ranks first, both are shown, the older marked
    with the newer's place and day. Not of another thing: "**Decision (Vela API)**: REST" is another
    choice, "fix the flaky `test_render_report`" (an identifier) no word on "host Quokka on Render";
    nor a choice of nothing ("We'll use Prometheus for ...": "We'll" names nothing it is of, and the
    same tool chosen for another project is no change of it), nor when a label is the only name the
    newer adds ("Update: ..."), nor of another person, key, release or day's event (the guards of
    `restates`'s last link). Each is read on its first line: the lines under it ("considered: gRPC")
    name the alternatives, not the choice."""
    older, newer = _first_line(older), _first_line(newer)
    choice = older.choice if older.decision else None
    if choice is None:
        return False
    own, theirs = _unlabelled_names(older), _unlabelled_names(newer)
    named = tokens(" ".join(NAME.findall(newer.text)))  # its capitalised words, not its identifiers'
    of, chosen = choice
    if not (of and chosen | of <= named and theirs - older.said):
        return False
    left = older.words - newer.words
    return not (
        (left & own and swapped(older.text, newer.text))
        or _other_release(older, newer)
        or _release_left_out(older, newer, left)
        or _other_event(older, newer, left)
        or _other_subject(older, newer)
        or bool(older.key and newer.key and not older.key_words <= newer.key_words)
        or _other_identifier(older, newer)
    )


def _takes_back(older: Statement, newer: Statement) -> bool:
    """The older changes a value and the newer, saying nothing gone, is a key that names what the
    older says ahead of the old value (a word more or less: the verb, the attribute) with the old
    value as its value: the change taken back. "Quokka exporter resized from c7g.xlarge to
    m6i.large", then "**Quokka exporter instance:** c7g.xlarge". A line that only mentions the old
    value ("Quokka Postgres backups run nightly" after "Quokka moved from Postgres to MySQL") states
    no value of the older's key."""
    if not older.gone or newer.gone:
        return False
    about, said = newer.key_words, newer.value_words
    if len(about) < KEY_WORDS:
        return False
    plain = older.text.lower()
    for value in older.gone:
        words = tokens(value)
        at = plain.find(value.lower())
        if not words or at < 0 or not words <= said or len(said - words) > 1:
            continue
        ahead = frozenset(word for word in tokens(plain[:at]) if not CLOCK.fullmatch(word))
        if len(about & ahead) >= KEY_WORDS and len(about - ahead) <= 1 and len(ahead - about) <= 1:
            return True
    return False


def _first_line(said: Statement) -> Statement:
    return stated(said.text.split("\n", 1)[0], False) if "\n" in said.text else said


def _unlabelled_names(said: Statement) -> frozenset[str]:
    """Its names (`Statement.names`) but the label it starts with: "Reversed: Quokka API ..."."""
    text = without_lead_in(said.text)
    return said.names if text == said.text.strip() else stated(text, False).names


def _replaced(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The newer is the older with the words it leaves out said otherwise in their place, and nothing
    more: "Teo owns Orion notifier", then "Pim takes over Orion notifier from Teo"; "runs weekly
    at noon", then "runs daily". A value it leaves out with nothing in its place is not changed by
    it ("`dark_mode` (Orion): on for everyone", then "clean up the `dark_mode` flag in Orion"), nor
    is one beside which it says other things ("Pim owns Orion exporter", then "queue for Orion is
    NATS; it unblocks Pim's work on exporter")."""
    own, theirs = sequence(older.text), sequence(newer.text)  # a CJK run is one word here
    replaced: set[str] = set()
    instead: set[str] = set()
    for tag, start, end, other_start, other_end in SequenceMatcher(
        None, own, theirs, autojunk=False
    ).get_opcodes():
        said = tokens(" ".join(own[start:end]))  # its words and CJK pairs, as `left` has them
        if tag == "replace" and left & said:
            replaced.update(said)
            instead.update(tokens(" ".join(theirs[other_start:other_end])))
    return left <= replaced and newer.words - older.said <= instead | frozenset(
        word for value in newer.gone for word in tokens(value)
    )


def _another_typed_value(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The older's typed values the newer leaves out have each a value of their kind in the newer that
    the older never says: "expires 2026-12-02", then "renewed (new expiry 2027-02-17)"."""
    own, theirs = typed_values(without_history(older.text)), typed_values(without_history(newer.text))
    kinds = [kind for kind, found in own.items() if any(tokens(value) & left for value in found)]
    return bool(kinds) and all(theirs.get(kind, frozenset()) - own[kind] for kind in kinds)


def _says_gone(older: Statement, newer: Statement) -> bool:
    """The newer says a value of the older is gone."""
    return any(_gone_from(older, gone) for gone in newer.gone)


def _gone_from(older: Statement, gone: str) -> bool:
    """`gone` is a value of the older: its claim's, or its key's value with a word at most beside it
    ("switched ams", read before the arrow of "Quokka region switched ams → us-west-2", after "Quokka
    production region: ams"); not a whole statement that holds it ("(previously: Pim on leave
    2026-11-26 to 2026-11-28 (3 days))" is no value of "Pim's leave ... is now 3 days")."""
    if mentions_value(older.claim, gone):
        return True
    said = tokens(gone)
    return bool(older.value_words) and older.value_words <= said and len(said) <= len(older.value_words) + 1


def _other_name(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
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


def _other_part(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
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


def _other_key(older: Statement, newer: Statement) -> bool:
    """Both say "Key: value" and the newer's key lacks a word of the older's: "**Owner (Quokka
    ingest):** Pim" and "status: ...; next: ...; owner: Pim" are said of two keys (the same key is
    `restates`'s first link; "Quokka Python version: 3.12" keeps every word of "Python for Quokka")."""
    return bool(older.key_words and newer.key_words and not older.key_words <= newer.key_words)


def _other_release(older: Statement, newer: Statement) -> bool:
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


def _release_left_out(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
    """The words the older leaves out hold a release ("v0.13.8") the newer says another of: "Audit log
    v2 goes out with Quokka v0.13.8" and "Quokka v0.13.7 will ship audit log v2" are two releases. A
    bare version is a value ("pinned to Python 3.12", then "3.11"), and so may a day be ("expires
    2026-12-02", then "renewed (new expiry 2027-02-17)")."""
    return any(_RELEASE.fullmatch(word) for word in left) and any(
        _RELEASE.fullmatch(word) for word in newer.words - older.said
    )


def _other_event(older: Statement, newer: Statement, left: frozenset[str]) -> bool:
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


def _other_subject(older: Statement, newer: Statement) -> bool:
    """Their heads differ by words of one standing where the other has others, between words both
    have (statements.swapped): "Quokka exporter stack: Elixir 1.17" and "Quokka api stack: Elixir
    1.17", "Quokka canary database host is X" and "Quokka staging database host is Y" are said of two
    things. A lead-in before the head ("For the record, ...", "(repeating for the summary) ...") and
    a value after it ("Python for Quokka: 3.11", then "... 3.12") change nothing of what it is about."""
    return bool(older.head and newer.head) and swapped(older.head, newer.head)


def _other_things(older: Statement, newer: Statement, gone: tuple[str, ...]) -> bool:
    """Each names what the other never says and they share no name but the values said gone: "Pim's
    leave ... (was 7 days)" is no change of "Teo on leave 2026-11-27, 7 days", "Switching Vega from a
    local Llama to Claude" none of "Quokka LLM provider: a local Llama" (a value is no name of what
    holds it); "port is now 9090 (was 8080)", which names nothing the older lacks, may be one of
    "Quokka port: 8080"."""
    values = frozenset(word for value in gone for word in tokens(value))
    shared = older.names & newer.names - values
    own, theirs = _forms(older.names), _forms(newer.names)
    return bool(own - _forms(newer.words) and theirs - _forms(older.words) and not shared)


def _other_subject_named(older: Statement, newer: Statement) -> bool:
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


def _elsewhere(older: Statement, newer: Statement, gone: str) -> bool:
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


def _attribute_left(one: Statement, other: Statement) -> bool:
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


def _roles_swapped(older: Statement, newer: Statement) -> bool:
    """The names each one's subject holds are others, and each names the other's: "Pim on leave
    2026-12-07, 7 days, ping Teo instead" and "Teo on leave 2026-12-07, 10 days, ping Pim instead"
    are two leaves, not one changed ("Ola owns Orion notifier" after "Ines owns ..." names no Ines)."""
    own, theirs = subject(older.claim) & older.names, subject(newer.claim) & newer.names
    return bool(own and theirs and own.isdisjoint(theirs) and own <= newer.words and theirs <= older.words)


def _other_identifier(older: Statement, newer: Statement) -> bool:
    """Each names an identifier the other never says: "`async_ingest` (Quokka): on for internal users"
    and "Quokka flag `webhooks_v3` changed from on for internal users to ..." are two flags."""
    return bool(older.identifiers - newer.identifiers and newer.identifiers - older.identifiers)


def _count(words: frozenset[str], pairs: frozenset[str]) -> int:
    """How many words these are, of a statement whose CJK pairs are `pairs`: a pair of CJK characters
    (`tokens` splits an un-spaced run into overlapping pairs) is no word; the characters the pairs
    cover make about one word in two, so "继续完善" (three pairs) counts two and one word changed
    inside a run (three pairs left out) two."""
    if not pairs:
        return len(words)
    among = words & pairs
    covered = {character for pair in among for character in pair}
    return len(words) - len(among) + (len(covered) + 1) // 2
