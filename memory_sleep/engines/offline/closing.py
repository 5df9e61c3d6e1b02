"""Which open action a note reports done, decided offline: the action it shares most of its task with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from memory_sleep.engines.offline import matching
from memory_sleep.models import Closure, EntryView, KeptItem
from memory_sleep.text import similarity, tokens, word_sequence

_DONE_SIMILARITY = 0.25
_SWAP_WORDS = 2
# an action is often written twice (a plan, then the same step in a later note's "next"): words of its
# task that at most this many other open actions also have still tell it from the rest
_OTHERS_SHARING = 1
_STEM = re.compile(r"(?:ed|ing|es|s)$")
# names one thing among many alike: a flag or file in backticks, a ticket, a PR, a numbered host
_IDENTIFIER = re.compile(r"`[^`\n]+`|\b[A-Z][A-Z0-9]+-\d+\b|#\d+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+\b")
# a capitalised word inside a sentence (not its first word): someone a task is for or about
_MID_NAME = re.compile(r"(?<=[\w,)]\s)[A-Z][a-z]+\b")
_NEXT = re.compile(r"\n|\\n|次は|下一步|[,;、，。]\s*(?:next|then|als nächstes|luego)\b", re.I)
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_CONFIRMED = re.compile(r"\(\s*\w+ confirmed\s*\)", re.I)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\.?(?!\d)|（[^）]*まで）"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?=[A-Z][a-z]{2})"  # "by 7 Oct"
)
# who does it or that it is done, in front: "Ben: fix ...", "Closed: ...", "完成：..."
_LEAD = re.compile(r"^\W*(?:[A-Z][\w'-]*\s*){1,2}[:：]\s*|^\W*(?:完成|完了|已完成)[:：]?\s*")
# how a note says a task is done, open or due: nothing about which task it is
_SAYS_DONE = "done closed close confirmed finished complete completed erledigt hecho 完成 完了"
_SAYS_OPEN = "todo next follow-up followup need action still open don forget reminder please must remember"
_SAYS_WHEN = (
    "by due bis deadline eod eow asap before until end today tomorrow tonight yesterday last this week "
    "weeks month months year morning evening afternoon monday tuesday wednesday thursday friday saturday "
    "sunday mon tue wed thu fri sat sun jan feb mar apr may jun jul aug sep sept oct nov dec january "
    "february march april june july august september october november december"
)
_NOT_THE_TASK = frozenset(_STEM.sub("", word) for word in f"{_SAYS_DONE} {_SAYS_OPEN} {_SAYS_WHEN}".split())


class OfflineCloser:
    """Each note closes the open action it shares the most of its task with, never one of another
    project or naming another flag, ticket, host or person, nor the same task said of something else
    ("the qa cert" is not "the staging cert"); and only by words that tell that action from the other
    open ones it could be: a line sharing just what several actions say ("AI agent") reports none of
    them, while the same task of another project ("file the expense report for Vela") is no rival."""

    def close(
        self, completions: Sequence[KeptItem], actions: Sequence[EntryView], projects: Sequence[str]
    ) -> list[Closure]:
        names = {name.lower() for name in projects} | {a.topic.lower() for a in actions if a.topic}
        tasks = {action.ref: _task(action.text, names) for action in actions}
        closures: list[Closure] = []
        closed: set[str] = set()
        for kept in completions:
            done = _what_was_done(kept.item.text)
            task = _task(done, names)
            words = frozenset(task)
            alike = [action for action in actions if not _other_thing(action, kept, done, names)]
            task_words = [frozenset(tasks[action.ref]) for action in alike]
            best, best_score = None, 0.0
            for action in alike:
                if action.ref in closed or action.written_after(kept.item):
                    continue
                action_task = tasks[action.ref]
                if _swapped(task, action_task):
                    continue
                action_words = frozenset(action_task)
                shared = words & action_words
                score = similarity(words, action_words)
                if (
                    len(shared) >= 2
                    and score >= _DONE_SIMILARITY
                    and score > best_score
                    and _tells_apart(shared, task_words)
                ):
                    best, best_score = action, score
            if best is not None:
                closed.add(best.ref)
                closures.append(Closure(item_id=kept.item.id, target=best.ref, reason="shares the task"))
        return closures


def another_task(text: str, other: str, projects: frozenset[str], boxed: bool) -> bool:
    """`text` names another task than `other`: the same wording with a word or two swapped ("send Lou
    feedback on the pagination design", "send Ana feedback on the dashboard design"), another flag,
    ticket, host or person ("get Ana access to the qa cluster", "get Lou access to ..."); or, written
    as a task of its own (an unchecked box, or from the same first word of the task), not what a
    done-report must share with a task to close it: two words or more and a quarter of its words. News on a task ("runbook: 80% done, still due Friday") is written as none."""
    task, other_task = _task(text, set(projects)), _task(other, set(projects))
    ids, other_ids = _identifiers(text), _identifiers(other)
    if (
        _swapped(task, other_task)
        or (ids and other_ids and ids.isdisjoint(other_ids))
        or _people_differ(text, other, set(projects))
        or matching.values_conflict(text, other, matching.IDENTITY_KINDS)
    ):
        return True
    if not (boxed or (task and task[:1] == other_task[:1])):
        return False
    words, other_words = frozenset(task), frozenset(other_task)
    return len(words & other_words) < 2 or similarity(words, other_words) < _DONE_SIMILARITY


def _tells_apart(shared: frozenset[str], tasks: Sequence[frozenset[str]]) -> bool:
    """Words an action shares with a done line tell it from the rest: no more than _OTHERS_SHARING
    other open actions have every one of them too."""
    return sum(shared <= task for task in tasks) <= 1 + _OTHERS_SHARING


def _other_thing(entry: EntryView, kept: KeptItem, done: str, projects: set[str]) -> bool:
    """The entry is about another project, or names another flag, ticket, PR, host, address or person."""
    if entry.topic and kept.topic and entry.topic.lower() != kept.topic.lower():
        return True
    named_entry, named_done = _projects_named(entry.text, projects), _projects_named(done, projects)
    if named_entry and named_done and named_entry.isdisjoint(named_done):
        return True
    ids_entry, ids_done = _identifiers(entry.text), _identifiers(done)
    if ids_entry and ids_done and ids_entry.isdisjoint(ids_done):
        return True
    if _people_differ(entry.text, done, projects):
        return True
    return matching.values_conflict(entry.text, done, matching.IDENTITY_KINDS)


def _what_was_done(text: str) -> str:
    """What a note reports done: not a status block's "next:" and "owner:" lines, nor what it says
    comes next ("... が完了、次は the pricing page")."""
    return _NEXT.split(text, maxsplit=1)[0]


def _projects_named(text: str, projects: set[str]) -> frozenset[str]:
    return frozenset(tokens(text) & projects)


def _identifiers(text: str) -> frozenset[str]:
    return frozenset(match.lower() for match in _IDENTIFIER.findall(text))


def _people_differ(text: str, other: str, projects: set[str]) -> bool:
    """Each names someone inside its task that the other does not name anywhere: "reply to Ana about
    the quota question" is not "reply to Lou about the quota question" (the name may open what is left
    of the task, where a swapped word is not seen), while "Get Maya's screens" done as "Maya's screens
    are in Figma" is one task. A task's first word, a project, a day or a month is no one."""
    own, theirs = _people(text, projects), _people(other, projects)
    return bool(own) and bool(theirs) and own.isdisjoint(_stems(other)) and theirs.isdisjoint(_stems(text))


