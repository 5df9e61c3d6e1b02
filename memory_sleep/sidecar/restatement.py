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

from difflib import SequenceMatcher

from memory_sleep.engines.offline.matching import without_lead_in
from memory_sleep.engines.offline.statements import KEY_WORDS, sequence, swapped
from memory_sleep.engines.offline.values import mentions_value, typed_values
from memory_sleep.language import INSTEAD, NEGATIONS, OLD_BETWEEN, OLD_VALUE_IN_TEXT, OLD_VALUE_MARKS
from memory_sleep.sidecar.statement import NAME, NUMBER, Statement, stated
from memory_sleep.sidecar.two_things import (
    OLDER_ONLY_WORDS,
    elsewhere,
    other_event,
    other_identifier,
    other_release,
    other_subject,
    other_subject_named,
    other_things,
    release_left_out,
    two_things,
)
from memory_sleep.text import CLOCK, tokens, without_history

SHARED_WORDS = 3  # a newer restatement shares at least this many words with the older result
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
    (`other_things`, `other_identifier`, `elsewhere`), or names what the older's choice is of and
    what it chose beside a new name (`_names_old_value`), or repeats all the older's words but one, or
    but two that are not capitalised; in these last two ways, never said of two things
    (sidecar/two_things.py: another person or thing, release, day's event or subject)."""
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
        other_things(older, newer, gone)
        or other_identifier(older, newer)
        or other_subject_named(older, newer)
    ):
        gone = ()  # said of two things: what one says is gone is not the other's
    for value in gone:  # "moves from Pim to Teo" after "ask Pim about ..."
        beside = shared - tokens(value) - _CHANGE_WORDS
        wanted = BESIDE_GONE_VALUE if len(tokens(value)) == 1 and not NUMBER.search(value) else 1
        if len(beside) >= wanted and _gone_from(older, value) and not elsewhere(older, newer, value):
            return not other_release(older, newer)
    if _names_old_value(older, newer):
        return True
    if _takes_back(older, newer):
        return not (other_release(older, newer) or other_identifier(older, newer))
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
    return (_replaced(older, newer, left) or _another_typed_value(older, newer, left)) and not two_things(
        older, newer, left
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
        or other_release(older, newer)
        or release_left_out(older, newer, left)
        or other_event(older, newer, left)
        or other_subject(older, newer)
        or bool(older.key and newer.key and not older.key_words <= newer.key_words)
        or other_identifier(older, newer)
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
