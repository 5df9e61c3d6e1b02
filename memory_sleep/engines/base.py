"""The decisions an engine makes, as Protocols; the phases call these and validate the answers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, Protocol

from memory_sleep.engines.pairs import Pair
from memory_sleep.engines.recurrence import Recurrence
from memory_sleep.models import (
    Briefing,
    Classification,
    Closure,
    EntryJudgement,
    EntryView,
    KeptItem,
    NoteItem,
    Operation,
    ProjectFields,
    WeeklySummary,
)


@dataclass(frozen=True)
class ClassifyContext:
    """What a classifier may look at besides the items: known projects and current memory."""

    projects: Sequence[str]
    memory: Sequence[EntryView]
    recurrence: Recurrence = field(default_factory=Recurrence)  # line shapes of recent days
    cards: frozenset[str] = frozenset()  # ids of items that are fields of a card (engines/cards.py)
    openers: frozenset[str] = frozenset()  # ids of paragraphs that open a section (engines/cards.py)
    pairs: Mapping[str, Pair] = field(default_factory=dict)  # before/now lines by id (engines/pairs.py)
    # ids of items of a saved chat session (engines/dialogue.py)
    conversation: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ProjectContext:
    """One project's current summary and what happened to it in this run."""

    name: str
    current: ProjectFields | None
    events: Sequence[KeptItem]
    open_actions: Sequence[EntryView]
    today: date


@dataclass(frozen=True)
class ActionView:
    """An open action item with its deadline and the day it was written, as the briefing sees it."""

    text: str
    topic: str | None
    deadline: date | None
    day: date | None = None


def by_urgency(actions: Sequence[ActionView], today: date) -> list[ActionView]:
    """Soonest deadline first (overdue ones first of all), then the undated ones newest first; ties
    keep the document's order. A list of 80 open actions is never cut by alphabetical order."""
    return sorted(
        actions,
        key=lambda a: (a.deadline is None, a.deadline or today, -(a.day or date.min).toordinal()),
    )


@dataclass(frozen=True)
class BriefingContext:
    """Everything the morning briefing is written from."""

    today: date
    open_actions: Sequence[ActionView]
    projects: dict[str, ProjectFields]
    recent: Sequence[KeptItem]


class Classifier(Protocol):
    def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
        """One Classification per item (NREM)."""
        ...


class Integrator(Protocol):
    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        """One Operation per kept item against the entries shown (REM)."""
        ...


class Closer(Protocol):
    def close(
        self, completions: Sequence[KeptItem], actions: Sequence[EntryView], projects: Sequence[str]
    ) -> list[Closure]:
        """For the notes that report an action done: which of the open `actions` each one closes
        (at most one closure per note and per action; a note that closes none gets none)."""
        ...


class Curator(Protocol):
    def judge(self, entries: Sequence[EntryView], today: date) -> list[EntryJudgement]:
        """A judgement for each entry that is finished business, of little lasting worth, or a fact
        that keeps changing (entries it finds none of these are left out)."""
        ...

    def referenced(
        self,
        entries: Sequence[EntryView],
        repeats: Sequence[NoteItem],
        kept: Sequence[NoteItem],
        projects: Sequence[str],
    ) -> list[tuple[str, date]]:
        """The entries (by ref) that notes still use, each with the day of the note: those a repeat (an
        item dropped as already in memory) restates, and People entries whose person a kept item names
        (`projects` are names of projects, not of people). The stale rule spares them."""
        ...

    def finished(self, projects: Mapping[str, ProjectFields]) -> list[str]:
        """The projects (by name) whose summary says they are finished: completed or cancelled."""
        ...

    def readings(self, kept: Sequence[KeptItem], recurrence: Recurrence) -> list[Classification]:
        """The kept items that later notes (`recurrence`: the shapes of recent days) show to be readings
        of a series, each judged again: DISCARD routine, with the day the series showed in its reason."""
        ...


class Summarizer(Protocol):
    def summarize_project(self, context: ProjectContext) -> ProjectFields:
        """The four lines of a project's summary."""
        ...

    def summarize_week(self, week: str, items: Sequence[KeptItem], discarded: int) -> WeeklySummary:
        """What a week of notes comes to."""
        ...


@dataclass(frozen=True)
class RatedEntry:
    """An entry as the importance rating sees it: its id, text, category (or the reason the run
    discarded it as noise), where it lives (memory, note, weekly, archive) and on how many days the
    same statement was written."""

    id: int
    text: str
    category: str | None
    kind: str
    day: date | None
    days_written: int = 1


