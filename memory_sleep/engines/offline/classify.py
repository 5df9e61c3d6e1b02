"""Offline NREM: KEEP/DISCARD by the original skill's criteria, from word cues and the item's shape."""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Sequence
from datetime import date, timedelta

from memory_sleep.engines import pairs
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.cards import KEYED, LABEL
from memory_sleep.engines.offline import (
    absences,
    cues,
    done_forms,
    matching,
    projects,
    promotion,
    routine,
    sections,
    statements,
    values,
    wording,
)
from memory_sleep.engines.recurrence import Recurrence
from memory_sleep.engines.redact import holds_secret
from memory_sleep.language import LEAD_INS
from memory_sleep.models import Category, Classification, DiscardReason, NoteItem
from memory_sleep.text import deadline_in, is_cjk, similarity, tokens

_DUPLICATE_SIMILARITY = 0.9
_KEPT_PER_NOTE = 200  # the kept items of a note a later item is compared with, most recent first
_KEY_VALUE = re.compile(r"^\s*([^:\n]{2,60}):\s+(\S.*)$")
# a reading: a cell holding only numbers and their units ("12 ms", "5m32s", "1,024 MB"), not a date, a
# name, a price ("20 EUR": a value stated, not measured) or a mark ("✅" beside a service's port)
_READING = re.compile(r"(?:[\d.,:]+\s?[^\W\d_]{0,3}\s*)+")
_MEASUREMENTS_IN_OUTPUT = 4
_LEAD_IN = re.compile(r"^[^\n]{2,118}:$")
# a line of a nested list whose item opens with a word: not a command, path or identifier (a code
# span), a number or a mark
_WORDED_ENTRY = re.compile(r"^\s+(?:[-*+]|\d+[.)])\s+(?:\*\*)?[^\W\d_]")
# an arrow standing between words ("GitHub → Gumroad", not "384→389"), or a tree's branch opening a line
_DRAWING = re.compile(r"(?:^|\s)[→←↔⇒⇐](?:\s|$)|^\s*[├└│┌]")
_FENCE_WITH_LANGUAGE = re.compile(r"^(?:`{3,}|~{3,})[ \t]*\w")  # "```bash": code, whatever it draws
_EMPHASIS_ONLY = re.compile(r"^(\*{1,2}|_{1,2}).*\1$")
_NESTED = re.compile(r"^(?:\s+\S|\s*(?:[-*+]|\d+[.)])\s)")  # a line set under the one above it
# content terms of a statement: more than a log line's verb and object (a CJK bigram is half a term:
# a run of n characters has n - 1 bigrams, and a word is about two characters)
_STATEMENT_TERMS = 8
_KEY_WORD = re.compile(r"\w+")  # a word of a bold key: "Utilities" holds no "til", "Leader" no "lead"
# a label the line opens with ("Decided ...", "Lesson: ...", lead_ins in languages/*.toml)
_OPENING_LABEL = re.compile(r"^(?:" + "|".join(map(re.escape, LEAD_INS)) + r")(?=[\s:：—–-])", re.IGNORECASE)
_CUE_NAMES: dict[Category, str] = {
    "decision": "decision: a choice was made",
    "lesson": "lesson: something learned",
    "action": "open action item",
    "status": "project status change",
    "relationship": "people context",
    "fact": "new fact",
}
_CATEGORY_ORDER: tuple[tuple[Category, re.Pattern[str]], ...] = (
    ("decision", cues.DECISION),
    ("lesson", cues.LESSON),
    ("action", cues.ACTION),
    ("status", cues.STATUS),
    ("relationship", cues.RELATIONSHIP),
    ("fact", cues.FACT),
)
_CUE_OF = dict(_CATEGORY_ORDER)
_SENTENCE_END = re.compile(r"(?<!\d)[.!?]\s+")  # a sentence ends; a numbered list's "3. " goes on


