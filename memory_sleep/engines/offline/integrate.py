"""Offline REM: match each kept item to MEMORY.md entries lexically and pick noop/update/add/supersede
(a supersede's text notes what it replaced: "(previously: 5432)")."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from memory_sleep.engines import pairs
from memory_sleep.engines.offline import (
    absences,
    closing,
    cues,
    matching,
    repeats,
    statements,
    supersede,
    values,
)
from memory_sleep.engines.offline.supersede import Candidate
from memory_sleep.engines.offline.wording import entry_text, plain
from memory_sleep.models import Category, EntryView, KeptItem, Operation, OperationKind
from memory_sleep.text import jaccard, similarity, tokens, without_history
from memory_sleep.workspace.memory_doc import SECTION_FOR

_SAME = 0.8
_RELATED = 0.5
_RESTATED = 0.25
_NEW_WORDS = 0.2  # a repeat may bring at most this share of words the entry lacks
# a statement may change one filed in another of these ("Yara moved to ..." vs "Yara is in ...")
_STATEMENT_SECTIONS = frozenset({"Facts", "Decisions", "People"})
_ELABORATES = 0.8  # share of an entry's words a newer text must repeat to count as its new wording
_LESSON_LEAD = re.compile(r"^(?:(?:til|lesson(?: learned)?|learned|takeaway|remember)\b\s*[:—–-]?\s*)+", re.I)
_LINKS = frozenset(["url"])
_OLD = "the old value of a change told as before/now (engines/pairs.py): left in the notes"


class _Candidates:
    """Entries to compare against, with an inverted index so an item is scored only against entries
    that share a word with it."""

    def __init__(self, entries: Sequence[EntryView]) -> None:
        self.all: list[Candidate] = []
        self.by_word: dict[str, list[Candidate]] = defaultdict(list)
        for entry in entries:
            text = without_history(entry.text)  # compare what an entry says now
            replaced = supersede.replaced_by(entry.text, entry.replaced)
            self.add(Candidate(entry.ref, entry.section, entry.topic, text, tokens(text), replaced=replaced))

    def add(self, candidate: Candidate) -> None:
        candidate.order = len(self.all)
        self.all.append(candidate)
        for word in candidate.words:
            self.by_word[word].append(candidate)

    def sharing_words(self, words: frozenset[str]) -> list[Candidate]:
        seen: dict[int, Candidate] = {}
        for word in words:
            for candidate in self.by_word.get(word, ()):
                seen.setdefault(id(candidate), candidate)
        return sorted(seen.values(), key=lambda candidate: candidate.order)

    def text_of(self, ref: str) -> str:
        return next(candidate.text for candidate in self.all if candidate.ref == ref)

    def rewrite(self, ref: str, text: str, superseded: bool = False) -> None:
        """New wording for an entry (a new value of what it said, if `superseded`); postings of words it
        lost stay (scores use `words`, not the index)."""
        for candidate in self.all:
            if candidate.ref == ref:
                if superseded:
                    candidate.replaced = (candidate.text,)
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
            if not kept.promote and pairs.is_before(kept.item):  # "之前: 9 个技能": an old value, no fact
                operations.append(Operation(item_id=kept.item.id, op="add", text=text, reason=_OLD))
                continue
            # decided on the item's own words, written after its lead-in (entry_text): the lead is
            # context the entry keeps, not what the item says
            own = entry_text(kept, lead=False)
            operation = _decide(kept, own, candidates.sharing_words(tokens(own)), projects)
            if operation.text == own:
                operation = operation.model_copy(update={"text": text})
            written = operation.text or text
            if operation.op == "supersede" and operation.target:
                old = candidates.text_of(operation.target)
                in_place = values.changed_in_place(written, old)  # the entry, its one value changed
                operation = operation.model_copy(
                    update={"text": in_place or values.noting_change(written, old)}
                )
                written = in_place or written  # what the entry says now, for the batch's later items
            operations.append(operation)
            if operation.op == "add" and kept.promote:  # an item not promoted is never added
                section = SECTION_FOR.get(kept.category, "Facts")
                candidates.add(Candidate(kept.item.id, section, kept.topic, written, tokens(written)))
            elif operation.op in ("update", "supersede") and operation.target:
                candidates.rewrite(operation.target, written, operation.op == "supersede")
        return operations


def _decide(
    kept: KeptItem, text: str, candidates: Sequence[Candidate], projects: frozenset[str]
) -> Operation:
    words = tokens(text)
    section = SECTION_FOR.get(kept.category)
    item_id = kept.item.id
    away = absences.absence(text)
    if away is not None:
        return _absence_operation(item_id, text, kept.item.day, away, candidates)
    candidates = [c for c in candidates if absences.absence(c.text) is None]  # events, not facts
    # "Fornax region" is not "Borealis region", whatever the topics say; an item filed under one project
    # ("Fornax: Contoso pays for Team") is not about a plan its entry names for another ("... for Borealis")
    named = _projects_of(words, kept.topic, projects)
    comparable = [
        c
        for c in candidates
        if not (kept.topic and c.topic and c.topic != kept.topic)
        and not _other_projects(named, _projects_of(c.words, c.topic, projects))
    ]
    scored = sorted(((similarity(words, c.words), c) for c in comparable), key=lambda pair: -pair[0])
    best_score, best = scored[0] if scored else (0.0, None)
    statement_sections = _STATEMENT_SECTIONS if section in _STATEMENT_SECTIONS else {section}
    statements_known = [c for c in comparable if c.section in statement_sections]
    echoed = _echoed(kept, text, scored, projects)
    if echoed is not None:
        return echoed
    if kept.category == "action" and kept.deadline is None:
        for _, candidate in scored:
            if candidate.section == section and repeats.task_said_again(text, candidate.text, projects):
                return _noop(item_id, candidate, "the task of an open action, said again")
    if kept.category == "lesson":
        lesson = tokens(statements.first_clause(_LESSON_LEAD.sub("", text)))
        lessons = [c for c in candidates if c.section == section]  # a lesson holds in every project
        for candidate in sorted(lessons, key=lambda c: -similarity(words, c.words))[:5]:
            known = tokens(statements.first_clause(_LESSON_LEAD.sub("", candidate.text)))
            if len(lesson) < 3 or jaccard(lesson, known) < 0.8:
                continue
            if statements.informative(lesson) <= known and not matching.values_conflict(text, candidate.text):
                return _noop(item_id, candidate, "the same lesson, told again")
            return _change(item_id, "update", candidate.ref, text, "the same lesson, learned again elsewhere")
    if best is not None and _holds(best, text, words, best_score, kept.category, projects):
        return _noop(item_id, best, "already in memory")
    said_again = _said_again(kept, text, comparable, projects)
    if said_again is not None:
        return _noop(item_id, said_again, "says an entry again after a remark of its own")
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
    rival = supersede.contradicted(kept, text, statements_known, projects, tasks)
    if rival is not None:
        return _change(item_id, "supersede", rival.ref, text, "newer statement on the same subject")
    for score, candidate in scored:
        if candidate.section == section and _restates(text, candidate.text, score, projects):
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


def _holds(
    candidate: Candidate,
    text: str,
    words: frozenset[str],
    score: float,
    category: Category | None,
    projects: frozenset[str],
) -> bool:
    """The entry holds what the item says: most of its words, hardly another, and no other value."""
    return (
        score >= _SAME
        and jaccard(words, candidate.words) >= 0.5
        and len(words - candidate.words) <= max(1, _NEW_WORDS * len(words))
        and (category == "lesson" or not matching.values_conflict(text, candidate.text))
        and not values.says_gone(text, candidate.text)
        and not statements.reordered(text, candidate.text)
        and not statements.swapped(text, candidate.text)
        and not statements.new_value_of_key(text, candidate.text, projects)
        and not matching.people_differ(
            statements.first_clause(text), statements.first_clause(candidate.text), projects
        )
    )


def _said_again(
    kept: KeptItem, text: str, comparable: Sequence[Candidate], projects: frozenset[str]
) -> Candidate | None:
    """The entry holding what the item says after a remark of its own ("Again for the record: X",
    "(repeating for the summary) X" after X): the remark is no news of X."""
    ahead = _remark_ahead(kept, text, projects)
    if ahead is None:
        return None
    said = ahead[1]
    words = tokens(said)
    scored = [(similarity(words, candidate.words), candidate) for candidate in comparable]
    score, best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
    return best if best is not None and _holds(best, said, words, score, kept.category, projects) else None


def _remark_ahead(kept: KeptItem, text: str, projects: frozenset[str]) -> tuple[str, str] | None:
    """repeats.remark_ahead of the item's text, unless the note wrote it as a bold key ("**Next
    Action:** ..."): a field's label, which says what its value is."""
    if cues.BOLD_KEY.match(cues.BULLET.sub("", kept.item.text, count=1)):
        return None
    return repeats.remark_ahead(text, projects)


