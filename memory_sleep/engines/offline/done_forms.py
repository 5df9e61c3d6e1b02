"""Whether a note line reports an open action done in the task's own verb: "renew the example.org
domain", then "example.org renewed for 2 years by Ana". How a verb says its task is done is each
language's data (memory_sleep/languages/*.toml `[done_forms]`): where a task's verb stands, ending
rules, irregular verbs, and the words that, ahead of such a form in its clause, say the task is not
done yet ("needs to be renewed", "once DNS is switched"). NREM marks such a line as closing an
action; the closer (closing.py) then closes only an action whose task it reports so."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memory_sleep.engines.offline.task_words import stem, task_wording
from memory_sleep.language import DONE_FORMS, NOT_YET, DoneForms
from memory_sleep.text import word_sequence

_CLAUSE_START = re.compile(r"[.;:!?,—–()\n]")
_ASIDE = re.compile(r"\s+\(|\s+[—–]\s|;\s")  # what a task's first part ends at
_TAG = re.compile(r"^\W*(?:\[[^\]\n]*\]\s*)+")  # "[Ops] renew ...": a tag is no part of the task
_CODE = re.compile(r"`[^`\n]*`|\b\w+\([^()\n]*\)")


@dataclass(frozen=True)
class _Language:
    """One language's `[done_forms]`, read."""

    first: bool  # a task's verb is its first word ("renew the domain"), else its last
    rules: tuple[tuple[str, str, str], ...]  # (ending, before the stem, after it): "-e -> -ed" is (e, "", ed)
    irregular: dict[str, frozenset[str]]

    def forms(self, verb: str) -> frozenset[str]:
        """The forms `verb` takes once its task is done, the verb itself not among them."""
        found = set(self.irregular.get(verb, ()))
        for ending, before, after in self.rules:
            if verb.endswith(ending) and len(verb) > len(ending) + 1:
                found.add(before + verb[: len(verb) - len(ending)] + after)
        return frozenset(found - {verb})


def _rule(line: str) -> tuple[str, str, str]:
    """ "-e -> -ed" as ("e", "", "ed"); "-en -> ge-t" as ("en", "ge", "t")."""
    ending, arrow, made = (part.strip() for part in line.partition("->"))
    if not (arrow and ending.startswith("-") and ending.count("-") == 1 and made.count("-") == 1):
        raise ValueError(
            f"done_forms ending {line!r}: write it as '-e -> -ed', '-' standing for the verb's rest"
        )
    before, _, after = made.partition("-")
    return ending[1:], before, after


def _language(data: DoneForms) -> _Language:
    if data.verb not in ("first", "last"):
        raise ValueError(f"done_forms verb {data.verb!r}: write 'first' or 'last'")
    rules = tuple(_rule(line) for line in data.endings.splitlines() if line.strip())
    irregular = {
        verb: frozenset(forms)
        for verb, *forms in (line.lower().split() for line in data.irregular.splitlines())
        if forms
    }
    return _Language(data.verb == "first", rules, irregular)


_LANGUAGES = tuple(_language(data) for data in DONE_FORMS)
_NOT_YET = re.compile(
    r"(?<!\w)(?:" + "|".join(r"\s+".join(map(re.escape, mark.split())) for mark in NOT_YET) + r")(?!\w)"
)


class OpenTasks:
    """Open actions' tasks, by the done forms of their verbs: which of them a note line reports done
    (`reports_done`), looked up by the line's own words however many tasks there are."""

    def __init__(self, projects: frozenset[str]) -> None:
        self.projects = projects
        self._by_form: dict[str, list[tuple[str, ...]]] = {}  # a done form: the other words of each task
        self._known: set[str] = set()

    def add(self, task: str) -> None:
        if task in self._known:
            return
        self._known.add(task)
        for forms, rest in _verbs(task, self.projects):
            for form in forms:
                self._by_form.setdefault(form, []).append(rest)

    def reported(self, text: str) -> bool:
        """Whether `text` reports one of the tasks done (`reports_done`)."""
        words = word_sequence(text)
        written = [(form, self._by_form[form]) for form in dict.fromkeys(words) if form in self._by_form]
        if not written or text.rstrip().endswith("?"):
            return False
        stems = frozenset(map(stem, words))
        return any(
            _names_task(rest, stems) and _done_here(text, form) for form, tasks in written for rest in tasks
        )


def reports_done(text: str, task: str, projects: frozenset[str]) -> bool:
    """Whether `text` says `task` (an open action's text) is done: it holds a done form of the task's
    own verb, with nothing ahead of it in its clause leaving the task not done yet, and the task's
    object (its first word after the verb) and half its words or more. A question reports nothing.
    "Rotated the Stripe API key" reports no "rotate the Stripe webhook secret", nor "4 subagents
    deployed to audit" "deploy 5 subagents with the new models"."""
    tasks = OpenTasks(projects)
    tasks.add(task)
    return tasks.reported(text)


def _names_task(rest: tuple[str, ...], stems: frozenset[str]) -> bool:
    """The line's words hold the task's object and half its other words or more."""
    wanted = frozenset(map(stem, rest))
    return stem(rest[0]) in stems and 2 * len(wanted & stems) >= len(wanted)


@functools.lru_cache(maxsize=4096)  # each open action, for each line of a run's notes
def _verbs(task: str, projects: frozenset[str]) -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """Where each language writes a task's verb: the forms that say it is done, and the task's other
    words, its object first. The task is its first part, not what a parenthesis, a dash or a semicolon
    adds ("rotate the webhook secret (it was pasted in Slack)"), nor a tag ahead of it, nor code: a
    function's name is no verb ("`update_patterns()` test coverage")."""
    wording = task_wording(_CODE.sub(" ", _TAG.sub("", _ASIDE.split(task, maxsplit=1)[0])), set(projects))
    if len(wording) < 2:
        return ()  # a verb alone names no task
    found = []
    for language in _LANGUAGES:
        verb, rest = (wording[0], wording[1:]) if language.first else (wording[-1], wording[:-1])
        forms = language.forms(verb)
        if forms:
            found.append((forms, tuple(rest)))
    return tuple(found)


def _done_here(text: str, form: str) -> bool:
    """Some place `text` writes `form` with no word ahead of it in its clause saying it is not done yet."""
    lowered = text.lower().replace("’", "'")
    for match in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", lowered):
        clause = _CLAUSE_START.split(lowered[: match.start()])[-1]
        if not _NOT_YET.search(clause):
            return True
    return False
