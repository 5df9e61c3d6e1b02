"""REM's per-project summaries (one `### Name` block under `## Projects`, four lines each), as edits:
summarize what the engine wrote from the new items, archive a project finished long ago."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from memory_sleep.cycle.plan import Edit, project_lines
from memory_sleep.engines.base import ProjectContext, Summarizer
from memory_sleep.models import EntryView, KeptItem, ProjectFields
from memory_sleep.text import counted
from memory_sleep.workspace.memory_doc import MemoryDocument


@dataclass
class Summaries:
    """The project summaries a run rewrites, and the summaries the engine got wrong."""

    edits: list[Edit] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def current_fields(document: MemoryDocument) -> dict[str, ProjectFields]:
    """Each project's four lines as they stand ("—" where a line is missing)."""
    result = {}
    for name, block in document.projects().items():
        found = block.fields()
        result[name] = ProjectFields(
            status=found.get("Status", "—"),
            contacts=found.get("Contacts", "—"),
            last_event=found.get("Last event", "—"),
            next=found.get("Next", "—"),
        )
    return result


def summarize_projects(
    document: MemoryDocument, kept: Sequence[KeptItem], summarizer: Summarizer, today: date
) -> Summaries:
    """A `summarize` edit for each project the kept items are about whose four lines the engine's
    summary changes."""
    result = Summaries()
    events: dict[str, list[KeptItem]] = defaultdict(list)
    for item in kept:
        if item.topic:
            events[item.topic].append(item)
    existing = current_fields(document)
    blocks = document.projects()
    for name in sorted(events):
        open_actions = [
            EntryView(ref=f"A{n}", section=s.title, topic=e.topic, text=e.text, day=e.day)
            for n, (s, e) in enumerate(document.entries())
            if s.title == "Action items" and e.topic == name
        ]
        fields = summarizer.summarize_project(
            ProjectContext(
                name=name,
                current=existing.get(name),
                events=events[name],
                open_actions=open_actions,
                today=today,
            )
        )
        if not fields.status.strip() or not fields.last_event.strip():
            result.rejected.append(f"summary of project {name}: empty status or last event; kept the old one")
            continue
        block = blocks.get(name)
        if block is None or replace(block, lines=list(block.lines)).set_fields(fields, document.newline):
            result.edits.append(
                Edit(
                    op="summarize",
                    entry=f"P:{name}",
                    fields=fields,
                    reason=f"{counted(len(events[name]), 'new item')}",
                )
            )
    return result


def finished_projects(
    document: MemoryDocument,
    finished: Collection[str],
    active: Collection[str],
    horizon: date,
) -> list[Edit]:
    """An `archive` edit for each project the engine found `finished` with no event since `horizon`
    (none of the `active` ones, which this run's notes are about)."""
    edits = []
    for name, fields in current_fields(document).items():
        if name not in finished:
            continue
        last = _last_date(fields.last_event)
        if last is not None and last < horizon and name not in active:
            edits.append(
                Edit(
                    op="archive",
                    entry=f"P:{name}",
                    text=f"### {name}: {project_lines(document.projects()[name].lines)}",
                    reason=f"project finished, nothing since {last.isoformat()}",
                    day=last,
                    ends="finished",
                )
            )
    return edits


def _last_date(text: str) -> date | None:
    if text.endswith(")") and len(text) >= 12:
        try:
            return date.fromisoformat(text[-11:-1])
        except ValueError:
            return None
    return None
