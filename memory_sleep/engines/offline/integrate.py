"""Offline REM: match each kept item to MEMORY.md entries lexically and pick noop/update/add/supersede
(a supersede's text notes what it replaced: "(previously: 5432)")."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from memory_sleep.engines.offline import absences, matching, repeats, statements
from memory_sleep.engines.offline.wording import entry_text, plain
from memory_sleep.models import EntryView, KeptItem, Operation, OperationKind
from memory_sleep.text import jaccard, similarity, tokens, without_history
from memory_sleep.workspace.memory_doc import SECTION_FOR

_SAME = 0.8
_RELATED = 0.5
_RESTATED = 0.25
_NEW_WORDS = 0.2  # a repeat may bring at most this share of words the entry lacks
_SAME_SUBJECT = 0.75
# a statement may change one filed in another of these ("Yara moved to ..." vs "Yara is in ...")
_STATEMENT_SECTIONS = frozenset({"Facts", "Decisions", "People"})
_ELABORATES = 0.8  # share of an entry's words a newer text must repeat to count as its new wording
_LESSON_LEAD = re.compile(r"^(?:(?:til|lesson(?: learned)?|learned|takeaway|remember)\b\s*[:—–-]?\s*)+", re.I)
_RESCHEDULED = 0.6
_RESCHEDULED_WORDS = 4
_PERSONAL = frozenset(["email", "handle"])
_LINKS = frozenset(["url"])
# verbs that join a project to what it runs or uses ("Grus runs on Node 18"): not what it is about
# "Cycle 2: ...", "Phase 1:", "TARGET #2": a numbered part of a list, one of several
_ORDINAL = re.compile(r"^\W*([^\W\d_]+)\s*#?(\d+)\b")
_STATEMENTS = frozenset({"decision", "fact", "relationship", "status"})
_VERBS = frozenset(["runs", "run", "uses", "use", "got", "has", "have", "is", "are", "now", "moved", "lives"])


@dataclass(eq=False)  # compared by identity in the index
class _Candidate:
    ref: str
    section: str
    topic: str | None
    text: str
    words: frozenset[str]
    order: int = 0


class _Candidates:
    """Entries to compare against, with an inverted index so an item is scored only against entries
    that share a word with it."""

    def __init__(self, entries: Sequence[EntryView]) -> None:
        self.all: list[_Candidate] = []
        self.by_word: dict[str, list[_Candidate]] = defaultdict(list)
        for entry in entries:
            text = without_history(entry.text)  # compare what an entry says now
            self.add(_Candidate(entry.ref, entry.section, entry.topic, text, tokens(text)))

    def add(self, candidate: _Candidate) -> None:
        candidate.order = len(self.all)
        self.all.append(candidate)
        for word in candidate.words:
            self.by_word[word].append(candidate)

    def sharing_words(self, words: frozenset[str]) -> list[_Candidate]:
        seen: dict[int, _Candidate] = {}
        for word in words:
            for candidate in self.by_word.get(word, ()):
                seen.setdefault(id(candidate), candidate)
        return sorted(seen.values(), key=lambda candidate: candidate.order)

    def text_of(self, ref: str) -> str:
        return next(candidate.text for candidate in self.all if candidate.ref == ref)

    def rewrite(self, ref: str, text: str) -> None:
        """New wording for an entry; postings of words it lost stay (scores use `words`, not the index)."""
        for candidate in self.all:
            if candidate.ref == ref:
                words = tokens(text)
                for word in words - candidate.words:
                    self.by_word[word].append(candidate)
                candidate.text, candidate.words = text, words


class OfflineIntegrator:
    """Deterministic REM decisions; newer notes win over older entries."""

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        candidates = _Candidates(entries)
        projects = frozenset(
            word
            for topic in {*(e.topic for e in entries), *(k.topic for k in items)}
            if topic
            for word in tokens(topic)
        )
        operations = []
        for kept in items:
            text = entry_text(kept)
            operation = _decide(kept, text, candidates.sharing_words(tokens(text)), projects)
            written = operation.text or text
            if operation.op == "supersede" and operation.target:
                old = candidates.text_of(operation.target)
                operation = operation.model_copy(update={"text": matching.noting_change(written, old)})
            operations.append(operation)
            if operation.op == "add" and kept.promote:  # an item not promoted is never added
                section = SECTION_FOR.get(kept.category, "Facts")
                candidates.add(_Candidate(kept.item.id, section, kept.topic, written, tokens(written)))
            elif operation.op in ("update", "supersede") and operation.target:
                candidates.rewrite(operation.target, written)
        return operations


def _decide(
    kept: KeptItem, text: str, candidates: Sequence[_Candidate], projects: frozenset[str]
) -> Operation:
    words = tokens(text)
    section = SECTION_FOR.get(kept.category)
    item_id = kept.item.id
    away = absences.absence(text)
    if away is not None:
        return _absence_operation(item_id, text, away, candidates)
    candidates = [c for c in candidates if absences.absence(c.text) is None]  # events, not facts
    named = words & projects  # "Fornax region" is not "Borealis region", whatever the topics say
    comparable = [
        c
        for c in candidates
        if not (kept.topic and c.topic and c.topic != kept.topic)
        and not (named and c.words & projects and named.isdisjoint(c.words))
    ]
    scored = sorted(((similarity(words, c.words), c) for c in comparable), key=lambda pair: -pair[0])
    best_score, best = scored[0] if scored else (0.0, None)
    statement_sections = _STATEMENT_SECTIONS if section in _STATEMENT_SECTIONS else {section}
    statements_known = [c for c in comparable if c.section in statement_sections]
    rescoped = _release_rescoped(kept, text, statements_known)
    if rescoped is not None:
        return _change(
            item_id, "supersede", rescoped.ref, text, "a release's scope told again, its old value moved"
        )
    echoed = _echoed(kept, text, scored, projects)
    if echoed is not None:
        return echoed
    if kept.category == "lesson":
        lesson = tokens(statements.first_clause(_LESSON_LEAD.sub("", text)))
        lessons = [c for c in candidates if c.section == section]  # a lesson holds in every project
        for candidate in sorted(lessons, key=lambda c: -similarity(words, c.words))[:5]:
            known = tokens(statements.first_clause(_LESSON_LEAD.sub("", candidate.text)))
            if len(lesson) < 3 or jaccard(lesson, known) < 0.8:
                continue
            if statements.informative(lesson) <= known:
                return _noop(item_id, candidate, "the same lesson, told again")
            return _change(item_id, "update", candidate.ref, text, "the same lesson, learned again elsewhere")
    if (
        best is not None
        and best_score >= _SAME
        and jaccard(words, best.words) >= 0.5
        and len(words - best.words) <= max(1, _NEW_WORDS * len(words))
        and (kept.category == "lesson" or not matching.values_conflict(text, best.text))
        and not matching.says_gone(text, best.text)
        and not statements.reordered(text, best.text)
        and not matching.people_differ(
            statements.first_clause(text), statements.first_clause(best.text), projects
        )
    ):
        return _noop(item_id, best, "already in memory")
    same_section = [c for c in comparable if c.section == section]
    for _, candidate in scored:
        if candidate.section in statement_sections and matching.restated(text, candidate.text, projects):
            return _noop(item_id, candidate, "the same value of the same thing, in other words")
    for _, candidate in scored:
        if candidate.section in statement_sections and repeats.same_address(text, candidate.text, projects):
            return _noop(item_id, candidate, "the same address of the same subject, in other words")
    for _, candidate in scored:
        if candidate.section in statement_sections and repeats.new_address(text, candidate.text, projects):
            return _change(item_id, "supersede", candidate.ref, text, "a person's new zone or address")
    if repeats.says_repeat(text):
        for _, candidate in scored:
            if candidate.section in statement_sections and repeats.repeats(
                text, candidate.text, candidate.words, projects
            ):
                return _noop(item_id, candidate, "says it repeats, and the entry holds what it says")
    tasks = [
        c for c in comparable if c.section == SECTION_FOR["action"] and c.section not in statement_sections
    ]
    rival = _contradicted(kept, text, statements_known, projects, tasks)
    if rival is not None:
        return _change(item_id, "supersede", rival.ref, text, "newer statement on the same subject")
    for score, candidate in scored:
        if candidate.section == section and _restates(text, candidate.text, score):
            return _noop(item_id, candidate, "restates a fact already in memory")
    for score, candidate in scored:
        if score < _RELATED:
            break
        if candidate.section != section:
            continue
        elaborates = len(words & candidate.words) >= _ELABORATES * len(candidate.words)
        if (
            elaborates
            and jaccard(words, candidate.words) >= 0.4
            and _may_be_same(text, candidate.text, projects)
        ):
            return _change(item_id, "update", candidate.ref, text, "newer wording of an entry")
    if kept.category == "action" and kept.deadline:
        same_task = _same_deadline_task(kept, text, same_section, projects)
        if same_task is not None:
            return _change(item_id, "update", same_task.ref, text, "news on an open action")
    return Operation(item_id=item_id, op="add", text=text, reason="new")


def _echoed(
    kept: KeptItem, text: str, scored: Sequence[tuple[float, _Candidate]], projects: frozenset[str]
) -> Operation | None:
    """A noop for an item that only repeats one of its echoes (what memory or a recent kept item says
    much the same by meaning), unless an entry on the same thing states another value of it or says
    one is gone (back to an old value): then the item may be news, and the rules below place it."""
    if not kept.echoes or any(
        score >= _RELATED
        and (matching.values_conflict(text, candidate.text) or matching.says_gone(candidate.text, text))
        and repeats.same_thing(text, candidate.text, projects)
        for score, candidate in scored
    ):
        return None
    for echo in map(plain, map(without_history, kept.echoes)):
        if repeats.echoes(text, echo, projects) and not statements.reordered(text, echo):
            entry = next((candidate for _, candidate in scored if candidate.text == echo), None)
            if entry is not None:
                return _noop(kept.item.id, entry, "says what an entry says, in other words")
            return Operation(item_id=kept.item.id, op="noop", reason="says what a recent note said")
    return None


def _absence_operation(
    item_id: str, text: str, away: absences.Absence, candidates: Sequence[_Candidate]
) -> Operation:
    """An absence notice changes only a notice of the same absence (same person, same first day, or
    the first day it says is gone): a repeat is a noop, other dates supersede; else it is new. It is
    written in one shape with its last day, whatever shape the note gave it."""
    gone = matching.replaced_values(text)
    line = absences.describe(away, text)
    for candidate in candidates:
        known = absences.absence(candidate.text)
        if known is None or known.person != away.person:
            continue
        if known == away:
            return _noop(item_id, candidate, "the same absence, told again")
        if known.start == away.start or known.start.isoformat() in gone:
            return _change(item_id, "supersede", candidate.ref, line, "new dates for an absence")
    return Operation(item_id=item_id, op="add", text=line, reason="new")


def _change(item_id: str, op: OperationKind, target: str, text: str, reason: str) -> Operation:
    return Operation(item_id=item_id, op=op, target=target, text=text, reason=reason)


def _noop(item_id: str, candidate: _Candidate, reason: str) -> Operation:
    return Operation(item_id=item_id, op="noop", target=candidate.ref, reason=reason)


def _contradicted(
    kept: KeptItem,
    text: str,
    candidates: Sequence[_Candidate],
    projects: frozenset[str],
    tasks: Sequence[_Candidate] = (),
) -> _Candidate | None:
    """An entry this newer item changes, on structural evidence only: the one holding the value it
    says is gone ("(was 5432)", "from Kafka to", "4 → 16"); else the same key or subject with a new
    typed value of the same kind (IP, host, port, version, date, amount, handle). Words alone ("we're
    switching back") never supersede: a wrong supersede hides the truth, an add beside the old entry
    keeps both with their dates. Project names say where a statement belongs, never what it is about:
    "Borealis auth port" and "Borealis runs Postgres" differ. Only a named old value reaches `tasks`
    (open actions, which a dated fact may be filed as: "renewal due 2026-12-09")."""
    if kept.category not in _STATEMENTS:
        return None
    named = _named_change(kept, text, [*candidates, *tasks], projects, frozenset(c.ref for c in tasks))
    if named is not None:
        return named
    key = statements.subject_key(text, projects) if statements.names_a_subject(text, projects) else None
    own_subject = _about(text, projects)
    best, best_score = None, 0.0
    own_releases = statements.releases(text)
    for candidate in candidates:
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
        # "Session Duration: ~30 minutes" in two notes: two sessions, not one changed
        one_thing = _one_thing(kept, candidate, text, projects)
        if (
            one_thing
            and key
            and key == statements.subject_key(candidate.text, projects)
            and statements.value_part(text) != statements.value_part(candidate.text)
        ):
            return candidate
        other = _about(candidate.text, projects)
        same = (
            one_thing
            and _same_subject(own_subject, other, text, candidate.text)
            and not (
                matching.people_differ(
                    statements.first_clause(text), statements.first_clause(candidate.text), projects
                )
                or (kept.category == "decision" and candidate.section != "Decisions")  # a port is no policy
            )
        )
        if same and _new_value(text, candidate.text, own_subject == other):
            score = 1.0 + jaccard(own_subject, other)
            if score > best_score:
                best, best_score = candidate, score
            continue
        if (
            matching.same_named_thing(text, candidate.text, projects)
            and not matching.people_differ(
                statements.first_clause(text), statements.first_clause(candidate.text), projects
            )
            and matching.values_conflict(text, candidate.text, _PERSONAL)
        ):
            return candidate  # "Dan ... has a new address: dan.z@..." after "contact: Dan, dan@..."
    return best


def _one_thing(kept: KeptItem, candidate: _Candidate, text: str, projects: frozenset[str]) -> bool:
    """Both are about one named thing: they belong to the same project, or their subjects share a
    word that names one thing (a project, an identifier, a name). The same key or subject words
    alone ("Time:", "Lines of Code:", "tests") are fields every note may fill for its own subject."""
    if kept.topic is not None and candidate.topic == kept.topic:
        return True
    return bool(matching.specific_words(text, projects) & matching.specific_words(candidate.text, projects))


def _release_rescoped(kept: KeptItem, text: str, candidates: Sequence[_Candidate]) -> _Candidate | None:
    """The entry about the same releases whose claim this statement moves out of its own claim and
    names beside a new one (statements.rescopes): the newer text still holds the old value, so
    replacing the entry hides nothing, whatever the words around it say."""
    if kept.category not in _STATEMENTS:
        return None
    return next((c for c in candidates if statements.rescopes(text, c.text)), None)


def _named_change(
    kept: KeptItem,
    text: str,
    candidates: Sequence[_Candidate],
    projects: frozenset[str],
    tasks: frozenset[str] = frozenset(),
) -> _Candidate | None:
    """The entry whose current claim holds a value this statement says is gone, and that shares
    what the statement is about (a word beyond the values, or a distinctive old value): first one that
    names its subject ("Finn moved to ... (was Asia/Shanghai)" changes "Finn is in Asia/Shanghai",
    not "Wren moved to Asia/Shanghai"), never one about a sibling thing or another release. A task
    (a ref in `tasks`) must share a word of what the statement is about and name no one else."""
    gone = matching.replaced_values(text)
    if not gone:
        return None
    anchors = statements.informative(tokens(matching.current_claim(text))) - projects
    own_subject = matching.subject(text) - projects
    own_releases = statements.releases(text)
    best, best_score = None, (False, 0)
    for candidate in candidates:
        other_releases = statements.releases(candidate.text)
        if own_releases and other_releases and own_releases.isdisjoint(other_releases):
            continue  # "v1.12.0 ships SSO; the dashboard slips" leaves the scope of v1.11.4 alone
        claim = matching.current_claim(candidate.text)
        held = [value for value in gone if _holds(claim, value) and _only_count(value, claim)]
        if not held or _siblings(text, candidate.text, projects):
            continue
        distinctive = any(_distinctive(value) or _whole_value(text, claim, value) for value in held)
        if not distinctive and not _one_thing(kept, candidate, text, projects):
            continue  # "84→94 tests" after "79 tests → 84 tests": whose tests, neither says
        shared = len(anchors & statements.informative(candidate.words))
        if candidate.ref in tasks and (not shared or _names_differ(text, candidate.text)):
            continue
        score = (bool(own_subject) and own_subject <= candidate.words, shared * 2 + distinctive)
        if (shared or distinctive) and score > best_score:
            best, best_score = candidate, score
    return best


def _holds(claim: str, value: str) -> bool:
    """`claim` states `value` ("Postgres 15"), or its last word with the words naming it elsewhere: "Node
    version for Corvus: 22.9" holds the "Node 22.9" of "bumped Node 22.9 → 20.12"."""
    if matching.mentions_value(claim, value):
        return True
    *name, last = value.split()
    naming = tokens(" ".join(name))  # "and write": no word names the value
    return bool(naming) and matching.mentions_value(claim, last) and naming <= tokens(claim)


def _only_count(value: str, claim: str) -> bool:
    """A bare number names an old value only in a statement that gives no other number: "384" in
    "13 new tests (371→384), ~120 lines src added" is one count among others, not the value changed."""
    return not value.isdigit() or matching.typed_values(claim).get("number", frozenset()) <= {value}


_NAMING_KINDS = frozenset({*matching.IDENTITY_KINDS, "date", "money", "zone"})  # "22.9" is a bare number


def _distinctive(value: str) -> bool:
    """A value that names one thing ("Postgres 15", "s3://raw-events", "2026-12-13", "$2,750"), not
    a bare amount ("14 days", "384") nor a plain word ("Development"), which any statement may hold."""
    if matching.typed_values(value).keys() & _NAMING_KINDS:
        return True
    letters = sum(ch.isalpha() for ch in value)
    spelled = any(not ch.isalpha() and not ch.isspace() for ch in value)
    return letters >= 4 and spelled and not matching.VALUE_KINDS["duration"].fullmatch(value)


def _whole_value(text: str, claim: str, value: str) -> bool:
    """The entry is a `Key: value` line of the statement's key whose value is `value` and nothing
    more ("job queue: RabbitMQ" for "job queue: Kafka (was RabbitMQ)")."""
    match, own = statements.KEY_VALUE.match(claim), statements.KEY_VALUE.match(text)
    return (
        match is not None
        and own is not None
        and tokens(match.group(1)) == tokens(own.group(1))
        and match.group(2).strip(" `*'\".").lower() == value.lower()
    )


def _about(text: str, projects: frozenset[str]) -> frozenset[str]:
    """What a statement is about: its subject without project names, plus the words that say what its
    numbers measure ("4 replicas", "port 5801"); when the subject is only a project ("Grus runs on Node 18"), the
    content words of its first clause that are not values."""
    about = matching.subject(text) - projects
    if not about:
        about = statements.subject_words(text) - projects - _VERBS
    return about | (matching.number_words(text) - projects - _VERBS)


def _same_subject(own: frozenset[str], other: frozenset[str], own_text: str, other_text: str) -> bool:
    """One subject holds the other ("Pavo demo" and "Pavo demo env"), and they do not name
    different things ("GitHub handle for Yara", "GitHub handle for Ana")."""
    if not own or not other or not (own <= other or other <= own):
        return False
    return not _names_differ(own_text, other_text)


def _names_differ(a: str, b: str) -> bool:
    """The subjects name things by capitalised words, and each names one the other does not
    ("Fornax production region", "Borealis production region")."""
    names_a = matching.names(a) & matching.subject(a)
    names_b = matching.names(b) & matching.subject(b)
    return bool(names_a - names_b) and bool(names_b - names_a)


def _other_things(text: str, other: str, projects: frozenset[str]) -> bool:
    """Both subjects say what they are about, and each says something the other does not."""
    own, theirs = matching.subject(text) - projects, matching.subject(other) - projects
    return bool(own) and bool(theirs) and not (own <= theirs or theirs <= own)


def _siblings(text: str, other: str, projects: frozenset[str]) -> bool:
    """Two things of one kind: the subjects end in the same word after different ones ("Pavo invoices
    retention", "Pavo backups retention"); a change of one never touches the other."""
    own_number, other_number = _ORDINAL.match(text), _ORDINAL.match(other)
    if own_number and other_number and own_number.group(1).lower() == other_number.group(1).lower():
        return own_number.group(2) != other_number.group(2)  # "Cycle 2: ..." and "Cycle 1: ..."
    own, theirs = matching.subject_head(text, projects), matching.subject_head(other, projects)
    return len(own) == len(theirs) == 2 and own[1] == theirs[1] and own[0] != theirs[0]


def _may_be_same(text: str, other: str, projects: frozenset[str]) -> bool:
    """Nothing says two similar statements are about different things (siblings, other releases)."""
    if _siblings(text, other, projects) or statements.other_releases(text, other):
        return False
    own_about, other_about = _about(text, projects), _about(other, projects)
    if own_about and other_about and not (own_about <= other_about or other_about <= own_about):
        return jaccard(own_about, other_about) >= 0.5 and not _names_differ(text, other)
    return not _names_differ(text, other)


def _new_value(text: str, other: str, identical_subject: bool) -> bool:
    """A value of the same kind differs (bare numbers only if they may measure the same thing: not
    "Python 3.13" and "v0.2.4 will ship"), and the two are not separate dated events."""
    if _separate_events(text, other, identical_subject):
        return False
    own, theirs = matching.typed_values(text), matching.typed_values(other)
    changed = {kind for kind in own.keys() & theirs.keys() if own[kind].isdisjoint(theirs[kind])}
    return bool(changed - {"number", "version"}) or (bool(changed) and matching.measure_alike(text, other))


def _separate_events(text: str, other: str, identical_subject: bool) -> bool:
    """Two different dates name two events ("on leave from Nov 4 for 5 days", "on leave from Dec 2
    for 3 days"), not a change, unless the date is all the two statements say about exactly the same
    thing ("the Fabrikam contract renews on ...")."""
    own_values, other_values = matching.typed_values(text), matching.typed_values(other)
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


def _same_deadline_task(
    kept: KeptItem, text: str, actions: Sequence[_Candidate], projects: frozenset[str]
) -> _Candidate | None:
    """The open action with the item's deadline that shares its task words: two tasks of one
    project due the same day share the project's name and nothing else; tasks naming different
    things ("Contoso renewal", "Northwind renewal") are two tasks."""
    assert kept.deadline is not None
    due, words = kept.deadline.isoformat(), tokens(text)
    for candidate in actions:
        shared = statements.informative(words) & statements.informative(candidate.words) - projects
        if (
            due in candidate.text
            and (len(shared) >= 2 or any(len(word) >= 6 for word in shared))
            and not _siblings(text, candidate.text, projects)
        ):
            return candidate
    return None


def _restates(a: str, b: str, word_similarity: float) -> bool:
    """Both name the same host, URL or identifier, and either the wording or more values agree; two
    different URLs on one host ("grafana.example.net/d/22d4546", ".../d9be78b") are two things."""
    a, b = matching.current_claim(a), matching.current_claim(b)
    if matching.values_conflict(a, b, _LINKS):
        return False
    shared = set(statements.VALUE.findall(a.lower())) & set(statements.VALUE.findall(b.lower()))
    distinctive = any(len(value) >= 6 and any(ch.isalpha() for ch in value) for value in shared)
    return distinctive and (word_similarity >= _RESTATED or len(shared) >= 2)
