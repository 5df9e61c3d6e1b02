"""What the sidecar indexes: MEMORY.md entries and project summaries, weekly-summary items, daily-note items,
and the entries archive.md keeps (each as it read before it left MEMORY.md).

Daily-note items that NREM discarded as noise (heartbeats, routine readings, debug output) are indexed
once per shape (digits masked): a day of heartbeats made the sidecar 26 to 63 times the size of its
note. A shape seen at most RARE_NOISE times in a note ("heartbeat failed: gateway timeout") is
indexed every time, so it stays findable with `--include-discarded` (README, "Vector sidecar");
heartbeats and routine readings are marked so that recall leaves them out by default.

Each file is a source with a stable key (a daily note keeps its key when it moves to the archive
folder); each source yields items with their lines, the context that places them (section,
headings, topic) and the day they speak for.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from memory_sleep.engines.redact import redact_at
from memory_sleep.models import NoteItem
from memory_sleep.sidecar.rows import CONTEXT_JOIN
from memory_sleep.text import DATE, clean
from memory_sleep.workspace.archive import ArchiveRecord, displayed_entry, records_since, stated_day
from memory_sleep.workspace.layout import DAILY_NOTE_NAME, NoteFile, Workspace, discover
from memory_sleep.workspace.memory_doc import (
    PROJECTS,
    Entry,
    MemoryDocument,
    ProjectBlock,
    RawBlock,
)
from memory_sleep.workspace.notes import lead_in, note_item_stream, parse_note_text
from memory_sleep.workspace.state import StateStore

IMPORTANCE = {"memory": 0.8, "project": 0.8, "weekly": 0.5, "note": 0.3, "archive": 0.3}
NOISE = frozenset({"heartbeat", "routine", "debug"})
# recurring chatter stays out of recall unless asked for; pasted debug output (a one-off error, a stack
# trace) is often exactly what an agent searches for, so it stays in
OUT_OF_RECALL = frozenset({"heartbeat", "routine"})
Noise = dict[str, str]  # item id: why the run discarded it
RARE_NOISE = 3
LABEL_WORDS = 4  # a lead-in of at most this many words and no number is a bare label
_DIGITS = re.compile(r"\d+")
_WEEKLY_SKIP = {"Source notes"}


@dataclass(frozen=True)
class SourceFile:
    key: str
    path: Path
    relative: str
    kind: str
    day: date | None = None


@dataclass(frozen=True)
class SourceItem:
    kind: str
    line_start: int
    line_end: int
    context: str
    text: str
    day: date | None
    scope: str | None = None
    expires: date | None = None
    discarded: bool = False

    @functools.cached_property
    def embed_text(self) -> str:
        """What is embedded and searched: the context that places the item, then its text."""
        return f"{self.context}: {self.text}" if self.context else self.text

    @functools.cached_property
    def content_hash(self) -> str:
        return hashlib.sha256(clean(self.embed_text).encode("utf-8")).hexdigest()[:24]


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:24]


def source_files(workspace: Workspace) -> list[SourceFile]:
    """Every file the sidecar indexes, MEMORY.md first."""
    found = []
    if workspace.memory_md.is_file():
        found.append(SourceFile("MEMORY.md", workspace.memory_md, "MEMORY.md", "memory"))
    if workspace.weekly_dir.is_dir():
        for path in sorted(workspace.weekly_dir.glob("*-W*.md")):
            week = path.stem
            try:
                monday = date.fromisocalendar(int(week[:4]), int(week.split("-W")[1]), 1)
            except ValueError:
                continue
            found.append(SourceFile(f"weekly:{path.name}", path, workspace.relative(path), "weekly", monday))
    if workspace.archive.is_file():
        found.append(
            SourceFile("archive.md", workspace.archive, workspace.relative(workspace.archive), "archive")
        )
    notes = {note.name: note for note in discover(workspace).notes}
    if workspace.daily_archive_dir.is_dir():
        for path in sorted(workspace.daily_archive_dir.glob("*.md")):
            match = DAILY_NOTE_NAME.match(path.name)
            if match and path.name not in notes and path.is_file():
                try:
                    day = date(*(int(part) for part in match.groups()[:3]))
                except ValueError:
                    continue
                notes[path.name] = NoteFile(path=path, name=path.name, day=day, topic=match.group(4))
    for name, note in sorted(notes.items()):
        found.append(SourceFile(f"note:{name}", note.path, workspace.relative(note.path), "note", note.day))
    return found


def noise_ids(workspace: Workspace, source: SourceFile) -> Noise:
    """The daily-note items the last run discarded as noise, with the reason; none before a run has
    read the note."""
    if source.kind != "note":
        return {}
    state = StateStore(workspace.state_dir).load_note(source.path.name)
    if state is None:
        return {}
    return {
        item_id: record.discard_reason
        for item_id, record in state.items.items()
        if record.discard_reason in NOISE
    }


def read_items(source: SourceFile, text: str, noise: Noise | None = None) -> list[SourceItem]:
    """The items of one source (of those in `noise`, the first of each frequent shape), secrets redacted,
    without repeats (the first of identical items stands for all)."""
    if source.kind in ("memory", "archive"):
        items = memory_items(text) if source.kind == "memory" else archive_items(text)
    else:
        items = note_items(source, text, noise or {})
    return list(unique_items(source, items, {}).values())


def unique_items(
    source: SourceFile, items: Iterable[SourceItem], unique: dict[str, SourceItem]
) -> dict[str, SourceItem]:
    """`unique` (by content hash) with `items` added, secrets redacted, the first of identical items
    standing for all."""
    for item in items:
        # secrets never enter the index, nor an embedding request that leaves the machine
        cleaned = redact_at(item.text, source.relative, item.line_start)
        if cleaned != item.text:
            item = dataclasses.replace(item, text=cleaned)
        unique.setdefault(item.content_hash, item)
    return unique


def memory_items(text: str) -> list[SourceItem]:
    """Entries (with their section and topic) and project summaries of MEMORY.md, and what a person
    wrote in it outside the tool's sections (`handwritten_items`), with line numbers."""
    document = MemoryDocument.parse(text)
    items = []
    line = 1 + document.preamble.count("\n")
    intro_end = line
    handwritten: dict[int, tuple[int, str]] = {}  # the sections the tool does not keep, by first line
    for section in document.sections:
        if not section.owned:
            rendered = section.render(document.newline)
            handwritten[line] = (line + rendered.count("\n") + (not rendered.endswith("\n")), section.title)
        line += section.heading_raw.count("\n")
        for block in section.blocks:
            rendered = _block_text(block, document.newline)
            height = max(1, rendered.count("\n") + (0 if rendered.endswith("\n") else 1))
            if section.owned and isinstance(block, Entry):
                context = CONTEXT_JOIN.join(part for part in (section.title, block.topic) if part)
                items.append(SourceItem("memory", line, line + height - 1, context, block.text, block.day))
            elif section.title == PROJECTS and isinstance(block, ProjectBlock):
                fields = block.fields()
                body = "; ".join(f"{name}: {value}" for name, value in fields.items() if value)
                if body:
                    items.append(
                        SourceItem(
                            "project",
                            line,
                            line + height - 1,
                            CONTEXT_JOIN.join((PROJECTS, block.name)),
                            body,
                            None,
                        )
                    )
            line += rendered.count("\n")
    return sorted(
        [*items, *handwritten_items(text, handwritten, intro_end)], key=lambda item: item.line_start
    )


