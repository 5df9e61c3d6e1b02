"""Which entry a newer statement changes, on structural evidence only: a value it says is gone, the
same key or subject with a new typed value of the same kind, a new personal address. Words alone
never supersede: a wrong supersede hides the truth, an add beside the old entry keeps both."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory_sleep.engines.offline import held_values, matching, repeats, statements, values
from memory_sleep.models import KeptItem
from memory_sleep.text import jaccard, tokens, word_sequence

_RESCHEDULED = 0.6
_RESCHEDULED_WORDS = 4
_PERSONAL = frozenset(["email", "handle"])
# typed values that count or measure: two of them say nothing of one thing (`_section_fits`)
_COUNTS = frozenset({"number", "time", "duration", "weekday"})
# "Cycle 2: ...", "Phase 1:", "TARGET #2": a numbered part of a list, one of several
_ORDINAL = re.compile(r"^\W*([^\W\d_]+)\s*#?(\d+)\b")
_CLAUSE_END = re.compile(r"[,;，；。]|\.\s")
_STATEMENTS = frozenset({"decision", "fact", "relationship", "status"})
# verbs that join a project to what it runs or uses ("Grus runs on Node 18"): not what it is about
_VERBS = frozenset(["runs", "run", "uses", "use", "got", "has", "have", "is", "are", "now", "moved", "lives"])


@dataclass(eq=False)  # compared by identity in the index
class Candidate:
    ref: str
    section: str
    topic: str | None
    text: str
    words: frozenset[str]
    order: int = 0
    replaced: tuple[str, ...] = ()  # statements it is the new value of (replaced_by)


def replaced_by(text: str, others: Sequence[str]) -> tuple[str, ...]:
    """The statements among `others` that `text` replaced: it names as gone a value one held ("from
    Elixir 1.17 to TypeScript" of "Pavo billing language: Elixir 1.17", "(previously: 53%)")."""
    gone = values.replaced_values(text) if others else ()
    return tuple(
        other
        for other in others
        if any(held_values.holds(values.current_claim(other), value) for value in gone)
    )


def contradicted(
    kept: KeptItem,
    text: str,
    candidates: Sequence[Candidate],
    projects: frozenset[str],
    tasks: Sequence[Candidate] = (),
) -> Candidate | None:
    """An entry this newer item changes, on structural evidence only: the one holding the value it
    says is gone ("(was 5432)", "from Kafka to", "4 → 16"); else the same key or subject with a new
    typed value of the same kind (IP, host, port, version, date, amount, handle); or the same release
    with what the entry claimed it ships named after a new claim ("v2.3 now ships X; Y waits" after
    "v2.3 will ship Y": statements.demotes); else an entry that holds now the value of a statement it
    changes (the entry replaced it: `Candidate.replaced`). Words alone ("we're switching back") never supersede:
    a wrong supersede hides the truth, an add beside the old entry keeps both with their dates.
    Project names say where a statement belongs, never what it is about: "Borealis auth port" and
    "Borealis runs Postgres" differ. Only a named old value reaches `tasks` (open actions, which a
    dated fact may be filed as: "renewal due 2026-12-09")."""
    if kept.category not in _STATEMENTS:
        return None
    named = _named_change(kept, text, [*candidates, *tasks], projects, frozenset(c.ref for c in tasks))
    if named is not None:
        return named
    if _table(text):
        return None
    key = statements.subject_key(text, projects) if statements.names_a_subject(text, projects) else None
    own_subject = about(text, projects)
    best, best_score = None, 0.0
    own_releases = statements.releases(text)
    keyed = [
        candidate
        for candidate in candidates
        if _section_fits(kept, candidate, text) and _named_in_key(kept, candidate, text, projects)
    ]
    if len(keyed) == 1:
        return keyed[0]  # two entries fit: which one the key names, nothing says
    for candidate in candidates:
        if _table(candidate.text) or _other_part(text, candidate.text):
            continue  # "Phase 52 ..." and "Phase 35 ...": two parts, whatever value each states
        other_releases = statements.releases(candidate.text)
        if own_releases and other_releases:
            if own_releases.isdisjoint(other_releases):
                continue  # "Scope of v0.15.3" and "Scope of v0.16.7": two releases
            if (
                key is not None
                and set(key.split()) <= own_releases
                and statements.value_part(text) != statements.value_part(candidate.text)
            ):
                return candidate  # "Pavo v0.6.5: the rebuilt dashboard" after "v0.6.5 will ship audit log v2"
            if own_releases == other_releases and statements.demotes(text, candidate.text):
                return candidate  # "Pavo v0.6.5 now ships SSO; audit log v2 waits" after "... audit log v2"
        # "Session Duration: ~30 minutes" in two notes: two sessions, not one changed
        one_thing = _one_thing(kept, candidate, text, projects)
        if (
            one_thing
            and key
            and key == statements.subject_key(candidate.text, projects)
            and statements.value_part(text) != statements.value_part(candidate.text)
            and not names_differ(text, candidate.text)  # "Lyra frontend:", "Pavo frontend:"
        ):
            return candidate
        other = about(candidate.text, projects)
        same = (
            one_thing
            and _same_subject(own_subject, other, text, candidate.text, projects)
            and not (
                matching.people_differ(
                    statements.first_clause(text), statements.first_clause(candidate.text), projects
                )
                or not _section_fits(kept, candidate, text)  # a count is no policy
            )
        )
        if (
            same
            and _new_value(text, candidate.text, own_subject == other)
            and not _name_others(text, candidate.text)
        ):
            score = 1.0 + jaccard(own_subject, other)
            if score > best_score:
                best, best_score = candidate, score
            continue
        if (
            matching.same_named_thing(text, candidate.text, projects)
            and not matching.people_differ(
                statements.first_clause(text), statements.first_clause(candidate.text), projects
            )
            and _personal_conflict(text, candidate.text)
        ):
            return candidate  # "Dan ... has a new address: dan.z@..." after "contact: Dan, dan@..."
    return best or _of_replaced(kept, text, candidates, projects)


def _personal_conflict(text: str, other: str) -> bool:
    """Each names an e-mail or handle of a kind in its first sentence (`repeats.personal_values`), and
    they share none of it: a supersede, so stricter than `matching.values_conflict`, for which one
    address changed beside one both keep is enough to be no repeat."""
    own, theirs = repeats.personal_values(text), repeats.personal_values(other)
    return any(own[kind].isdisjoint(theirs[kind]) for kind in _PERSONAL & own.keys() & theirs.keys())


def _of_replaced(
    kept: KeptItem, text: str, candidates: Sequence[Candidate], projects: frozenset[str]
) -> Candidate | None:
    """The entry holding now the value of a statement this one changes: "**Pavo billing language:** Go
    1.22" changes "Pavo billing got rewritten from Elixir 1.17 to TypeScript", which replaced "Pavo
    billing language: Elixir 1.17": the key lives on in what replaced its value. Not when it says again
    what the entry says now (every word it adds to the old statement is the entry's), nor when it
    names the old statement's value gone (the entry's own change told again, or a rival of it, which
    the rules above judge against the entry itself), nor when it is about a sibling of what the entry
    is about ("Pavo metrics retention" of "Pavo raw events retention changed 14 days -> 180 days", which
    replaced "Retention for Pavo raw events: 14 days")."""
    claim = tokens(values.current_claim(text))
    for candidate in candidates:
        if not candidate.replaced or siblings(text, candidate.text, projects):
            continue
        now = tokens(values.current_claim(candidate.text))
        for old in candidate.replaced:
            proxy = Candidate(candidate.ref, candidate.section, candidate.topic, old, tokens(old))
            if claim - proxy.words <= now or replaced_by(text, [old]):
                continue
            if contradicted(kept, text, [proxy], projects) is proxy:
                return candidate
    return None


def _section_fits(kept: KeptItem, candidate: Candidate, text: str) -> bool:
    """A decision changes a decision, or an entry stating a typed value of a kind it states too: "The
    Basalt DB primary moved to 10.0.4.17" changes "Basalt DB primary is at 10.0.4.12", while "exporter
    retry policy (max 45 tries)" does not change "exporter listens on 8000" (two numbers)."""
    if kept.category != "decision" or candidate.section == "Decisions":
        return True
    own, theirs = values.typed_values(text).keys(), values.typed_values(candidate.text).keys()
    return bool((own & theirs) - _COUNTS)


_NAME_WORDS = 3
_MORE_WORDS = 2  # words a subject may have beyond another it holds and be the same thing in more words


def _named_in_key(kept: KeptItem, candidate: Candidate, text: str, projects: frozenset[str]) -> bool:
    """One of the two is a `Key: value` line whose key is just what the other is about, and gives as
    its value a name the other does not hold, where the other says another value of it in its first
    clause, no typed value: "Decision (Lyra search): Typesense" and "Decided Lyra search runs on
    pgvector", "Ines reports to: Oskar" and "Ines reports to Tomas". The same key with a new value, the key
    told once as a key and once in a sentence. A sentence that opens with the key's own words is about
    the same thing, and its value is what follows them, which must be a name ("Tomas", not "the board
    on Fridays"); a sentence whose subject is the key's words must be of the item's project or named
    thing, and says its value after its verb: of two decisions anything (what a decision says is the
    choice), of facts a name first ("Lyra billing owner is Tomas", not "... is on leave" nor "Lyra
    frontend is slow on Safari"). A subject of other words ("Lyra public API", "the job queue" after
    "uses X for"), a value of several words or a typed value (those the typed values compare) are no
    evidence."""
    for keyed, said in ((text, candidate.text), (candidate.text, text)):
        rest, opens = _said_of_key(keyed, said, projects)
        if (
            rest is None
            or not (opens or _one_thing(kept, candidate, text, projects))
            or _table(said)
            or statements.KEY_VALUE.match(said)
            or not statements.names_a_subject(keyed, projects)
        ):
            continue
        value = statements.first_clause(statements.value_part(keyed)).strip(" `*'\".,")
        rest = statements.first_clause(rest)
        if (
            0 < len(value.split()) <= _NAME_WORDS
            and not values.typed_values(value)
            and not values.typed_values(rest)
            and (
                _names_first(rest, projects) if opens or kept.category != "decision" else word_sequence(rest)
            )
            and not tokens(value) & tokens(said)
        ):
            return True
    return False


def _said_of_key(keyed: str, said: str, projects: frozenset[str]) -> tuple[str | None, bool]:
    """What `said` says of the key of `keyed`: its predicate after the verb when its subject is just
    the key's words ("on pgvector" in "Decided Lyra search runs on pgvector" for "Decision (Lyra
    search):"), or its words after the key's own when it opens with them ("Tomas" in "Ines reports to Tomas"
    for "Ines reports to:"), and whether it opens with them; None when it is about something else.
    Cheap tests first: REM asks it of every entry sharing a word with the item."""
    key = statements.subject_key(keyed, projects)
    if key is None:
        return None, False
    if set(key.split()) == matching.subject(said) - projects:
        return " ".join(matching.predicate(values.current_claim(said)).split()[1:]), False  # less its verb
    match = statements.KEY_VALUE.match(keyed)
    opening = match.group(1).strip(" *`").lower() + " " if match else "\n"
    plain = said.strip(" *`")
    return (plain[len(opening) :], True) if plain.lower().startswith(opening) else (None, False)


def _names_first(rest: str, projects: frozenset[str]) -> bool:
    """What a statement says of its subject starts with a name: "Tomas since March", "on Postgres"; not
    "slow on Safari" (a state, whatever it names after) nor "owned by Tomas"."""
    words = word_sequence(rest)
    return bool(words) and words[0] in matching.names(rest, projects)


def _table(text: str) -> bool:
    """A table ("| 参数 | 值 | 说明 |; | 止损 | 5% | ..."): its first row names columns, not a subject, and a
    value that differs from another table's says nothing of which row changed; only an old value it
    names does."""
    return text.lstrip().startswith("|")


def _one_thing(kept: KeptItem, candidate: Candidate, text: str, projects: frozenset[str]) -> bool:
    """Both are about one named thing: they belong to the same project, or their subjects share a
    word that names one thing (a project, an identifier, a name). The same key or subject words
    alone ("Time:", "Lines of Code:", "tests") are fields every note may fill for its own subject. One
    project is not one thing when each subject names an identifier the other never says ("Pavo flag
    `dark_mode` changed ...", "Pavo flag `bulk_export` changed ..."); a value may be one ("region:
    eu-west-1")."""
    if _unsaid(_subject_identifiers(text), candidate.text) and _unsaid(
        _subject_identifiers(candidate.text), text
    ):
        return False
    if kept.topic is not None and candidate.topic == kept.topic:
        return True
    return bool(matching.specific_words(text, projects) & matching.specific_words(candidate.text, projects))


def _subject_identifiers(text: str) -> frozenset[str]:
    return matching.identifiers(matching.subject_phrase(text))


def _unsaid(identifiers: frozenset[str], text: str) -> bool:
    """One of the identifiers appears nowhere in `text`, in any case, with backticks or without."""
    plain = text.lower()
    return any(identifier.strip("`") not in plain for identifier in identifiers)


def _named_change(
    kept: KeptItem,
    text: str,
    candidates: Sequence[Candidate],
    projects: frozenset[str],
    tasks: frozenset[str] = frozenset(),
) -> Candidate | None:
    """The entry whose current claim holds a value this statement says is gone, and that shares
    what the statement is about (a word beyond the values, or a distinctive old value; or every word of
    what it acts on, "We moved Quokka from MySQL to ..." after "Quokka will use MySQL 8"): first one that
    names its subject ("Finn moved to ... (was Asia/Shanghai)" changes "Finn is in Asia/Shanghai",
    not "Wren moved to Asia/Shanghai"), never one about a sibling thing or another release; a table
    last, as one row of it is all a change of one value touches. A task (a ref in `tasks`) must share a
    word of what the statement is about and name no one else. What the statement is about is read in
    the clauses that tell the change, not in its reasons; two entries that fit alike are none."""
    gone = values.replaced_values(text)
    if not gone:
        return None
    # what the change is of, from the clauses that tell it (the first, and those naming an old value),
    # not from its reasons ("...to Render. The builder outages cost us two afternoons")
    clauses = statements.CLAUSE_END.split(text)
    told = " ".join(c for n, c in enumerate(clauses) if n == 0 or any(value in c for value in gone))
    anchors = statements.informative(tokens(values.current_claim(told))) - projects
    own_subject = matching.subject(text) - projects
    acted_on = {value: matching.acted_on(text, value) for value in gone}  # what the change is of
    best, best_score, tied = None, (False, False, 0), False
    for candidate in candidates:
        if statements.other_releases(text, candidate.text):
            continue  # "v1.12.0 ships SSO; the dashboard slips" leaves the scope of v1.11.4 alone
        if kept.topic is not None and candidate.topic is not None and kept.topic != candidate.topic:
            continue  # "moved Vela from Postgres 15 to 16" leaves "Orion runs Postgres 15" alone
        claim = values.current_claim(candidate.text)
        held = [
            value
            for value in gone
            if held_values.holds(claim, value) and held_values.only_count(value, claim)
        ]
        if not held or siblings(text, candidate.text, projects):
            continue
        distinctive = any(
            held_values.distinctive(value) or held_values.whole_value(text, claim, value) for value in held
        )
        if not (
            distinctive
            or _one_thing(kept, candidate, text, projects)
            or any(acted_on[value] and acted_on[value] <= candidate.words for value in held)
        ):
            continue  # "84→94 tests" after "79 tests → 84 tests": whose tests, neither says
        if any(map(held_values.amount, held)) and not _measured(
            text, own_subject, candidate, projects, distinctive
        ):
            continue
        shared = len(anchors & statements.informative(candidate.words))
        if candidate.ref in tasks and (not shared or names_differ(text, candidate.text)):
            continue
        score = (
            bool(own_subject) and own_subject <= candidate.words,
            not _table(candidate.text),
            shared * 2 + distinctive,
        )
        if (shared or distinctive) and score >= best_score:
            tied = score == best_score
            best, best_score = candidate, score
    return None if tied else best  # two entries hold the old value alike: which one it changes, nothing says


def _measured(
    text: str, own_subject: frozenset[str], candidate: Candidate, projects: frozenset[str], distinctive: bool
) -> bool:
    """An amount or a size named gone is the entry's value only where the entry is about what the statement
    measures: one project holds many of one kind. A `distinctive` one (a size spelled like a name,
    "m6i.large", or the whole value of the entry's key) needs the entry's subject to name a word of the
    statement besides the project's ("Pavo api resized from m6i.large to ..." changes "Pavo api
    instance type: m6i.large", not "Pavo billing runs on m6i.large instances"); a bare amount ("14
    days") needs the entry to say every word of the statement's subject, or the two subjects to share a
    word spelled to name one thing ("/v1/search"): "Pavo metrics retention changed 14 days -> 90 days"
    leaves "Retention for Pavo raw events: 14 days" alone."""
    theirs = matching.subject(candidate.text)
    if distinctive:
        return bool((theirs - projects) & tokens(text))
    return own_subject <= candidate.words or any(not word.isalpha() for word in own_subject & theirs)


def about(text: str, projects: frozenset[str]) -> frozenset[str]:
    """What a statement is about: its subject without project names, plus the words that say what its
    numbers measure ("4 replicas", "port 5801"); when the subject is only a project ("Grus runs on Node 18"), the
    content words of its first clause that are not values."""
    about = matching.subject(text) - projects
    if not about:
        about = statements.subject_words(text) - projects - _VERBS
    return about | (matching.number_words(text) - projects - _VERBS)


def _same_subject(
    own: frozenset[str], other: frozenset[str], own_text: str, other_text: str, projects: frozenset[str]
) -> bool:
    """One subject holds the other ("Pavo demo" and "Pavo demo env"), and they do not name
    different things ("GitHub handle for Yara", "GitHub handle for Ana"). A subject held by a larger
    one is the same thing told in more words, not one of the larger's words alone: it shares a word of
    the larger's subject proper, not only the word its number measures ("Pavo Python: 3.13" is not
    "Pavo sync stack: Python 3.12"), and the larger is at most _MORE_WORDS words more (a sentence with
    no verb the subject ends at is no subject: "**Uptime:** 48d" is not "We'll use Sentry + Uptime Kuma
    for Pavo observability")."""
    if not own or not other or not (own <= other or other <= own):
        return False
    if own != other:
        smaller, larger, larger_text = (own, other, other_text) if own < other else (other, own, own_text)
        proper = matching.subject(larger_text) - projects
        if len(larger) - len(smaller) > _MORE_WORDS or (proper and not smaller & proper):
            return False
    return not names_differ(own_text, other_text)


def names_differ(a: str, b: str) -> bool:
    """The subjects name things by capitalised words, and each names one the other does not
    ("Fornax production region", "Borealis production region")."""
    names_a = matching.names(a) & matching.subject(a)
    names_b = matching.names(b) & matching.subject(b)
    return bool(names_a - names_b) and bool(names_b - names_a)


def _name_others(text: str, other: str) -> bool:
    """Each claim names by a capitalised word what the other does not ("Contoso is on the Team (43 seats)
    plan for Pavo", "... (10 seats) plan for Lyra"): two things, whatever typed value differs. Only the
    claim, before its first comma: "..., because it unblocks Ana's work; agreed with Ines" gives reasons."""
    own, theirs = (_CLAUSE_END.split(values.current_claim(t), maxsplit=1)[0] for t in (text, other))
    return matching.people_differ(own, theirs)


def siblings(text: str, other: str, projects: frozenset[str]) -> bool:
    """Two things of one kind: the subjects end in the same word after different ones ("Pavo invoices
    retention", "Pavo backups retention"); a change of one never touches the other."""
    parts = _parts(text, other)
    if parts is not None:
        return parts[0] != parts[1]  # "Cycle 2: ..." and "Cycle 1: ..."
    own, theirs = matching.subject_head(text, projects), matching.subject_head(other, projects)
    return len(own) == len(theirs) == 2 and own[1] == theirs[1] and own[0] != theirs[0]


def _parts(text: str, other: str) -> tuple[str, str] | None:
    """The numbers after the word both open with ("Cycle 2", "Phase #52"): which parts of a series
    the two are about."""
    own, theirs = _ORDINAL.match(text), _ORDINAL.match(other)
    if own and theirs and own.group(1).lower() == theirs.group(1).lower():
        return own.group(2), theirs.group(2)
    return None


def _other_part(text: str, other: str) -> bool:
    """Two parts of a series: "Phase 52 Option A completed: ..." and "Phase 35 Option A completed: ..."."""
    parts = _parts(text, other)
    return parts is not None and parts[0] != parts[1]


def _new_value(text: str, other: str, identical_subject: bool) -> bool:
    """A value of the same kind differs (bare numbers only if they may measure the same thing: not
    "Python 3.13" and "v0.2.4 will ship"), and the two are not separate dated events."""
    if _separate_events(text, other, identical_subject):
        return False
    own, theirs = values.typed_values(text), values.typed_values(other)
    changed = {kind for kind in own.keys() & theirs.keys() if own[kind].isdisjoint(theirs[kind])}
    return bool(changed - {"number", "version"}) or (bool(changed) and matching.measure_alike(text, other))


def _separate_events(text: str, other: str, identical_subject: bool) -> bool:
    """Two different dates name two events ("on leave from Nov 4 for 5 days", "on leave from Dec 2
    for 3 days"), not a change, unless the date is all the two statements say about exactly the same
    thing ("the Fabrikam contract renews on ...")."""
    own_values, other_values = values.typed_values(text), values.typed_values(other)
    if "date" not in own_values or "date" not in other_values:
        return False
    if not own_values["date"].isdisjoint(other_values["date"]):
        return False
    if jaccard(tokens(text), tokens(other)) >= _RESCHEDULED:
        return False  # the same words with another date: the event moved
    own_clause, other_clause = statements.subject_words(text), statements.subject_words(other)
    if own_clause == other_clause and len(statements.informative(own_clause)) >= _RESCHEDULED_WORDS:
        return False  # the same first clause with another date ("freeze until ..."), reasons aside
    return not (identical_subject and own_values.keys() == other_values.keys() == {"date"})