def _people(text: str, projects: set[str]) -> frozenset[str]:
    found = (_STEM.sub("", name.lower()) for name in _MID_NAME.findall(_cleaned(text)))
    return frozenset(name for name in found if name not in projects and name not in _NOT_THE_TASK)


def _stems(text: str) -> frozenset[str]:
    return frozenset(_STEM.sub("", word) for word in word_sequence(text))


def _swapped(done: list[str], action: list[str]) -> bool:
    """The same wording with a word or two swapped inside it: "rotate the qa TLS cert" done is not
    "rotate the staging TLS cert", nor "p95 > 240 ms" "p95 > 120 ms"."""
    steps = SequenceMatcher(None, done, action, autojunk=False).get_opcodes()
    return any(
        tag == "replace"
        and i2 - i1 <= _SWAP_WORDS
        and j2 - j1 <= _SWAP_WORDS
        and 0 < number < len(steps) - 1
        and steps[number - 1][0] == steps[number + 1][0] == "equal"
        for number, (tag, i1, i2, j1, j2) in enumerate(steps)
    )


def _task(text: str, projects: set[str]) -> list[str]:
    """The words that say which task it is, in order, crudely stemmed so that "renew" matches
    "renewed": without clock times, due dates, who confirmed it, labels, the assignee, project names."""
    stems = (
        _STEM.sub("", word)
        for word in word_sequence(_cleaned(text))
        if len(word) >= 2 and word not in projects
    )
    return [stem for stem in stems if stem not in _NOT_THE_TASK]


def _cleaned(text: str) -> str:
    """The text without clock times, due dates, who confirmed it, labels and the assignee in front."""
    text = _DATE.sub(" ", _CONFIRMED.sub(" ", _CLOCK.sub(" ", text)))
    for _ in range(3):  # "[x] Closed: Ben: ..."
        text = _LEAD.sub("", text.strip().lstrip("-*+[]xX✓✅ "))
    return text