class Rater(Protocol):
    def rate(self, entries: Sequence[RatedEntry]) -> dict[int, float]:
        """Each entry's future usefulness in [0, 1], by id (GC, importance)."""
        ...


def _offline_rater() -> Rater:
    from memory_sleep.engines.offline.importance import OfflineRater  # the offline engine imports this module

    return OfflineRater()


class Briefer(Protocol):
    def brief(self, context: BriefingContext) -> Briefing:
        """The morning briefing's parts."""
        ...


PairVerdict = Literal["supersedes", "same_subject_different_fact", "unrelated", "uncertain"]


@dataclass(frozen=True)
class PairJudgement:
    """Whether a newer entry ends an older one: `supersedes` only when both state the same attribute of
    the same subject and the newer one states it otherwise; `uncertain` is listed for a person."""

    verdict: PairVerdict
    reason: str


class Gardener(Protocol):
    """The meaning behind garbage collection: what alike entries say as one, what ends what, and what
    an archive comes to. Every statement keeps each original's numbers, dates, names, handles and
    open actions."""

    def merge(self, clusters: Sequence[Sequence[EntryView]]) -> list[str | None]:
        """For each cluster of alike entries, one statement saying all of it, or None when they do not
        say one thing (two values of one attribute, two different tasks)."""
        ...

    def judge(self, pairs: Sequence[tuple[EntryView, EntryView]]) -> list[PairJudgement]:
        """For each (newer, older) pair, whether the newer supersedes the older."""
        ...

    def summarize(self, entries: Sequence[EntryView]) -> str:
        """One entry that says what the archived `entries` come to (the Letta approach)."""
        ...


@dataclass
class Usage:
    """LLM calls (every request sent) and tokens spent by an engine during one run."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    warnings: list[str] = field(default_factory=list)
    phases: dict[str, PhaseUsage] = field(default_factory=dict)
    prompt_versions: dict[str, str] = field(
        default_factory=dict, metadata={"doc": "template -> the version string it declares"}
    )
    estimated_cost_usd: float | None = field(
        default=None, metadata={"doc": "None when the model has no price in the table"}
    )

    def sent(self, phase: str, requests: int) -> None:
        """Count requests sent to the provider under `phase`, failed and retried ones included."""
        self.phases.setdefault(phase, PhaseUsage()).calls += requests
        self.calls += requests

    def record(
        self, phase: str, input_tokens: int, output_tokens: int, cost_usd: float | None, cached: bool = False
    ) -> None:
        """Count one answer's tokens and cost (or a cache hit that cost nothing) under `phase`."""
        spent = self.phases.setdefault(phase, PhaseUsage())
        if cached:
            spent.cache_hits += 1
            return
        spent.input_tokens += input_tokens
        spent.output_tokens += output_tokens
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if cost_usd is not None:
            spent.estimated_cost_usd = round((spent.estimated_cost_usd or 0.0) + cost_usd, 6)
            self.estimated_cost_usd = round((self.estimated_cost_usd or 0.0) + cost_usd, 6)


@dataclass
class PhaseUsage:
    """One phase's share of a run's LLM usage: `batches` put to the model, of which `repaired` were
    accepted only after a problem was sent back and `fallbacks` were decided offline instead."""

    batches: int = 0
    repaired: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hits: int = 0
    fallbacks: int = 0
    estimated_cost_usd: float | None = None


class DecisionGate(Protocol):
    """An engine whose decisions may still be waiting (the host agent's): the runner applies nothing then."""

    def waiting(self) -> list[str]:
        """The ids of the requests this run asked and got no usable answer for."""
        ...

    def settled(self) -> None:
        """The run's plan was written: the answers it used are spent."""
        ...


@dataclass
class Engine:
    """A named set of the decision makers; the offline engine fills them all without a model."""

    name: str
    model: str | None
    classifier: Classifier
    integrator: Integrator
    closer: Closer
    curator: Curator
    summarizer: Summarizer
    briefer: Briefer
    gardener: Gardener
    usage: Usage = field(default_factory=Usage)
    integrate_batch_size: int | None = field(
        default=None, metadata={"doc": "items per REM call; None means the config's batch_size"}
    )
    gate: DecisionGate | None = None
    rater: Rater = field(default_factory=_offline_rater)