def _echoed(
    kept: KeptItem, text: str, scored: Sequence[tuple[float, Candidate]], projects: frozenset[str]
) -> Operation | None:
    """A noop for an item that only repeats one of its echoes (what memory or a recent kept item says
    much the same by meaning). An echo that is an entry is what memory holds now: another entry beside
    it with another value is another thing ("Vela v0.6.8 will ship audit log v2" beside "Vela v0.7.2
    will ship audit log v2"), or REM would have superseded the one by the other. An echo memory no longer
    shows is no repeat when an entry on the same thing (not another release) states another value of it
    or says one is gone (back to an old value): then the item may be news, and the rules below place it.
    A change ("renamed to @ola_dev (was @ola)") repeats an echo of its new value only while no entry
    still states the value it says is gone."""
    if not kept.echoes or any(values.says_gone(text, candidate.text) for _, candidate in scored):
        return None  # nothing near it, or memory still holds a value it says is gone: a change
    ahead = _remark_ahead(kept, text, projects)  # "Again for the record: X" says X
    # "... to @ola_dev (was @ola)": what it says now, memory holds
    claim = values.current_claim(ahead[1] if ahead else text)
    contested: bool | None = None
    for echo in map(plain, map(without_history, kept.echoes)):
        if not repeats.echoes(claim, echo, projects) or statements.reordered(text, echo):
            continue
        entry = next((candidate for _, candidate in scored if candidate.text == echo), None)
        if entry is not None:
            return _noop(kept.item.id, entry, "says what an entry says, in other words")
        if contested is None:
            contested = any(
                score >= _RELATED
                and (
                    matching.values_conflict(text, candidate.text)
                    or values.says_gone(candidate.text, text)
                    or statements.demotes(text, candidate.text)
                )
                and repeats.same_thing(text, candidate.text, projects)
                and not statements.other_releases(text, candidate.text)
                for score, candidate in scored
            )
        if not contested:
            return Operation(item_id=kept.item.id, op="noop", reason="says what a recent note said")
    return None


