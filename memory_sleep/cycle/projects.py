"""REM's per-project summaries: one `### Name` block under `## Projects` with four lines each."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from memory_sleep.engines.base import ProjectContext, Summarizer
from memory_sleep.models import EntryView, KeptItem, ProjectFields
from memory_sleep.workspace.archive import ArchiveRecord, Ending
from memory_sleep.workspace.memory_doc import PROJECTS, MemoryDocument

FINISHED_PREFIXES = ("completed", "cancelled")


@dataclass
class ProjectsResult:
    updated: list[str] = field(default_factory=list)
    finished: set[str] = field(default_factory=set)
    archived: list[ArchiveRecord] = field(default_factory=list)
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


def update_projects(
    document: MemoryDocument,
    kept: Sequence[KeptItem],
    summarizer: Summarizer,
    today: date,
    stale_after_days: int,
) -> ProjectsResult:
    result = ProjectsResult()
    events: dict[str, list[KeptItem]] = defaultdict(list)
    for item in kept:
        if item.topic:
            events[item.topic].append(item)
    existing = current_fields(document)
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
        if document.project(name).set_fields(fields, document.newline):
            result.updated.append(name)
    horizon = today - timedelta(days=stale_after_days)
    for name, fields in current_fields(document).items():
        if not fields.status.lower().startswith(FINISHED_PREFIXES):
            continue
        result.finished.add(name)
        last = _last_date(fields.last_event)
        if last is not None and last < horizon and name not in events:
            block = document.remove_project(name)
            lines = "; ".join(line.strip().lstrip("-* ") for line in block.lines if line.strip())
            result.archived.append(
                ArchiveRecord(
                    day=today,
                    section=PROJECTS,
                    entry=f"### {name}: {lines}",
                    reason=f"project finished, nothing since {last.isoformat()}",
                    ended=Ending("finished", last),
                )
            )
    return result


def _last_date(text: str) -> date | None:
    if text.endswith(")") and len(text) >= 12:
        try:
            return date.fromisoformat(text[-11:-1])
        except ValueError:
            return None
    return None