class OfflineClassifier:
    """Deterministic NREM classifier; README "How the offline engine decides" lists its rules. It
    remembers the last items it kept of each note, so a note restating an item as the same kind of item
    (an end-of-day summary of the day) repeats it rather than adding it twice, in whatever batch each
    comes; a checkbox restating a line ("- [ ] X" after "1. **X** - why") is no repeat."""

    def __init__(self) -> None:
        self._kept: dict[str, deque[tuple[str, frozenset[str], tuple[Category | None, bool]]]] = {}
        self._tasks: done_forms.OpenTasks | None = None  # open actions of memory and of this run's notes

    def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
        strong, weak = projects.known_projects(items, context.projects)
        memory = [(entry.text, tokens(entry.text)) for entry in context.memory]
        names = frozenset(name.lower() for name in context.projects)
        if self._tasks is None or self._tasks.projects != names:
            self._tasks = done_forms.OpenTasks(names)
        tasks = self._tasks
        for entry in context.memory:
            if entry.section == "Action items":
                tasks.add(entry.text)
        verdicts = []
        for item in items:
            topic = projects.topic(item, strong, weak)
            text = _plain(item.text)
            verdict = _verdict(item, text, memory, context.recurrence, item.id in context.openers, topic)
            if not verdict.closes_action and _reports_done(item, verdict, tasks):
                verdict = dataclasses.replace(verdict, closes_action=True)
            if verdict.category == "action" and verdict.verdict == "KEEP":
                tasks.add(item.text)
            kept = self._kept.setdefault(item.file, deque(maxlen=_KEPT_PER_NOTE))
            form = (verdict.category, bool(cues.CHECKBOX_OPEN.match(item.text)))
            alike = [(known, words) for known, words, its_form in kept if its_form == form]
            if verdict.verdict == "KEEP" and _repeats(text, alike):
                verdict = _discard("duplicate", "repeats an item of its kind kept above in the same note")
            elif verdict.verdict == "KEEP":
                kept.append((text, tokens(text), form))
            promote = verdict.category is None or promotion.promoted(
                verdict.category, text, item.day, item.id in context.cards
            )
            if item.id in context.pairs:  # a change told as before/now: the now line is the current value
                promote = pairs.promoted(item, context.pairs[item.id], promote)
            if item.id in context.conversation:
                promote = False  # a turn of a saved conversation: recallable in the note, not memory
            verdicts.append(dataclasses.replace(verdict, item_id=item.id, topic=topic, promote=promote))
        return verdicts


def _reports_done(item: NoteItem, verdict: Classification, tasks: done_forms.OpenTasks) -> bool:
    """The item reports a task done: it stands under a section of work done ("## Done / - Sent the
    invoice"), or, being no open action itself, says an open action's task is done in the task's own
    verb ("renew the example.org domain", then "example.org renewed for 2 years")."""
    if sections.reports_done(item.headings, item.lead):
        return True
    if verdict.category == "action" or cues.CHECKBOX_OPEN.match(item.text):
        return False
    return tasks.reported(item.text)


def _discard(reason: DiscardReason, why: str, closes: bool = False) -> Classification:
    return Classification(
        item_id="", verdict="DISCARD", discard_reason=reason, reason=why, closes_action=closes
    )


def _keep(item: NoteItem, category: Category, text: str, closes: bool = False) -> Classification:
    deadline = deadline_in(text, item.day) if category == "action" else None
    return Classification(
        item_id="",
        verdict="KEEP",
        category=category,
        reason=_CUE_NAMES[category],
        closes_action=closes,
        deadline=deadline,
    )