def handwritten_items(text: str, sections: dict[int, tuple[int, str]], intro_end: int) -> list[SourceItem]:
    """The items (bullets, lines, paragraphs, tables: as a note splits them) of MEMORY.md's intro (its
    lines before `intro_end`) and of the sections the tool does not keep (`sections`: each one's first
    line, with the line after it and its title), each in the context of its section and headings and
    dated as its writer dated it (`_written_on`): so that recall finds what a person wrote there, not
    only the tool's entries, and ranks it by its age as it does them."""
    items = []
    memory = NoteFile(path=Path("MEMORY.md"), name="MEMORY.md", day=date.min, topic=None)
    for item in parse_note_text(memory, text).items:
        at = item.line_start
        found = [title for start, (stop, title) in sections.items() if start <= at < stop]
        if not found and at >= intro_end:
            continue  # in a section of the tool's: indexed as its entries
        headings = list(item.headings)
        if found:
            title = found[0]
            headings = headings[headings.index(title) :] if title in headings else [title]
        context = CONTEXT_JOIN.join(dict.fromkeys(part for part in (*headings, item.lead) if part))
        items.append(SourceItem("memory", at, item.line_end, context, item.text, _written_on(item)))
    return items


def _written_on(item: NoteItem) -> date | None:
    """The day a hand-written item states for itself ("... (2026-03-27)", as the tool's entries do),
    else the first full day its nearest heading that names one names ("## Done (2026-03-26 04:48)"):
    the day its writer put on it; None when neither names one."""
    own = stated_day(item.text)
    if own is not None:
        return own
    for heading in reversed(item.headings):
        for match in DATE.finditer(heading):
            if match.group(1):  # a CJK month and day names no year
                try:
                    return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
                except ValueError:
                    continue
    return None


