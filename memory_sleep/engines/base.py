"""The four decisions an engine makes, as Protocols; the phases call these and validate the answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from ..models import (
    Briefing,
    Classification,
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
    """An open action item with its deadline, as the briefing sees it."""

    text: str
    topic: str | None
    deadline: date | None


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


class Summarizer(Protocol):
    def summarize_project(self, context: ProjectContext) -> ProjectFields:
        """The four lines of a project's summary."""
        ...

    def summarize_week(self, week: str, items: Sequence[KeptItem], discarded: int) -> WeeklySummary:
        """What a week of notes comes to."""
        ...


class Briefer(Protocol):
    def brief(self, context: BriefingContext) -> Briefing:
        """The morning briefing's parts."""
        ...


@dataclass
class Usage:
    """LLM calls and tokens spent by an engine during one run."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class Engine:
    """A named set of the four decision makers; the offline engine fills all four without a model."""

    name: str
    model: str | None
    classifier: Classifier
    integrator: Integrator
    summarizer: Summarizer
    briefer: Briefer
    usage: Usage = field(default_factory=Usage)
    integrate_batch_size: int | None = field(
        default=None, metadata={"doc": "items per REM call; None means the config's batch_size"}
    )
