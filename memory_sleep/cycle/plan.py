"""The edit plan: what a run changes in MEMORY.md, as data that guards check and one function applies.

A phase asks the engine, turns its decisions into `Edit`s and returns them; it never changes the
document. `DocumentEditor.apply` is the one place edits become changes to a parsed MEMORY.md (the
writer then writes the rendered file), and it refuses an edit that names an entry which does not
exist. Entries are named by stable refs: `E:<key>` for an entry of the document (its text's id when
the editor first saw it, kept through later edits of the same plan), `I:<item id>` for the entry a
note item added in this plan, `P:<name>` for a project's summary under `## Projects`. The cleanup's
edits (`fold`: a weekly summary, `brief`: the morning briefing) name the file they write; the
run's `file_changes` turns them into files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from pydantic import Field, model_validator

from memory_sleep.errors import GuardError
from memory_sleep.models import EntryView, ProjectFields, Strict
from memory_sleep.workspace.archive import ArchiveRecord, Ending
from memory_sleep.workspace.memory_doc import PROJECTS, Entry, MemoryDocument

EditOp = Literal["add", "update", "supersede", "keep", "archive", "summarize", "fold", "brief"]
_FILE_OPS = ("fold", "brief")


class Edit(Strict):
    """One change to MEMORY.md, with why and on what evidence."""

    op: EditOp = Field(
        description="add a new entry; update or supersede an entry's text (the old text is archived); "
        "keep an entry as it is (a note restated it); archive an entry or a project's summary (moved to "
        "memory/archive.md); summarize a project (its four lines); fold notes into a weekly summary; "
        "brief: write the morning briefing"
    )
    entry: str | None = Field(
        default=None, description="the entry it touches: E:<key>, I:<item id>, or P:<project> for a summary"
    )
    item: str | None = Field(default=None, description="the note item that caused it")
    section: str | None = Field(default=None, description="the section an added entry goes to")
    topic: str | None = None
    text: str | None = Field(
        default=None,
        description="the entry's new text (add, update, supersede); for archive, the text archived",
    )
    day: date | None = Field(default=None, description="the day the change became true (its note's day)")
    reason: str = ""
    evidence: str | None = Field(default=None, description="the note and line it rests on")
    retires: str | None = Field(
        default=None,
        description="an archived entry (as archive.md shows it) that this edit supersedes: the archive "
        "records it superseded so that it is never offered again",
    )
    retires_section: str | None = None
    ends: Literal["done", "finished", "expired", "superseded"] | None = Field(
        default=None,
        description="for archive: the entry stopped being true (an action done, business finished, a "
        "date passed), not merely moved out for room or disuse",
    )
    fields: ProjectFields | None = Field(default=None, description="a project's four lines (summarize)")
    path: str | None = Field(default=None, description="the file a fold or brief writes, whole (text)")
    sources: list[str] | None = Field(default=None, description="the notes a fold folds")

    @model_validator(mode="after")
    def _shape(self) -> Edit:
        if (self.op in _FILE_OPS) != (self.path is not None) or (self.op in _FILE_OPS and self.text is None):
            raise ValueError("fold and brief, and only they, name the path of the file they write, whole")
        if (self.op == "summarize") != (self.fields is not None):
            raise ValueError("summarize, and only it, carries a project's fields")
        if (self.op == "fold") != (self.sources is not None):
            raise ValueError("fold, and only it, names the notes it folds")
        return self

    def describe(self) -> str:
        """One line for a dry run: the operation, what it touches and why."""
        why = f" ({self.reason})" if self.reason else ""
        if self.path is not None:
            what = ", ".join(self.sources) if self.sources else f"{len((self.text or '').encode()):,} bytes"
            return f"{self.op} {self.path}: {what}{why}"
        target = f" {self.entry}" if self.entry and self.op not in ("add", "archive") else ""
        if self.fields is not None:
            fields = self.fields
            return (
                f"{self.op}{target}: Status: {fields.status}; Contacts: {fields.contacts}; "
                f"Last event: {fields.last_event}; Next: {fields.next}{why}"
            )
        text = f": {self.text}" if self.text else ""
        where = f" [{self.evidence}]" if self.evidence else ""
        return f"{self.op}{target}{text}{why}{where}"


@dataclass
class Applied:
    """What applying a plan did besides editing the document."""

    archived: list[ArchiveRecord] = field(default_factory=list)
    touched: list[tuple[Entry, date]] = field(default_factory=list)  # entries a note used, and when


class DocumentEditor:
    """Applies edits to one parsed MEMORY.md, resolving refs stably across the edits it applies."""

    def __init__(
        self, document: MemoryDocument, today: date, replaced: Mapping[date, tuple[str, ...]] | None = None
    ) -> None:
        self.document = document
        self.today = today
        self.replaced = replaced or {}  # what each day's note superseded (archive.superseded_by_day)
        self._refs: dict[str, tuple[str, Entry]] = {}
        self._ref_of: dict[int, str] = {}
        for section, entry in document.entries():
            self._register(section.title, entry)

    def _register(self, section: str, entry: Entry, ref: str | None = None) -> str:
        if ref is None:
            ref, number = f"E:{entry.key}", 1
            while ref in self._refs:
                number += 1
                ref = f"E:{entry.key}#{number}"
        self._refs[ref] = (section, entry)
        self._ref_of.setdefault(id(entry), ref)
        return ref

    def replaced_on(self, day: date | None) -> tuple[str, ...]:
        """What a line of `day`'s note superseded: what an entry of that day may be the new value of."""
        return self.replaced.get(day, ()) if day else ()

    def entries(self) -> Iterable[tuple[str, str, Entry]]:
        """(ref, section, entry) of every entry now in the document, in document order."""
        for section, entry in self.document.entries():
            ref = self._ref_of.get(id(entry)) or self._register(section.title, entry)
            yield ref, section.title, entry

    def views(self) -> list[tuple[str, EntryView]]:
        """Every entry as an engine is shown it, under a ref valid for one call (E1, E2, ...), each
        with its plan ref."""
        return [
            (
                ref,
                EntryView(
                    ref=f"E{number}",
                    section=section,
                    topic=entry.topic,
                    text=entry.text,
                    day=entry.day,
                    replaced=self.replaced_on(entry.day),
                ),
            )
            for number, (ref, section, entry) in enumerate(self.entries(), start=1)
        ]

    def archive(
        self,
        entry: Entry,
        reason: str,
        evidence: str | None = None,
        ends: Literal["done", "finished", "expired", "superseded"] | None = None,
    ) -> Edit:
        """An edit that moves `entry` of the document to the archive (`ends`: it stopped being true)."""
        ref = self._ref_of.get(id(entry)) or next(ref for ref, _, known in self.entries() if known is entry)
        return Edit(op="archive", entry=ref, text=entry.text, reason=reason, evidence=evidence, ends=ends)

    def resolve(self, ref: str) -> tuple[str, Entry]:
        """The section and entry a ref names; GuardError if it names none (or one archived since)."""
        found = self._refs.get(ref)
        if found is None:
            raise GuardError(
                f"Refused: the plan names entry {ref}, which is not in MEMORY.md. Nothing was changed."
            )
        return found

    def apply(self, edits: Sequence[Edit]) -> Applied:
        applied = Applied()
        for edit in edits:
            self._apply_one(edit, applied)
        return applied

    def _apply_one(self, edit: Edit, applied: Applied) -> None:
        if edit.op in _FILE_OPS:
            return  # a file of its own, written by the run's file_changes
        if edit.entry is not None and edit.entry.startswith("P:"):
            self._apply_to_project(edit, edit.entry.removeprefix("P:"), applied)
            return
        day = edit.day or self.today
        if edit.op == "add":
            if not (edit.text and edit.text.strip() and edit.section and edit.item):
                raise GuardError(f"Refused: an add without text, section or item ({edit.describe()}).")
            entry = Entry(text=" ".join(edit.text.split()), topic=edit.topic, day=edit.day)
            self.document.add_entry(edit.section, entry)
            self._register(edit.section, entry, f"I:{edit.item}")
            applied.touched.append((entry, day))
            return
        if edit.entry is None:
            raise GuardError(f"Refused: {edit.op} names no entry ({edit.describe()}).")
        section, entry = self.resolve(edit.entry)
        if edit.op == "keep":
            applied.touched.append((entry, day))
            return
        if edit.op == "archive":
            ended = Ending(edit.ends, day, edit.evidence) if edit.ends else None
            applied.archived.append(ArchiveRecord(self.today, section, entry.display(), edit.reason, ended))
            self.document.remove_entry(entry)
            del self._refs[edit.entry]  # the editor is the only one that removes entries
            self._ref_of.pop(id(entry), None)
            return
        if not (edit.text and edit.text.strip()):
            raise GuardError(f"Refused: {edit.op} of {edit.entry} with empty text. Nothing was changed.")
        superseded = Ending("superseded", day, edit.evidence)
        if edit.retires is not None:
            applied.archived.append(
                ArchiveRecord(
                    self.today, edit.retires_section or section, edit.retires, edit.reason, superseded
                )
            )
        else:
            applied.archived.append(
                ArchiveRecord(self.today, section, entry.display(), edit.reason, superseded)
            )
        entry.text, entry.raw = " ".join(edit.text.split()), None
        if edit.retires is not None:
            return  # the entry was added by this plan: its day and topic are the note's already
        entry.day = max(day, entry.day or day)
        if entry.topic is None:
            entry.topic = edit.topic
        applied.touched.append((entry, day))

    def _apply_to_project(self, edit: Edit, name: str, applied: Applied) -> None:
        if edit.op == "summarize" and edit.fields is not None:
            if not (edit.fields.status.strip() and edit.fields.last_event.strip()):
                raise GuardError(
                    f"Refused: a summary of {name} without status or last event. Nothing was changed."
                )
            self.document.project(name).set_fields(edit.fields, self.document.newline)
            return
        if edit.op != "archive" or name not in self.document.projects():
            raise GuardError(
                f"Refused: the plan names project {name} for {edit.op}, which MEMORY.md cannot do. "
                "Nothing was changed."
            )
        block = self.document.remove_project(name)
        ended = Ending(edit.ends, edit.day or self.today, edit.evidence) if edit.ends else None
        entry = f"### {name}: {project_lines(block.lines)}"
        applied.archived.append(ArchiveRecord(self.today, PROJECTS, entry, edit.reason, ended))


def project_lines(lines: Sequence[str]) -> str:
    """A project's summary block as one line, for the archive."""
    return "; ".join(line.strip().lstrip("-* ") for line in lines if line.strip())