def _absence_operation(
    item_id: str, text: str, day: date, away: absences.Absence, candidates: Sequence[Candidate]
) -> Operation:
    """An absence notice changes only a notice of the same absence (same person, same first day, or
    the first day it says is gone): a repeat is a noop, other dates supersede; else it is new, unless
    it had ended before the note of `day` told of it. It is written in one shape with its last day,
    whatever shape the note gave it."""
    gone = values.replaced_values(text)
    line = absences.describe(away, text)
    for candidate in candidates:
        known = absences.absence(candidate.text)
        if known is None or known.person != away.person:
            continue
        if known == away:
            return _noop(item_id, candidate, "the same absence, told again")
        if known.start == away.start or known.start.isoformat() in gone:
            return _change(item_id, "supersede", candidate.ref, line, "new dates for an absence")
    if (
        away.end < day and not gone
    ):  # the stale pass would archive it as finished business the night it came in
        return Operation(
            item_id=item_id, op="noop", reason="an absence that ended before the note: left in it"
        )
    return Operation(item_id=item_id, op="add", text=line, reason="new")


def _projects_of(words: frozenset[str], topic: str | None, projects: frozenset[str]) -> frozenset[str]:
    """The projects a statement belongs to: those its words name and the one it is filed under."""
    return (words | tokens(topic or "")) & projects


