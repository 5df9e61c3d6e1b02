"""The ground-truth model written to ground-truth.json, and its assembly from a run."""

from __future__ import annotations

from datetime import date
from typing import TypedDict

from .briefing import PastedBriefing
from .render import Doc
from .spec import DISCARD, ItemSpec
from .storyline import Storyline
from .world import World


class Location(TypedDict):
    file: str
    line: int


class DatedLocation(TypedDict):
    file: str
    line: int
    date: str


class ProjectTruth(TypedDict):
    name: str
    finished_on: str | None
    finish_kind: str | None


class PersonTruth(TypedDict):
    name: str
    role: str
    org: str | None
    projects: list[str]


class ItemTruth(TypedDict):
    file: str
    line: int
    end_line: int
    verdict: str
    category: str
    topic: str | None
    text: str
    fact_key: str | None


class ValueTruth(TypedDict):
    value: str
    date: str
    file: str
    line: int


class KeyedTruth(TypedDict):
    key: str
    category: str
    topic: str | None
    values: list[ValueTruth]
    final: str


class ActionTruth(TypedDict):
    key: str
    text: str
    topic: str | None
    deadline: str
    opened: DatedLocation
    closed: DatedLocation | None


class SecretTruth(TypedDict):
    kind: str
    value: str
    file: str
    line: int


class BriefingTruth(TypedDict):
    file: str
    lines: list[int]
    phrases: list[str]


class RepeatedTruth(TypedDict):
    key: str
    occurrences: list[DatedLocation]


class GroundTruth(TypedDict):
    seed: int
    days: int
    start: str
    end: str
    note_kb: float
    skipped_days: list[str]
    files: list[str]
    memory_md_handwritten: bool
    projects: list[ProjectTruth]
    people: list[PersonTruth]
    items: list[ItemTruth]
    facts: list[KeyedTruth]
    decisions: list[KeyedTruth]
    actions: list[ActionTruth]
    secrets: list[SecretTruth]
    pasted_briefing: BriefingTruth | None
    repeated: list[RepeatedTruth]


def file_date(path: str) -> str:
    return path.split("/")[-1][:10]


def where(spec: ItemSpec) -> DatedLocation:
    assert spec.file is not None and spec.line is not None, f"item never placed: {spec.body!r}"
    return {"file": spec.file, "line": spec.line, "date": file_date(spec.file)}


def item_truth(spec: ItemSpec) -> ItemTruth:
    assert spec.file is not None and spec.line is not None
    return {
        "file": spec.file,
        "line": spec.line,
        "end_line": spec.line + len(spec.lines) - 1,
        "verdict": spec.verdict,
        "category": spec.category,
        "topic": spec.topic,
        "text": spec.lines[0],
        "fact_key": spec.fact_key,
    }


def secret_line(spec: ItemSpec, value: str) -> int:
    first = value.split("\n", 1)[0]
    for offset, line in enumerate(spec.lines):
        if first in line:
            assert spec.line is not None
            return spec.line + offset
    raise AssertionError(f"secret not in its item: {spec.lines[0]!r}")


def keyed(storyline: Storyline, categories: tuple[str, ...]) -> list[KeyedTruth]:
    result: list[KeyedTruth] = []
    for track in storyline.tracks.values():
        if track.family.category not in categories:
            continue
        values: list[ValueTruth] = []
        for statement in track.statements:
            location = where(statement.spec)
            values.append(
                {
                    "value": statement.value,
                    "date": location["date"],
                    "file": location["file"],
                    "line": location["line"],
                }
            )
        result.append(
            {
                "key": track.key,
                "category": track.family.category,
                "topic": track.topic,
                "values": values,
                "final": track.current,
            }
        )
    return result


def repeated(items: list[ItemSpec]) -> list[RepeatedTruth]:
    groups: dict[str, list[ItemSpec]] = {}
    for spec in items:
        if spec.fact_key is not None:
            groups.setdefault(spec.fact_key, []).append(spec)
    return [
        {"key": key, "occurrences": [where(spec) for spec in specs]}
        for key, specs in groups.items()
        if len(specs) > 1 and any(s.verdict == DISCARD and s.category == "duplicate" for s in specs)
    ]


def assemble(
    *,
    seed: int,
    all_days: list[date],
    skipped: list[date],
    note_kb: float,
    handwritten: bool,
    world: World,
    storyline: Storyline,
    docs: list[Doc],
    briefing: PastedBriefing | None,
) -> GroundTruth:
    items = [spec for doc in docs for spec in doc.items]
    actions: list[ActionTruth] = [
        {
            "key": action.key,
            "text": action.what,
            "topic": action.topic,
            "deadline": action.deadline.isoformat(),
            "opened": where(action.opened),
            "closed": where(action.closed) if action.closed is not None else None,
        }
        for action in storyline.actions
    ]
    secrets: list[SecretTruth] = [
        {"kind": kind, "value": value, "file": spec.file or "", "line": secret_line(spec, value)}
        for kind, value, spec in storyline.secrets
    ]
    return {
        "seed": seed,
        "days": len(all_days),
        "start": all_days[0].isoformat(),
        "end": all_days[-1].isoformat(),
        "note_kb": note_kb,
        "skipped_days": [day.isoformat() for day in skipped],
        "files": [doc.path for doc in docs],
        "memory_md_handwritten": handwritten,
        "projects": [
            {
                "name": p.name,
                "finished_on": p.finished_on.isoformat() if p.finished_on else None,
                "finish_kind": p.finish_kind,
            }
            for p in world.projects
        ],
        "people": [
            {"name": person.name, "role": person.role, "org": person.org, "projects": list(person.projects)}
            for person in world.people + world.contacts
        ],
        "items": [item_truth(spec) for spec in items],
        "facts": keyed(storyline, ("fact", "relationship")),
        "decisions": keyed(storyline, ("decision",)),
        "actions": actions,
        "secrets": secrets,
        "pasted_briefing": (
            {"file": briefing.file, "lines": [briefing.first, briefing.last], "phrases": briefing.phrases}
            if briefing is not None
            else None
        ),
        "repeated": repeated(items),
    }