def _verdict(
    item: NoteItem,
    text: str,
    memory: Sequence[tuple[str, frozenset[str]]],
    recurrence: Recurrence,
    opens: bool,
    topic: str | None,
) -> Classification:
    """The first rule that applies decides; KEEP criteria win over DISCARD ones except for noise."""
    first_line = text.splitlines()[0] if text else ""
    if item.kind == "code":
        if not _drawing(item.text):
            return _discard("debug", "pasted code or command output")
        if _repeats(text, memory):
            return _discard("duplicate", "already in MEMORY.md")
        return _keep(item, "fact", text)
    if _under_pasted_briefing(item.headings) or cues.RECALLED.search(text):
        return _discard("recalled", "text the tool wrote (briefing or recall), not new memory")
    if cues.DEBUG.search(first_line) or _looks_like_log(item.text) or routine.is_stack_trace(text):
        return _discard("debug", "log or debug output")
    if item.kind == "table" and _measurements(text):
        return _discard("debug", "a table of measurements: output, not memory")
    if routine.is_metadata(first_line):
        return _discard("routine", "fields about the note (only tags, or a row of keys), not a statement")
    if "\n" not in text and routine.stamps_the_note(first_line, item.day):
        return _discard("routine", "when the note was written, not a statement")
    category = _keep_category(item, text, opens)
    if holds_secret(first_line) and not (
        category in ("decision", "lesson") or (category == "action" and sets_a_task(item.text, item.day))
    ):
        # what the line records is a credential: the note keeps it and recall finds it there; MEMORY.md,
        # read into every session, gets no pointer to a secret (a choice, a lesson or a task naming one
        # says more than where it is: they stay, redacted)
        return _discard("other", "records a secret (redacted): left in its note")
    first_raw = item.text.split("\n", 1)[0]
    if not _says_its_kind(item, text, category) and recurrence.is_routine(
        first_raw, item.day, by_key=category != "action" or not sets_a_task(item.text, item.day)
    ):
        return _discard("routine", "its shape recurs day after day: a routine line")
    if item.kind == "quote" and category != "decision":
        return _discard("debug", "pasted quotation")
    if (
        _LEAD_IN.match(text.replace("**", "").strip())
        and len(text) < 120
        and not (opens and _statement(text))
    ):
        return _discard("other", "introduces the lines that follow")
    if cues.CHECKBOX_DONE.match(item.text) or cues.DONE.search(text):
        if category == "lesson" or (category == "decision" and not cues.CHECKBOX_DONE.match(item.text)):
            return _keep(item, category, text, closes=True)
        if category == "status" and (
            cues.FINISHED.search(text)
            or (
                (topic or projects.section_subject(item)) is not None
                and _status_beyond_done(item, text, opens)
            )
        ):
            return _keep(item, "status", text, closes=True)
        if item.kind == "table":  # a ✅ marks a cell of a row, not a task of the note reported done
            return _discard("resolved", "a table of things marked done or passing", closes=False)
        return _discard("resolved", "finished task with no lasting lesson", closes=True)
    if cues.NARRATION.search(first_line) and category not in ("decision", "lesson"):
        return _discard("narration", "narrates what the agent is doing")
    if (
        sections.is_log_line(first_line)
        and category not in ("decision", "lesson")
        and not cues.CHECKBOX_OPEN.match(item.text)
        and sections.section_category(item.headings, item.lead) in (None, "action")
        and deadline_in(text, item.day) is None
        and not values.replaced_values(text)
        and _after_the_log(item, text, opens) in (None, "action", "status")
    ):
        return _discard("routine", "a line of the activity log: what was done, not what holds")
    if category is None:
        return _discard("other", "no decision, fact, lesson, action, person or status in it")
    if _repeats(text, memory):
        return _discard("duplicate", "already in MEMORY.md")
    return _keep(item, category, text)


_TASK_KEYS = ("todo", "next", "deadline", "due")  # a key naming what is to be done; "Action" may be either


