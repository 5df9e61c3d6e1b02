"""Which open action a note reports done, decided offline: the action it shares most of its task with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from memory_sleep.engines.offline import cues, done_forms, matching, sections
from memory_sleep.engines.offline.task_words import NOT_THE_TASK, cleaned, stem, task_wording
from memory_sleep.language import STILL_OPEN
from memory_sleep.models import Closure, EntryView, KeptItem, NoteItem
from memory_sleep.text import (
    CLOCK,
    LIST_MARK,
    NAME,
    cjk_bigrams,
    clean,
    is_cjk,
    similarity,
    tokens,
    word_sequence,
    words_and_runs,
)

_DONE_SIMILARITY = 0.25
_SWAP_WORDS = 2
# an action is often written twice (a plan, then the same step in a later note's "next"): words of its
# task that at most this many other open actions also have still tell it from the rest
_OTHERS_SHARING = 1
# names one thing among many alike: a flag or file in backticks, a ticket, a PR, a numbered host
# a capitalised word inside a sentence (not its first word): someone a task is for or about
_ASIDE = re.compile(r"\([^()]*\)")
_MID_NAME = re.compile(rf"(?<=[\w,)]\s){NAME}\b")
# a function named as code: "searchSimilar()", "`query()`", "init_db(path)"
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\((\))?(?(2)|(?=[^)]*\)))")
_CODE_NAME = re.compile(r"_|[a-z][A-Z]")
# a line led by code: a call, a name in backticks or written as code ("test_loader_ok", "shelfStats")
_LEAD_CODE = re.compile(r"`[^`\n]+`|[A-Za-z_]\w*\(\)|[A-Za-z]\w*(?:_\w+|[a-z][A-Z]\w*)(?![\w-])")
# how a name is written: words capitalised in a row ("GitHub Pages", "Agent Mesh Network"), a word with
# capitals inside ("OpenClaw") or an acronym ("CORS", "MCP")
_NAME_RUN = re.compile(r"(?<![A-Za-z0-9_])[A-Z][\w.-]*(?:[ \t]+[A-Z][\w.-]*)+")
_NAME_WORD = re.compile(r"(?<![A-Za-z0-9_])(?:[A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z]|[A-Z]{2,})[A-Za-z0-9]*")
_STILL_OPEN = re.compile(
    "(?<!\\w)(?:" + "|".join(r"\s+".join(map(re.escape, mark.split())) for mark in STILL_OPEN) + ")", re.I
)
_NEXT = re.compile(r"\n|\\n|次は|下一步|[,;、，。]\s*(?:next|then|als nächstes|luego)\b", re.I)


class OfflineCloser:
    """Each note closes the open action it shares the most of its task with, never one of another
    project or naming another flag, ticket, host or person, nor the same task said of something else
    ("the qa cert" is not "the staging cert"); and only by words that tell that action from the other
    open ones it could be: a line sharing just what several actions say ("AI agent") reports none of
    them, while the same task of another project ("file the expense report for Vela") is no rival.
    Short of structural evidence that the line reports that task done, the action stays open (a missed
    close leaves the task in sight; a wrong one hides it): words of the task's own line,
    not only of its details nor only the names of what it is about, not what the line says is still
    to do, not another function (nor the one its note adds for another open action, the work its test
    lines report), not led by other code, never one of the tasks a lead-in lists, nor the note's own
    next steps."""

    def close(
        self, completions: Sequence[KeptItem], actions: Sequence[EntryView], projects: Sequence[str]
    ) -> list[Closure]:
        names = {name.lower() for name in projects} | {a.topic.lower() for a in actions if a.topic}
        known = frozenset(names)
        tasks = {action.ref: _task(action.text, names) for action in actions}
        built = _functions_built(completions)
        asked = frozenset().union(*(_calls(action.text) for action in actions))
        closures: list[Closure] = []
        closed: set[str] = set()
        for kept in completions:
            done = _what_was_done(kept.item.text)
            task = _task(done, names)
            words = frozenset(task)
            functions = _functions_reported(done, kept.item, built, asked)
            alike = [action for action in actions if not _other_thing(action, kept, done, functions, names)]
            # a line saying a task is done in its own verb ("example.org renewed") reports that task
            own = [action for action in alike if done_forms.reports_done(done, action.text, known)]
            alike = own or alike
            task_words = [frozenset(tasks[action.ref]) for action in alike]
            best, best_score = None, 0.0
            for action in alike:
                if action.ref in closed or action.written_after(kept.item) or _planned_in(action, kept):
                    continue
                action_task = tasks[action.ref]
                if _swapped(task, action_task) or _led_by_other_code(done, action.text):
                    continue
                action_words = frozenset(action_task)
                shared = words & action_words
                score = similarity(words, action_words)
                if (
                    len(shared) >= 2
                    and score >= _DONE_SIMILARITY
                    and score > best_score
                    and _tells_apart(shared, task_words)
                    and _reports(done, action.text, shared, names)
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
    ids, other_ids = matching.identifiers(text), matching.identifiers(other)
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


def _planned_in(action: EntryView, kept: KeptItem) -> bool:
    """The action is one of the next steps of the note the line is in, which lists what its work left
    to do: a line further down ("**Status:** ✅ Complete — ...") reports that work, not them. A section
    of the note stamped with a later time of day ("🌙 Evening summary (20:16)") is later work."""
    if action.source is None or action.source.rsplit(":", 1)[0] != kept.item.file:
        return False
    headings = action.source_headings
    to_do = sections.section_category(headings, action.source_lead) == "action"
    if not to_do or any(map(cues.DONE.search, headings)):  # "✅ Completed tasks" lists work done
        return False
    later = set(kept.item.headings) - set(headings)
    return not any(CLOCK.search(heading) for heading in later)


def _reports(done: str, action: str, shared: frozenset[str], projects: set[str]) -> bool:
    """What the done line shares with the action is its task, not only what the task is about: words
    of its first part (a task's own line, not the details under it: "Fixed missing dependencies; added
    requirements.txt" is not reported done by "tracks added memories"), and more than the names both
    write as names ("✅ recent task: Page Agent + GLM" reports no "test Page Agent in real use"). An
    action that is a lead-in and the tasks it lists ("High priority:; test the plugin; add a web UI")
    is several tasks, which one line does not report all done."""
    parts = action.split("; ")
    if len(parts) > 1 and parts[0].rstrip(" *").endswith((":", "：")):
        return False
    done_terms = _terms(done, projects)
    if done_terms.isdisjoint(_terms(parts[0], projects)):
        return False
    return bool(shared - (_names(action) & _names(done))) or not _bigrams(action).isdisjoint(_bigrams(done))


def _terms(text: str, projects: set[str]) -> frozenset[str]:
    return frozenset(_task(text, projects)) | _bigrams(text)


def _bigrams(text: str) -> frozenset[str]:
    """The character pairs of each CJK run of the text (un-spaced words compare by them)."""
    runs = words_and_runs(clean(cleaned(text)))
    return frozenset(pair for run in runs if is_cjk(run) for pair in cjk_bigrams(run))


def _names(text: str) -> frozenset[str]:
    """The words the text writes as names, stemmed as tasks are."""
    found = [*_NAME_RUN.findall(text), *_NAME_WORD.findall(text)]
    return frozenset(stem(word) for name in found for word in word_sequence(name))


def _tells_apart(shared: frozenset[str], tasks: Sequence[frozenset[str]]) -> bool:
    """Words an action shares with a done line tell it from the rest: no more than _OTHERS_SHARING
    other open actions have every one of them too."""
    return sum(shared <= task for task in tasks) <= 1 + _OTHERS_SHARING


def _other_thing(
    entry: EntryView, kept: KeptItem, done: str, functions: frozenset[str], projects: set[str]
) -> bool:
    """The entry is about another project, or names another flag, ticket, PR, host, address, person or
    function (`functions`: those the done line reports)."""
    if entry.topic and kept.topic and entry.topic.lower() != kept.topic.lower():
        return True
    named_entry, named_done = _projects_named(entry.text, projects), _projects_named(done, projects)
    if named_entry and named_done and named_entry.isdisjoint(named_done):
        return True
    ids_entry, ids_done = matching.identifiers(entry.text), matching.identifiers(done)
    if ids_entry and ids_done and ids_entry.isdisjoint(ids_done):
        return True
    if _people_differ(entry.text, done, projects):
        return True
    calls_entry = _calls(entry.text)
    if calls_entry and functions and calls_entry.isdisjoint(functions):
        return True
    return matching.values_conflict(entry.text, done, matching.IDENTITY_KINDS)


def _led_by_other_code(done: str, action: str) -> bool:
    """The done line is led by code the action does not name: it reports that code ("purge() saves the
    index" reports purge(), not "index compaction"; "✅ test_loader_freshness" a test passing, not the
    freshness score)."""
    lead = _LEAD_CODE.match(cleaned(LIST_MARK.sub("", done, count=1)))
    return lead is not None and _code_name(lead[0]) not in _code_name(action)


def _functions_built(completions: Sequence[KeptItem]) -> dict[str, frozenset[str]]:
    """By note: the functions its done-reports and their headings name as code, the work the note
    reports ("**Status:** ✅ Complete — shelfStats() added", "## Focus: `prepend()` + `ttl()`")."""
    built: dict[str, frozenset[str]] = {}
    for kept in completions:
        named = _calls(kept.item.text) | _calls(" ".join(kept.item.headings))
        built[kept.item.file] = built.get(kept.item.file, frozenset()) | named
    return built


def _functions_reported(
    done: str, item: NoteItem, built: dict[str, frozenset[str]], asked: frozenset[str]
) -> frozenset[str]:
    """The functions a done line reports: those it names as code; else those of its note's work that it
    names by their bare name ("prepend missing key returns None" of a note adding prepend() and ttl()
    tests prepend()); else its note's work that open actions ask for (`asked`), which a test line without
    a name is one of ("returns empty digest of tagged shelf" of a note adding shelfStats(), an open
    action, tests shelfStats(), not digestShelf()). A note's work no action names ("rowHistory() added",
    built for "`rowVersions(id)` — keep row snapshots") says nothing of its lines."""
    own = _calls(done)
    if own:
        return own
    work = built.get(item.file, frozenset()) | _calls(" ".join(item.headings))
    said = frozenset(word_sequence(done))
    return frozenset(name for name in work if name in said) or work & asked


def _code_name(text: str) -> str:
    """The text folded as code is compared: lower case, without the marks that join a name's parts."""
    return re.sub(r"[\W_]+", "", text.lower())