def _other_projects(own: frozenset[str], other: frozenset[str]) -> bool:
    return bool(own) and bool(other) and own.isdisjoint(other)


def _change(item_id: str, op: OperationKind, target: str, text: str, reason: str) -> Operation:
    return Operation(item_id=item_id, op=op, target=target, text=text, reason=reason)


def _noop(item_id: str, candidate: Candidate, reason: str) -> Operation:
    return Operation(item_id=item_id, op="noop", target=candidate.ref, reason=reason)


def _may_be_same(text: str, other: str, projects: frozenset[str]) -> bool:
    """Nothing says two similar statements are about different things (siblings, other releases, two
    people in each other's place)."""
    if (
        supersede.siblings(text, other, projects)
        or statements.other_releases(text, other)
        or statements.crossed(text, other)
    ):
        return False
    if matching.subject(other) - projects - tokens(text):
        return False  # the older names its subject in a word the newer drops ("audit logs", "session logs")
    own_about, other_about = supersede.about(text, projects), supersede.about(other, projects)
    if own_about and other_about and not (own_about <= other_about or other_about <= own_about):
        return jaccard(own_about, other_about) >= 0.5 and not supersede.names_differ(text, other)
    return not supersede.names_differ(text, other)


def _same_deadline_task(
    kept: KeptItem, text: str, actions: Sequence[Candidate], projects: frozenset[str]
) -> Candidate | None:
    """The open action with the item's deadline that shares its task words: two tasks of one
    project due the same day share the project's name and nothing else; tasks naming different
    things ("Contoso renewal", "Northwind renewal") are two tasks, as is an item written as a task
    that a done-report of it would not close (closing.another_task)."""
    assert kept.deadline is not None
    due, words = kept.deadline.isoformat(), _task_words(text)
    boxed = bool(cues.CHECKBOX_OPEN.match(kept.item.text))
    for candidate in actions:
        if due not in candidate.text:
            continue
        shared = (
            statements.informative(words) & statements.informative(_task_words(candidate.text)) - projects
        )
        if (
            (len(shared) >= 2 or any(len(word) >= 6 for word in shared))
            and not supersede.siblings(text, candidate.text, projects)
            and not closing.another_task(text, candidate.text, projects, boxed)
        ):
            return candidate
    return None


def _task_words(text: str) -> frozenset[str]:
    """The words of what a task says, without the labels it starts with ("Follow-up: send Teo the
    review", "Next: ..."; lead_ins in languages/*.toml): two tasks under one label share its words
    and say nothing alike."""
    return tokens(matching.without_lead_in(text))


def _restates(a: str, b: str, word_similarity: float, projects: frozenset[str]) -> bool:
    """Both name the same host, URL or identifier, and either the wording or more values agree; two
    different URLs on one host ("grafana.example.net/d/22d4546", ".../d9be78b") are two things, and so
    are two subjects with one value ("Vela notifier runs on t3.medium instances" and "Vela exporter
    instance type: t3.medium")."""
    a, b = values.current_claim(a), values.current_claim(b)
    if matching.values_conflict(a, b, _LINKS):
        return False
    if matching.shared_values(a, b, matching.IDENTITY_KINDS) == 0 and matching.subjects_differ(
        a, b, projects
    ):
        return False  # one URL or host is one thing however each names it ("dashboard", "Grafana board")
    shared = statements.named_values(a) & statements.named_values(b)
    distinctive = any(len(value) >= 6 and any(ch.isalpha() for ch in value) for value in shared)
    return distinctive and (word_similarity >= _RESTATED or len(shared) >= 2)
