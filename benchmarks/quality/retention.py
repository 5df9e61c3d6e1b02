"""Fact retention (final values and kept decisions, lessons, people findable) and contradictions
(only the final value of a changed fact or reversed decision stands as current; older ones archived)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from difflib import SequenceMatcher

from workspace_gen.truth import KeyedTruth

from memory_sleep.text import normalize

from .outputs import Outputs
from .simulate import History
from .textmatch import LineIndex, contains_value, current_text, informative_tokens
from .truthdata import GroundTruth, ItemTruth, TruthText

_NOTE_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_ABSENCE_KEY = re.compile(r"person\.[^.]+\.ooo\.(\d{4}-\d{2}-\d{2})")
_DAYS = re.compile(r"(\d+) days?")
RETAINED_CATEGORIES = ("decision", "lesson", "relationship")
FINDABLE = 0.6
ABOUT = 0.6
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*+])\s+")  # "2. " numbers a list, it states nothing
# "(was @ola)", "(old one X is gone)", "(from MySQL)": a value it no longer has; a line cut inside one
# ("(old one X is… (2026-09-20)", or at its end) names it all the same
_WAS = re.compile(r"\((?:was|previously|old|from|migrated off)\b[^)]*(?:\)|$)", re.IGNORECASE)


@dataclass
class Retention:
    values_found: int = 0
    values_total: int = 0
    items_found: int = 0
    items_total: int = 0
    missing_values: list[tuple[str, str]] = field(default_factory=list)
    missing_items: list[ItemTruth] = field(default_factory=list)

    @property
    def value_share(self) -> float:
        return self.values_found / self.values_total if self.values_total else 1.0

    @property
    def item_share(self) -> float:
        return self.items_found / self.items_total if self.items_total else 1.0


def fact_retention(outputs: Outputs, truth: GroundTruth, text: TruthText) -> Retention:
    """Each fact's final value in MEMORY.md's current text, a project summary or a weekly summary;
    each KEEP decision, lesson or relationship item with >= 60% of its words on one line of MEMORY.md
    or a weekly summary."""
    result = Retention()
    haystack = "\n".join(outputs.current_lines()) + "\n" + outputs.weekly_text
    for fact in truth["facts"]:
        result.values_total += 1
        if contains_value(haystack, fact["final"]):
            result.values_found += 1
        else:
            result.missing_values.append((fact["key"], fact["final"]))
    lines = LineIndex([*outputs.memory.splitlines(), *outputs.weekly_text.splitlines()])
    for item in truth["items"]:
        if item["verdict"] != "KEEP" or item["category"] not in RETAINED_CATEGORIES:
            continue
        result.items_total += 1
        words = informative_tokens(text.of(item))
        share, _ = lines.best(words)
        if not words or share >= FINDABLE:
            result.items_found += 1
        else:
            result.missing_items.append(item)
    return result


@dataclass(frozen=True)
class Statement:
    key: str | None  # None: a kept item that states no keyed fact
    value: str
    text: str
    tokens: frozenset[str]
    people: frozenset[str] = frozenset()  # the name words of the people it is about
    item: str = ""  # what it states, for telling two lines apart: its key, else its note's place


class StatementIndex:
    """Every note item, to tell which one a line of memory restates and so which keyed fact or decision
    and which value that line claims. A line that best restates an item about no keyed fact (a
    decision that names a fact's old owner) is about no fact; a line restates an item about people
    only if it names them ("Wei on leave ..." is not Fatima's leave on the same dates)."""

    def __init__(self, truth: GroundTruth, text: TruthText) -> None:
        self.statements: list[Statement] = []
        self.values: dict[str, list[str]] = {}
        self._postings: dict[str, list[int]] = {}
        keyed = {fact["key"]: fact for fact in (*truth["facts"], *truth["decisions"])}
        stated = {
            (value["file"], value["line"]): value["value"]
            for fact in keyed.values()
            for value in fact["values"]
        }
        for fact in keyed.values():
            self.values[fact["key"]] = [value["value"] for value in fact["values"]]
        self._names = _name_words(truth)
        for item in truth["items"]:
            key = item["fact_key"]
            body = _one_line(_LIST_MARKER.sub("", text.of(item)))
            value = ""
            if key in keyed:
                value = stated.get((item["file"], item["line"])) or _value_of(body, item["file"], keyed[key])
            words = informative_tokens(body)
            for word in words:
                self._postings.setdefault(word, []).append(len(self.statements))
            people = words & self._names
            identity = key or f"{item['file']}:{item['line']}"
            self.statements.append(
                Statement(key if key in keyed else None, value, normalize(body), words, people, identity)
            )

    def people_in(self, line: str) -> frozenset[str]:
        """The name words of the people and contacts `line` names."""
        return informative_tokens(line) & self._names

    def assign(self, line: str) -> tuple[str, str | None] | None:
        """(key, value it states) for the statement `line` best restates (>= 60% of its words), else None.
        Statements with the same words ("moved to A (was B)", "moved to B (was A)") are told apart by
        word order; the value is the one the line states outside "(was ...)", which names the value it
        replaced, or None when it states none of the key's values."""
        line = _one_line(line)
        statement = self._best(line)
        if statement is None or statement.key is None:
            return None
        claim = _WAS.sub(" ", line)
        if contains_value(claim, statement.value):
            return statement.key, statement.value
        held = {v.lower() for v in self.values[statement.key] if contains_value(claim, v)}
        return statement.key, (held.pop() if len(held) == 1 else None)

    def restated_item(self, line: str) -> str | None:
        """What `line` restates: a keyed fact's or decision's key (a repeat in the notes carries the
        key of what it repeats), else the place of the one note item it restates."""
        statement = self._best(line)
        return statement.item if statement else None

    def _best(self, line: str) -> Statement | None:
        words = informative_tokens(line)
        counts: Counter[int] = Counter()
        for word in words:
            counts.update(self._postings.get(word, ()))
        shares = {
            index: shared / len(self.statements[index].tokens)
            for index, shared in counts.items()
            if self.statements[index].people <= words
        }
        best_share = max(shares.values(), default=0.0)
        if best_share < ABOUT:
            return None
        tied = [index for index, share in shares.items() if share == best_share]
        flat = normalize(line)
        best = max(
            tied, key=lambda index: (SequenceMatcher(None, flat, self.statements[index].text).ratio(), index)
        )
        return self.statements[best]


def _name_words(truth: GroundTruth) -> frozenset[str]:
    """The words of every person's and contact's name (as the tokenizer splits them)."""
    names = {person["name"] for person in truth["people"]}
    names.update(
        fact["key"].split(".")[1]
        for fact in truth["facts"]
        if fact["key"].startswith(("person.", "contact."))
    )
    return frozenset(word for name in names for word in informative_tokens(name))


def _one_line(text: str) -> str:
    """A statement's text on one line: an item wrapped mid-value ("annoyed by @here\\npings") states
    that value as it does unwrapped (its words and wording are already compared whitespace-folded)."""
    return " ".join(text.split())


def _value_of(body: str, file: str, fact: KeyedTruth) -> str:
    """The value a restatement carries: the one it names, else the one current on its day."""
    named = {value["value"] for value in fact["values"] if contains_value(body, value["value"])}
    if len(named) == 1:
        return named.pop()
    day = file.split("/")[-1][:10]
    current = [value["value"] for value in fact["values"] if value["date"] <= day]
    return current[-1] if current else fact["values"][0]["value"]


@dataclass(frozen=True)
class KeyOutcome:
    key: str
    final: str
    final_current: bool
    stale_current: list[str]
    unarchived: list[str]
    never_in_memory: list[str]
    final_in_memory: bool  # strictly: stated in MEMORY.md at the end, whatever DESIGN's rules archive
    left_by_rule: str = ""  # why DESIGN has the final value leave MEMORY.md, when it does

    @property
    def resolved(self) -> bool:
        return self.final_current and not self.stale_current and not self.unarchived


def _stated(index: StatementIndex, lines: Iterable[str]) -> dict[str, set[str]]:
    """key -> values (lower case) that some line states as current."""
    found: dict[str, set[str]] = {}
    for line in lines:
        assigned = index.assign(current_text(line))
        if assigned and assigned[1]:
            found.setdefault(assigned[0], set()).add(assigned[1].lower())
    return found


def contradictions(
    outputs: Outputs,
    truth: GroundTruth,
    text: TruthText,
    history: History | None = None,
    stale_after_days: int = 30,
    last_run: date | None = None,
) -> list[KeyOutcome]:
    """For each fact or decision with more than one value: the final value current, no older value
    current, and every older value that was ever current in MEMORY.md present in the archive.

    DESIGN.md has rules that take a final value out of MEMORY.md, and for them the final value
    stated in the archive counts as kept: entries about finished work leave (a fact about a project
    that has finished, not a person: people outlive projects; a leave whose last day is past on the
    day of the last run, `last_run`, default the last note day); and an entry older than
    stale_after_days with no reference since is stale on that day. All are decided from the truth
    (when the project finished, when the leave ends, the last note that mentions the fact), never
    from what the tool did; `final_in_memory` keeps the strict reading."""
    finished = {p["name"] for p in truth["projects"] if p["finished_on"] and p["finished_on"] <= truth["end"]}
    last_mention = _last_mentions(truth)
    stale_before = (last_run or date.fromisoformat(truth["end"])) - timedelta(days=stale_after_days)
    keyed = [*truth["facts"], *truth["decisions"]]
    index = StatementIndex(truth, text)
    now = _stated(index, outputs.current_lines())
    archived = _stated(index, (line.split(" — from ")[0] for line in outputs.archive.splitlines()))
    ever = _stated(index, (seen.entry.current for seen in history.all_entries())) if history else now
    outcomes = []
    for fact in keyed:
        if len(fact["values"]) < 2:
            continue
        distinct = _distinct(value["value"] for value in fact["values"])
        final = fact["final"].lower()
        older = [value for value in distinct if value != final]
        current = now.get(fact["key"], set())
        was = ever.get(fact["key"], set()) | current
        rule = ""
        ended = _absence_end(fact)
        if fact["topic"] in finished and fact["category"] != "relationship":
            rule = f"project {fact['topic']} finished"
        elif ended and ended < (last_run or date.fromisoformat(truth["end"])):
            rule = f"finished: the absence ended {ended}"
        elif fact["key"] in last_mention and last_mention[fact["key"]] < stale_before:
            rule = f"stale: last mentioned {last_mention[fact['key']]}"
        in_archive = archived.get(fact["key"], set())
        outcomes.append(
            KeyOutcome(
                key=fact["key"],
                final=fact["final"],
                final_current=final in current or (bool(rule) and final in in_archive),
                stale_current=[value for value in older if value in current],
                unarchived=[v for v in older if v in was and v not in in_archive],
                never_in_memory=[value for value in older if value not in was],
                final_in_memory=final in current,
                left_by_rule=rule if final not in current and final in in_archive else "",
            )
        )
    return outcomes


def _absence_end(fact: KeyedTruth) -> date | None:
    """The last day of a leave ("person.wei.ooo.2026-11-25" lasting "10 days" ends 2026-12-04)."""
    start = _ABSENCE_KEY.fullmatch(fact["key"])
    length = _DAYS.fullmatch(fact["final"])
    if not start or not length:
        return None
    return date.fromisoformat(start.group(1)) + timedelta(days=int(length.group(1)) - 1)


def _last_mentions(truth: GroundTruth) -> dict[str, date]:
    """Each fact key's latest note day: the last time any item (kept or a repeat) mentioned it."""
    latest: dict[str, date] = {}
    for item in truth["items"]:
        key = item["fact_key"]
        day = _NOTE_DAY.match(item["file"].rsplit("/", 1)[-1])
        if key and day:
            latest[key] = max(latest.get(key, date.min), date.fromisoformat(day.group(0)))
    return latest


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(value.lower() for value in values))


def contradiction_shares(outcomes: Sequence[KeyOutcome]) -> dict[str, float]:
    total = len(outcomes) or 1
    return {
        "resolved": sum(o.resolved for o in outcomes) / total,
        "final_current": sum(o.final_current for o in outcomes) / total,
        "no_stale_current": sum(not o.stale_current for o in outcomes) / total,
        "archived": sum(not o.unarchived for o in outcomes) / total,
        "final_in_memory": sum(o.final_in_memory for o in outcomes) / total,
    }