def _what_was_done(text: str) -> str:
    """What a note reports done: not a status block's "next:" and "owner:" lines, nor what it says
    comes next ("... が完了、次は the pricing page"), nor what it says is still to do ("✅ created
    (pending: the API key)")."""
    return _STILL_OPEN.split(_NEXT.split(text, maxsplit=1)[0], maxsplit=1)[0]


def _projects_named(text: str, projects: set[str]) -> frozenset[str]:
    return frozenset(tokens(text) & projects)


def _calls(text: str) -> frozenset[str]:
    """The functions the text names as code: "searchSimilar()", "query()", "`ttl(key)`" (not "cert(s)")."""
    return frozenset(
        match[1].lower()
        for match in _CALL.finditer(text)
        if match[2] or _CODE_NAME.search(match[1]) or text[match.start() - 1 : match.start()] == "`"
    )


def _people_differ(text: str, other: str, projects: set[str]) -> bool:
    """Each names someone inside its task that the other does not name anywhere: "reply to Ana about
    the quota question" is not "reply to Lou about the quota question" (the name may open what is left
    of the task, where a swapped word is not seen), while "Get Maya's screens" done as "Maya's screens
    are in Figma" is one task. A task's first word, a project, a day or a month is no one."""
    own, theirs = _people(text, projects), _people(other, projects)
    return bool(own) and bool(theirs) and own.isdisjoint(_stems(other)) and theirs.isdisjoint(_stems(text))


def _people(text: str, projects: set[str]) -> frozenset[str]:
    """The people the task names: not in an aside in parentheses, which says who does it or why ("write
    a runbook for the replay (we keep re-deriving it from Slack)", "... by Friday (Ilse)")."""
    found = (stem(name.lower()) for name in _MID_NAME.findall(_ASIDE.sub(" ", cleaned(text))))
    return frozenset(name for name in found if name not in projects and name not in NOT_THE_TASK)


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in word_sequence(text))


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
    "renewed" (`task_wording`)."""
    return [stem(word) for word in task_wording(text, projects)]