def _keyed_category(raw: str, day: date) -> Category | None:
    """The category a bold key names ("**Decision:** ...", "**Next:** ...") when a value follows it."""
    key_match = cues.BOLD_KEY.match(cues.BULLET.sub("", raw, count=1))
    if not (key_match and key_match.group(2).strip()):
        return None
    key = {
        form
        for word in _KEY_WORD.findall(key_match.group(1).lower())
        for form in (word, word.removesuffix("s"))
    }
    for category, words in (
        ("decision", ("decision", "decided")),
        ("lesson", ("lesson", "til", "learned")),
        ("action", (*_TASK_KEYS, "action")),
        ("status", ("status", "blocker", "blocked")),
        ("relationship", ("owner", "contact", "lead", "who")),
    ):
        if key.intersection(words):
            if (
                category == "action"
                and key.isdisjoint(_TASK_KEYS)
                and not _sets_out_a_task(key_match.group(2), day)
            ):
                return None  # "**Action:** Disabled the service": an incident record's action taken
            return category  # type: ignore[return-value]
    return None


def _sets_out_a_task(value: str, day: date) -> bool:
    """A field's value that says what is to be done ("fix the cron job", "need to renew the cert", a
    deadline), not what was done."""
    value = value.strip()
    return (
        bool(cues.TASK_VERB.match(value) or cues.ACTION.search(value)) or deadline_in(value, day) is not None
    )


def sets_a_task(raw: str, day: date) -> bool:
    """The line sets a task itself (an open checkbox, an action cue or key, a deadline): an action by
    its own words. A line that is an action only by standing under "Follow-ups" ("**Backup:** ok,
    21.9 GB") is judged by its own shape, a reading's key and a later series included, as any line is."""
    text = _plain(raw)
    return (
        bool(cues.CHECKBOX_OPEN.match(raw))
        or bool(cues.ACTION.search(text))
        or _keyed_category(raw, day) == "action"
        or deadline_in(text, day) is not None
    )


def _status_beyond_done(item: NoteItem, text: str, opens: bool) -> bool:
    """A done-report of a known project that says how the project stands (a milestone reached, a
    release out) besides the word saying it is done: the project's current status, whether or not it
    closes an action. "Finished: rotate the cert" is a task done, not a status."""
    return _keep_category(item, cues.DONE.sub(" ", text), opens) == "status"


def _repeats(text: str, known: Sequence[tuple[str, frozenset[str]]]) -> bool:
    """Most of the words of one of `known`, hardly more, and no new value for what it says."""
    words = tokens(text)
    return any(
        similarity(words, known_words) >= _DUPLICATE_SIMILARITY
        and len(words) <= len(known_words) + 2
        and not matching.values_conflict(text, known_text)
        and not _new_value_for_key(text, known_text)
        and not values.says_gone(text, known_text)
        and not statements.reordered(text, known_text)
        and not statements.swapped(text, known_text)
        for known_text, known_words in known
    )


def _keep_category(item: NoteItem, text: str, opens: bool) -> Category | None:
    if cues.CHECKBOX_OPEN.match(item.text):
        return "action"
    if len(text.split()) < 2 and sum(is_cjk(char) for char in text) < 2:
        return None  # one word ("HEARTBEAT_OK", "done", "无"): no statement
    if item.kind == "table":  # a reference table; its header may name what it lists ("| Name | Role |")
        return sections.section_category(tuple(text.splitlines()[:1])) or "fact"
    # the author's own mark on the line ("Lesson: ...", "**Decision:** ...") outranks the section it
    # stands in: a decision noted under "Follow-ups", a lesson under "Blocker fixed"
    labelled = _labelled_category(text) or _keyed_category(item.text, item.day)
    if labelled is not None:
        return labelled
    structured = sections.section_category(item.headings, item.lead)
    if structured is not None:
        return structured
    # someone away ("Ben ist vom ... bis ... im Urlaub"): a person's context, whatever its last day says
    if absences.absence(text) is not None:
        return "relationship"
    key_match = cues.BOLD_KEY.match(cues.BULLET.sub("", item.text, count=1))
    words = cues.prose(text)  # a cue word in a path names a thing; a fact's cue is often a value there
    for category, pattern in _CATEGORY_ORDER:
        if pattern.search(text if category == "fact" else words):
            return category
    if (key_match and key_match.group(2).strip()) or values.replaced_values(text):
        return "fact"  # a keyed value, or one that names the value it replaced ("(was 2026-10-19)")
    stated = _stated_line(item.text, text)
    if stated and cues.DECLARATIVE.match(stated) and not sections.is_log_line(stated):
        return "fact"  # a plain statement of how something is: "Grus prod DB is Postgres 14"
    if stated and KEYED.match(stated) and not sections.is_log_line(stated):
        return "fact"  # "Key: value" however long the value
    if opens and _statement(text):
        return "fact"  # the sentence a section opens with: what the section is about
    if _listed_values(item.text):
        return "fact"  # a key over a list of worded entries: its value laid out as a list
    if _with_fields(item.text):
        return "fact"  # a statement the author gave fields ("next: the load test", "owner: Ana")
    # nothing else but a due date after tomorrow ("... （11月2日まで）"): a task, not a plan for the next
    # day ("meeting tomorrow 10:30")
    due = deadline_in(text, item.day)
    if due is not None and due > item.day + timedelta(days=1):
        return "action"
    return None


