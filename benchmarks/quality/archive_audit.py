"""Were the archive's removals right? A supersede or update should replace an entry with a newer
statement of the same fact, and a "done" should close the action the entry is about."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from .hygiene import ActionIndex
from .retention import StatementIndex
from .textmatch import current_text
from .truthdata import GroundTruth, ItemTruth, TruthText

_RECORD = re.compile(r"^- (?P<entry>.*) — from (?P<section>[^;]+); (?P<reason>.*)$")
_SOURCE = re.compile(r"(memory/[^\s:()]+\.md):(\d+)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ENDING = re.compile(r" \[(?:superseded|done|finished|expired) [^\]]*\]$")  # how it ended, for recall
_ENTRY_DATE = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)\s*$")
_DAY_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2})\s*$")


@dataclass(frozen=True)
class ArchiveRecord:
    day: str
    entry: str
    section: str
    reason: str

    @property
    def kind(self) -> str:
        """The reason without its dates and sources: "superseded by", "stale: no reference since", ..."""
        return _DATE.sub("DATE", _SOURCE.sub("", self.reason)).replace("()", "").strip()

    @property
    def source(self) -> tuple[str, int] | None:
        match = _SOURCE.search(self.reason)
        return (match.group(1), int(match.group(2))) if match else None


def parse_archive(text: str) -> list[ArchiveRecord]:
    records = []
    day = ""
    for line in text.splitlines():
        if heading := _DAY_HEADING.match(line):
            day = heading.group(1)
        elif record := _RECORD.match(line):
            reason = _ENDING.sub("", record["reason"])
            records.append(ArchiveRecord(day, record["entry"], record["section"].strip(), reason))
    return records


@dataclass
class Audit:
    reasons: Counter[str] = field(default_factory=Counter)
    replaced: int = 0
    wrong_replaced: list[tuple[ArchiveRecord, str, str]] = field(default_factory=list)
    closed: int = 0
    wrong_closed: list[tuple[ArchiveRecord, str, str]] = field(default_factory=list)


def audit_archive(archive: str, truth: GroundTruth, text: TruthText) -> Audit:
    """Count removals by reason; among supersedes and updates of an entry that states a keyed fact,
    those whose replacing item states another fact (or none); among "done" removals of an entry about
    a tracked action, those closed by an item about another action."""
    statements = StatementIndex(truth, text)
    actions = ActionIndex(truth["actions"])
    items = _ItemsByLine(truth)
    audit = Audit()
    for record in parse_archive(archive):
        audit.reasons[record.kind] += 1
        source = record.source
        replacing = items.at(*source) if source else None
        body = current_text(_ENTRY_DATE.sub("", record.entry))
        stated = statements.assign(body) if record.kind in ("superseded by", "updated by") else None
        if stated is not None and stated[1] is not None:
            audit.replaced += 1
            other = replacing["fact_key"] if replacing else None
            if other != stated[0]:
                audit.wrong_replaced.append((record, stated[0], other or "no fact"))
        elif record.kind == "done" and (key := actions.assign(body, _day(record))):
            audit.closed += 1
            other = replacing["fact_key"] if replacing else None
            if other != key:
                audit.wrong_closed.append((record, key, other or "no action"))
    return audit


def _day(record: ArchiveRecord) -> date:
    return date.fromisoformat(record.day) if record.day else date.max


class _ItemsByLine:
    def __init__(self, truth: GroundTruth) -> None:
        self.by_file: dict[str, list[ItemTruth]] = {}
        for item in truth["items"]:
            self.by_file.setdefault(item["file"], []).append(item)

    def at(self, file: str, line: int) -> ItemTruth | None:
        return next((i for i in self.by_file.get(file, []) if i["line"] <= line <= i["end_line"]), None)