def archive_items(text: str) -> list[SourceItem]:
    """Each entry archive.md keeps, as it read in MEMORY.md, dated as it was there."""
    return record_items(records_since(text, date.min))


def record_items(records: Iterable[ArchiveRecord]) -> list[SourceItem]:
    """The items of archive records: each entry as it read in MEMORY.md, dated as it was there."""
    items = []
    for record in records:
        found = displayed_entry(record.entry.removeprefix("- ").removeprefix("* "))
        if found is not None:
            old = found[1]
            context = CONTEXT_JOIN.join(part for part in ("Archive", record.section, old.topic) if part)
            items.append(SourceItem("archive", record.line, record.line, context, old.text, old.day))
    return items


def _block_text(block: Entry | ProjectBlock | RawBlock, newline: str) -> str:
    if isinstance(block, Entry):
        return block.render(newline)
    return block.render() if isinstance(block, ProjectBlock) else block.raw


def note_items(source: SourceFile, text: str, noise: Noise | None = None) -> list[SourceItem]:
    """Daily-note items (or weekly-summary items) as the NREM phase splits them; of the items in `noise`,
    only the first of each frequent shape."""
    day = source.day or date(1970, 1, 1)
    named = DAILY_NOTE_NAME.match(source.path.name)
    topic = named.group(4) if named and source.kind == "note" else None
    note = NoteFile(path=source.path, name=source.path.name, day=day, topic=topic)
    noise = noise or {}
    front_matter, stream = note_item_stream(note, text)
    try:
        chosen = _chosen(stream, noise)
    except RecursionError:  # nested too deeply to read in chunks: read as much as NREM does
        chosen = _chosen(iter(parse_note_text(note, text).items), noise)
    scope = _text_field(front_matter, "scope")
    expires = _date_field(front_matter, "expires")
    kind = "weekly" if source.kind == "weekly" else "note"
    items = []
    following: list[NoteItem | None] = [*chosen[1:], None] if chosen else []  # a note may have none
    for item, after in zip(chosen, following, strict=True):
        if after is not None and after.line_start == item.line_end + 1 and _bare_label(after.lead, item):
            continue  # a label ("Quokka:"): the items it leads carry it in their context
        headings = list(item.headings)
        if kind == "weekly":
            if headings and headings[0].startswith("Week "):
                headings = headings[1:]
            if _WEEKLY_SKIP.intersection(headings):
                continue
        parts = [item.project_hint, *headings, item.lead]
        context = CONTEXT_JOIN.join(dict.fromkeys(part for part in parts if part))
        own_day = stated_day(item.written) if kind == "weekly" else None
        items.append(
            SourceItem(
                kind,
                item.line_start,
                item.line_end,
                context,
                item.written,
                own_day or source.day,
                scope,
                expires,
                noise.get(item.id) in OUT_OF_RECALL,
            )
        )
    return items


def _bare_label(lead: str | None, item: NoteItem) -> bool:
    """`item` is the lead-in of the item after it (whose `lead` it is) and a bare label: a few words,
    no number ("Quokka:", "Open questions:"), which alone answers nothing. A lead-in that says more
    ("Cutover moved to 2026-12-01, details:") is a result of its own."""
    if lead is None or lead != lead_in(item.written):
        return False
    return len(lead.split()) <= LABEL_WORDS and not _DIGITS.search(lead)


def _chosen(items: Iterator[NoteItem], noise: Noise) -> list[NoteItem]:
    """The items, in order, but of those in `noise` only the first of each shape seen more than
    RARE_NOISE times; read one at a time, so that a note of megabytes of noise is never held whole."""
    shapes: Counter[str] = Counter()
    chosen: list[tuple[int, NoteItem]] = []
    repeats: dict[str, list[tuple[int, NoteItem]]] = {}  # chosen too if their shape stays rare
    for position, item in enumerate(items):
        if item.id in noise:
            shape = _shape(item.written)
            shapes[shape] += 1
            if shapes[shape] > 1:
                if shapes[shape] <= RARE_NOISE:
                    repeats.setdefault(shape, []).append((position, item))
                else:
                    repeats.pop(shape, None)
                continue
        chosen.append((position, item))
    chosen.extend(pair for pairs in repeats.values() for pair in pairs)
    return [item for _, item in sorted(chosen, key=lambda pair: pair[0])]


def _shape(text: str) -> str:
    """A noise line with its numbers, times and ids masked: what its repeats have in common."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _text_field(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value.strip() or None if isinstance(value, str) else None


def _date_field(meta: dict[str, Any], key: str) -> date | None:
    value = meta.get(key)
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None