def _stated_line(raw: str, text: str) -> str | None:
    """The one line an item states: its text when it is one line, or its first line when every other
    line is set under it ("Marlin (mobile app): 2.0 is the big redesign." over "  - release planned for
    2026-11-20"): details of what it states. None for lines side by side (a paragraph, a log)."""
    if "\n" not in text:
        return text
    rest = [line for line in raw.split("\n")[1:] if line.strip()]
    return text.split("\n", 1)[0] if rest and all(_NESTED.match(line) for line in rest) else None


def _says_its_kind(item: NoteItem, text: str, category: Category | None) -> bool:
    """A decision or lesson by its own words (its label, key or cue), which recurrence does not make
    routine: a lesson restated is a repeat for REM to find. A line that is one only by the section it
    stands in ("- **页面ID**: 32c1…" under a heading that names lessons) is judged by its shape."""
    if category not in ("decision", "lesson"):
        return False
    return (
        _labelled_category(text) == category
        or _keyed_category(item.text, item.day) == category
        or _CUE_OF[category].search(cues.prose(text)) is not None
    )


def _labelled_category(text: str) -> Category | None:
    """The category the label a line opens with names ("Decided Vela runs on ...", "Lesson: ..."): the
    author's own mark for the line, which outranks the section it stands in (a decision noted under
    "Follow-ups" is a decision)."""
    label = _OPENING_LABEL.match(text)
    if label is None:
        return None
    return next(
        (category for category, pattern in _CATEGORY_ORDER if pattern.search(label.group(0) + ":")), None
    )


def _listed_values(raw: str) -> bool:
    """A key alone on its first line (cards.LABEL: a key as in "Key: value", not a sentence saying what was
    done) over a nested list each line of which is an item opening with a word ("- Trade-offs:" over
    "  - one database per tenant", ...): what the key holds, laid out as a list, as "Key: value" however
    long the value is a fact. A list with a line that opens with a command, path or identifier (a code
    span), a number or a mark ("- Checks:" over "  - `pytest tests/` 3 passed") records what was run."""
    lines = [line for line in raw.split("\n")[1:] if line.strip()]
    return (
        bool(lines)
        and bool(LABEL.match(raw.split("\n", 1)[0]))
        and all(_WORDED_ENTRY.match(line) for line in lines)
    )


def _with_fields(raw: str) -> bool:
    """A statement whose nested lines (set under it by indentation or a list mark) are all `Key: value`
    fields the author attached to it ("Quokka is back on track" over "- next: the load test" and
    "- owner: Ana"): what it records is laid out to be read again. Not a title in emphasis over fields
    ("**Missing tests**" over "- Problem: ..."), a report's finding, nor a log line over what it
    printed; a paragraph's next line ("Oli: the fix goes into build 206") is a line of its own, not a
    field."""
    first, *rest = (line for line in raw.split("\n") if line.strip())
    head = _plain(first)
    return (
        bool(rest)
        and not _EMPHASIS_ONLY.match(head)
        and not sections.is_log_line(head)
        and all(_NESTED.match(line) and KEYED.match(_plain(line)) for line in rest)
    )


def _after_the_log(item: NoteItem, text: str, opens: bool) -> Category | None:
    """The category of what a paragraph opening with a line of the activity log says in its sentences
    that are no log lines ("Checked the error dashboard, nothing new. For the record, the prod database
    host is 10.0.7.9 ..." states a fact past its log sentence); None when it says nothing more."""
    rest = " ".join(
        sentence for sentence in _SENTENCE_END.split(text)[1:] if not sections.is_log_line(sentence)
    )
    return _keep_category(dataclasses.replace(item, text=rest), rest, opens) if rest.strip() else None


def _statement(text: str) -> bool:
    """One line of prose saying something (eight content terms or more), not a question, not only
    emphasis ("**BUILD COMPLETE**")."""
    return (
        "\n" not in text
        and not text.rstrip().endswith(("?", "？"))
        and not _EMPHASIS_ONLY.match(text)
        and _terms(text) >= _STATEMENT_TERMS
    )


def _terms(text: str) -> float:
    """Its content terms, a CJK bigram counting half: "今天的主要学习内容" (eight bigrams) is about four words."""
    found = tokens(text)
    bigrams = sum(1 for term in found if is_cjk(term[0]))
    return len(found) - bigrams / 2


def _drawing(block: str) -> bool:
    """A fence holding a diagram the author drew (arrows, tree branches), not code or output: half its
    lines or more draw, and some line names something (a box alone says nothing)."""
    lines = [line for line in block.splitlines()[1:] if line.strip() and not cues.FENCE.match(line)]
    drawn = sum(1 for line in lines if _DRAWING.search(line))
    named = any(char.isalnum() for line in lines for char in line)
    return named and not _FENCE_WITH_LANGUAGE.match(block) and drawn * 2 >= len(lines)


def _under_pasted_briefing(headings: Sequence[str]) -> bool:
    """Inside a pasted briefing: below a briefing heading, with only briefing-like headings since."""
    marks = [index for index, heading in enumerate(headings) if cues.RECALLED.search(heading)]
    if not marks:
        return False
    return all(cues.BRIEFING_HEADING.search(heading) for heading in headings[marks[-1] + 1 :])


def _new_value_for_key(text: str, known: str) -> bool:
    """'Owner (exporter): Oli' after 'Owner (exporter): Ana' is news, not a repeat."""
    new, old = _KEY_VALUE.match(text), _KEY_VALUE.match(known)
    return bool(
        new
        and old
        and new.group(1).lower() == old.group(1).lower()
        and new.group(2).lower() != old.group(2).lower()
    )


def _plain(text: str) -> str:
    """The item's words without bullet, checkbox and timestamp markup."""
    lines = []
    for line in text.splitlines():
        line = cues.BULLET.sub("", line, count=1)
        line = cues.CHECKBOX_OPEN.sub("", line, count=1)
        line = cues.CHECKBOX_DONE.sub("", line, count=1)
        line = cues.TIMESTAMP.sub("", line, count=1)
        lines.append(line.replace("：", ": ").strip())  # a full-width colon keys a line as ":" does
    return "\n".join(line for line in lines if line)


def _measurements(table: str) -> bool:
    """Half the cells of the table's rows below its header or more are readings: output pasted. A
    status mark beside a service's port, a price beside a plan, are what the table tells: no readings."""
    rows = [row for row in table.splitlines()[2:] if not wording.TABLE_RULE.match(row)]  # a rule groups rows
    cells = [cell.strip() for row in rows for cell in row.strip().strip("|").split("|")]
    found = sum(
        1 for cell in cells if _READING.fullmatch(cell) and not values.VALUE_KINDS["money"].fullmatch(cell)
    )
    return found >= _MEASUREMENTS_IN_OUTPUT and found * 2 >= len(cells)


def _looks_like_log(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return False
    loggy = sum(1 for line in lines if cues.DEBUG.search(line.strip()))
    return loggy >= len(lines) * 0.6
