"""MEMORY.md as a document: sections, entries and project summaries, rendered back byte for byte.

Only what the tool changes is re-rendered; every other byte (BOM, CRLF, trailing spaces, tables,
hand-written sections) comes back exactly as it was read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from markdown_it import MarkdownIt

from memory_sleep.errors import WorkspaceError
from memory_sleep.text import counted, soft_break
from memory_sleep.workspace.memory_blocks import (
    PROJECT_FIELDS,
    PROJECTS,
    SECTION_FOR,
    TOPIC_TAG,
    Block,
    Entry,
    ProjectBlock,
    RawBlock,
    Section,
    content_end,
    strip_newline,
)

BOM = "\ufeff"
HEADER = "# MEMORY.md\n"
__all__ = [
    "BOM",
    "HEADER",
    "PROJECTS",
    "PROJECT_FIELDS",
    "SECTION_FOR",
    "Entry",
    "MemoryDocument",
    "ProjectBlock",
    "RawBlock",
    "Section",
]
_ALIASES = {
    "decisions": "Decisions",
    "key decisions": "Decisions",
    "facts": "Facts",
    "lessons": "Lessons",
    "lessons learned": "Lessons",
    "action items": "Action items",
    "open action items": "Action items",
    "todo": "Action items",
    "people": "People",
    "contacts": "People",
}
# Only block structure is used. The default maxNesting (20) silently drops the rest of the file after
# ten levels of nested bullets; inline parsing is off because, unbounded, it recurses on "[[[[...".
_MARKDOWN = MarkdownIt("commonmark", options_update={"maxNesting": 100_000}).disable("inline")
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_ITEM_START = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d+[.)])(?P<gap>[ \t]+)(?P<body>.*)$")
# no leading \s*: a search then skips from "(" to "(" instead of trying every position (the
# rstrip after it takes the space before the date, as the \s* did)
_TRAILING_DATE = re.compile(r"\((\d{4})-(\d{2})-(\d{2})\)\s*$")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t\r\n]|$)")
_H2 = re.compile(r"^ {0,3}##[ \t]+\S")
# Where a code fence or HTML block left open at the end of the file ends. It renders as nothing while
# it is the last thing in the file, and as the closing line once the tool adds anything after it:
# otherwise new sections and entries would land inside the block, unseen by readers and by the next parse.
_OPEN_BLOCK_END = "\ue000memory-sleep:end-of-open-block\ue000"
_HTML_BLOCK_ENDS = ("", "-->", "?>", "]]>", ">", "</pre>", "</script>", "</style>", "</textarea>")


def _lines(text: str) -> list[str]:
    """Lines with their endings; only "\\n" ends a line, as for markdown-it once "\\r" is blanked."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class OpenBlock:
    """A code fence or HTML block left open at the end of MEMORY.md: the line it opens on, the line that
    would close it ("" for a blank line), and the `## ` sections it swallows (each reads as code, to
    readers and to runs)."""

    line: int
    closing: str
    fenced: bool
    sections: tuple[str, ...]

    def describe(self) -> str:
        kind = "code block" if self.fenced else "HTML block"
        hidden = counted(len(self.sections), "section")
        reads = "reads" if len(self.sections) == 1 else "read"
        return f"the {kind} opened at line {self.line} is never closed: the {hidden} after it {reads} as code"

    def fix(self) -> str:
        line = f"a line holding only {self.closing}" if self.closing else "a blank line"
        return f'close it: put {line} before "{self.sections[0]}"'

    def closed(self) -> str:
        """What a run that closed it says."""
        kind = "code block" if self.fenced else "HTML block"
        hidden = counted(len(self.sections), "section")
        return (
            f"the {kind} opened at line {self.line} was never closed, so the {hidden} after it read as code:"
            f' this run closed it before "{self.sections[0]}" (`memory-sleep undo` takes that back)'
        )


def with_open_block_closed(text: str) -> tuple[str, OpenBlock | None]:
    """`text` with a code fence or HTML block left open over `## ` sections closed right before the first
    of them, as doctor tells a person to (a stray ``` typed under "## Action items" hid every section
    after it from readers, from the briefing and from runs, which then added their own "## Action items"
    after it), and the block; `text` and None when no block hides a section."""
    block = MemoryDocument.parse(text).open_block
    if block is None:
        return text, None
    lines = _lines(text)
    first = next(number for number in range(block.line, len(lines)) if _H2.match(lines[number]))
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    return "".join([*lines[:first], block.closing + newline, *lines[first:]]), block


@dataclass
class MemoryDocument:
    """MEMORY.md parsed; `render()` of an unchanged document returns the input exactly."""

    preamble: str
    sections: list[Section]
    newline: str = "\n"
    bom: bool = False
    open_block_end: str | None = None
    open_block: OpenBlock | None = None  # the block `open_block_end` closes, when it swallows sections

    @classmethod
    def parse(cls, text: str) -> MemoryDocument:
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        lines = _lines(text)
        newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        try:
            tokens = _MARKDOWN.parse(text.replace("\r\n", "\n").replace("\r", " "))
        except RecursionError:
            raise WorkspaceError(
                "MEMORY.md: lists or quotes nested too deeply to read (hundreds of levels). Nothing was changed; "
                "flatten the nesting."
            ) from None
        h2_starts = [
            t.map[0] for t in tokens if t.type == "heading_open" and t.tag == "h2" and t.level == 0 and t.map
        ]
        first = h2_starts[0] if h2_starts else len(lines)
        sections = []
        bounds = [*h2_starts, len(lines)]
        for start, end in pairwise(bounds):
            sections.append(_parse_section(lines, start, end, tokens))
        document = cls(preamble="".join(lines[:first]), sections=sections, newline=newline, bom=bom)
        document.open_block_end = _open_block_end(text, tokens, lines)
        if document.open_block_end is not None:
            opened = next(t for t in reversed(tokens) if t.level == 0 and t.map)
            start = opened.map[0] if opened.map else 0
            swallowed = tuple(line.strip() for line in lines[start + 1 :] if _H2.match(line))
            if swallowed:
                fenced = opened.type == "fence"
                document.open_block = OpenBlock(start + 1, document.open_block_end, fenced, swallowed)
            marker = _OPEN_BLOCK_END + newline
            if sections:
                sections[-1].blocks.append(RawBlock(marker))
            else:
                document.preamble += marker
        return document

    def render(self) -> str:
        body = self.preamble + "".join(section.render(self.newline) for section in self.sections)
        if self.open_block_end is not None:
            marker = body.find(_OPEN_BLOCK_END)
            after = body[marker + len(_OPEN_BLOCK_END) :].removeprefix(self.newline)
            if not after:
                body = body[:marker]
            else:
                lead = "" if body[:marker].endswith("\n") or marker == 0 else self.newline
                body = body[:marker] + lead + self.open_block_end + self.newline + after
        return (BOM if self.bom else "") + body

    def entries(self) -> Iterator[tuple[Section, Entry]]:
        for section in self.sections:
            if section.owned:
                for entry in section.entries():
                    yield section, entry

    def find_section(self, title: str) -> Section | None:
        return next((s for s in self.sections if s.title == title), None)

    def section(self, title: str) -> Section:
        """The section with this title, created (before `## Projects`) if missing."""
        existing = self.find_section(title)
        if existing is not None:
            return existing
        created = Section(
            title=title, heading_raw=f"## {title}{self.newline}", blocks=[RawBlock(self.newline)]
        )
        projects = self.find_section(PROJECTS)
        position = self.sections.index(projects) if projects and title != PROJECTS else len(self.sections)
        self._ensure_blank_line_before(position)
        self.sections.insert(position, created)
        return created

    def _ensure_blank_line_before(self, position: int) -> None:
        """Leave a blank line between what precedes `position` and a section inserted there."""
        if position == 0:
            if not self.preamble.endswith(self.newline * 2):
                self.preamble = self.preamble.rstrip("\r\n") + self.newline * 2
            return
        previous = self.sections[position - 1]
        rendered = previous.render(self.newline)
        if not rendered.endswith(self.newline * 2):
            previous.blocks.append(
                RawBlock(self.newline if rendered.endswith(self.newline) else self.newline * 2)
            )

    def add_entry(self, title: str, entry: Entry) -> None:
        section = self.section(title)
        entries_at = [i for i, block in enumerate(section.blocks) if isinstance(block, Entry)]
        position = entries_at[-1] + 1 if entries_at else _tail_start(section.blocks)
        if _continues_a_bullet(section.blocks[position:]):
            position = _tail_start(section.blocks)  # right after the new bullet it would continue the bullet
        # the file may end without a newline; the new bullet must start a line of its own
        previous = section.blocks[position - 1] if position > 0 else None
        if previous is None:
            if not section.heading_raw.endswith("\n"):
                section.heading_raw += self.newline
        elif isinstance(previous, Entry | RawBlock) and previous.raw and not previous.raw.endswith("\n"):
            previous.raw += self.newline
        if previous is not None and not isinstance(previous, Entry) and _ends_in_html(previous, self.newline):
            following = section.blocks[position] if position < len(section.blocks) else None
            if not (isinstance(following, RawBlock) and not following.raw.strip()):
                section.blocks.insert(position, RawBlock(self.newline))
            elif not following.raw.endswith("\n"):
                following.raw += self.newline  # a lone "\r" ends no line: the blank line must be one
            position += 1  # after the blank line that ends the HTML block
        section.blocks.insert(position, entry)
        self._end_before_setext_heading(section)

    def _end_before_setext_heading(self, section: Section) -> None:
        """A line underlined as a heading right after a bullet would fold into the bullet: keep a blank between."""
        index = self.sections.index(section)
        following = self.sections[index + 1] if index + 1 < len(self.sections) else None
        if following is None:
            return
        heading = following.heading_raw.lstrip(" \r")
        if len(following.heading_raw) - len(heading) >= _BULLET_TEXT_COLUMN:
            # "  ## Projects" (or "  Notes" over "-----") as far in as a bullet's text would read as the
            # bullet's next paragraph; up to three spaces (or stray carriage returns) before a heading
            # mean nothing, so the heading loses them
            following.heading_raw = heading
        if _ATX_HEADING.match(heading):
            return
        if not _ends_with_blank(section.render(self.newline), self.newline):
            section.blocks.append(RawBlock(self.newline))

    def remove_entry(self, entry: Entry) -> None:
        for section in self.sections:
            for index, block in enumerate(section.blocks):
                if block is entry:
                    del section.blocks[index]
                    return
        raise ValueError(f"entry not in document: {entry.display()}")

    def projects(self) -> dict[str, ProjectBlock]:
        section = self.find_section(PROJECTS)
        if section is None:
            return {}
        return {block.name: block for block in section.blocks if isinstance(block, ProjectBlock)}

    def project(self, name: str) -> ProjectBlock:
        """The summary block of a project, created at the end of `## Projects` if missing."""
        existing = self.projects().get(name)
        if existing is not None:
            return existing
        section = self.section(PROJECTS)
        block = ProjectBlock(name=name, heading_raw=f"### {name}{self.newline}", lines=[])
        tail = _tail_start(section.blocks)
        previous = section.blocks[tail - 1] if tail > 0 else None
        if previous is not None and not _ends_with_blank(_block_text(previous, self.newline), self.newline):
            section.blocks.insert(tail, RawBlock(self.newline))
            tail += 1
        section.blocks.insert(tail, block)
        self._end_before_setext_heading(section)
        return block

    def remove_project(self, name: str) -> ProjectBlock:
        section = self.find_section(PROJECTS)
        block = self.projects()[name]
        assert section is not None
        section.blocks.remove(block)
        return block


_BULLET_TEXT_COLUMN = 2  # where the text of the bullets the tool writes ("- ", Entry.prefix) starts


def _open_block_end(text: str, tokens: list, lines: list[str]) -> str | None:  # type: ignore[type-arg]
    """The line that closes a fence or HTML block still open at the end of `text` ("" for a blank line),
    so that a heading added after it is a heading; None when nothing is left open."""
    last = next((t for t in reversed(tokens) if t.level == 0 and t.map), None)
    if last is None or last.type not in ("fence", "html_block") or content_end(lines) > last.map[1]:
        return None
    flat = text.replace("\r\n", "\n").replace("\r", " ")
    if _heading_follows(flat, None):
        return None
    for end in (last.markup,) if last.type == "fence" else _HTML_BLOCK_ENDS:
        if _heading_follows(flat, end):
            return end
    return None


def _heading_follows(text: str, end: str | None) -> bool:
    probe = text if text.endswith("\n") or not text else text + "\n"
    probe += "" if end is None else end + "\n"
    line = probe.count("\n")
    probe += "## probe\n"
    return any(
        t.type == "heading_open" and t.level == 0 and t.map and t.map[0] == line
        for t in _MARKDOWN.parse(probe)
    )


def _continues_a_bullet(blocks: list[Block]) -> bool:
    """Whether the raw text at the start of `blocks` would be read as part of a bullet put just before it
    (a lazy continuation line, or one indented as a continuation after a blank line)."""
    following = ""
    for block in blocks:
        if not isinstance(block, RawBlock):
            break
        following += block.raw
    if not following.strip():
        return False
    probe = "- probe\n" + following.replace("\r\n", "\n").replace("\r", " ")
    item = next(t for t in _MARKDOWN.parse(probe) if t.type == "list_item_open")
    return item.map is not None and any(line.strip() for line in probe.split("\n")[1 : item.map[1]])


def _ends_in_html(block: Block, newline: str) -> bool:
    """Whether `block` ends inside an HTML block ("<div>" with no blank line after it), which would
    swallow a bullet written right after it. Read as `parse` reads it: only "\n" ends a line (not a
    lone "\r", nor the form feed `str.splitlines` also splits at)."""
    text = _block_text(block, newline).replace("\r\n", "\n").replace("\r", " ")
    last = next((t for t in reversed(_MARKDOWN.parse(text)) if t.level == 0 and t.map), None)
    if last is None or last.type != "html_block" or not last.map:
        return False
    return last.map[1] >= text.count("\n") + (not text.endswith("\n"))


def _block_text(block: Block, newline: str) -> str:
    if isinstance(block, Entry):
        return block.render(newline)
    return block.render() if isinstance(block, ProjectBlock) else block.raw


def _ends_with_blank(text: str, newline: str) -> bool:
    return text.endswith(newline * 2) or text == newline


def _tail_start(blocks: list[Block]) -> int:
    """Index where the trailing blank lines of a section begin (new content goes before them)."""
    index = len(blocks)
    while index > 0 and isinstance(blocks[index - 1], RawBlock) and not blocks[index - 1].raw.strip():  # type: ignore[union-attr]
        index -= 1
    return index


def _parse_section(lines: list[str], start: int, end: int, tokens: list) -> Section:  # type: ignore[type-arg]
    title = " ".join(strip_newline(lines[start]).strip().lstrip("#").strip().rstrip("#").split())
    title = _ALIASES.get(title.lower(), title)
    section = Section(title=title, heading_raw=lines[start])
    body_start = start + 1
    if not section.owned:
        _append_raw(section.blocks, lines[body_start:end])
        return section
    if title == PROJECTS:
        _parse_projects(section, lines, body_start, end, tokens)
    else:
        _parse_entries(section, lines, body_start, end, tokens)
    _split_tail(section.blocks)
    return section


def _parse_entries(section: Section, lines: list[str], start: int, end: int, tokens: list) -> None:  # type: ignore[type-arg]
    cursor = start
    for item_start, item_end in _top_level_items(tokens, start, end):
        while item_end > item_start + 1 and not lines[item_end - 1].strip():
            item_end -= 1
        _append_raw(section.blocks, lines[cursor:item_start])
        entry = _parse_entry(lines[item_start:item_end])
        section.blocks.append(entry if entry else RawBlock("".join(lines[item_start:item_end])))
        cursor = item_end
    _append_raw(section.blocks, lines[cursor:end])


def entry_from_display(line: str) -> Entry | None:
    """An entry from its one-line display ("[Topic] text (2026-11-03)", as archive.md keeps it)."""
    entry = _parse_entry([f"- {line}"])
    if entry is not None:
        entry.raw = None
    return entry


def _parse_entry(item_lines: list[str]) -> Entry | None:
    match = _ITEM_START.match(strip_newline(item_lines[0]))
    if not match:
        return None
    body = match.group("body").strip()
    for line in item_lines[1:]:  # an entry wrapped over lines reads as Markdown renders it
        if line := strip_newline(line).strip():
            body += soft_break(body, line) + line
    day = None
    date_match = _TRAILING_DATE.search(body)
    if date_match:
        try:
            day = date(int(date_match.group(1)), int(date_match.group(2)), int(date_match.group(3)))
            body = body[: date_match.start()].rstrip()
        except ValueError:
            day = None
    topic = None
    if body.startswith("\\["):
        body = body[1:]  # a bracket of the entry's own, escaped: no project tag
    elif topic_match := TOPIC_TAG.match(body):
        topic = topic_match.group(1).strip()
        body = body[topic_match.end() :]
    prefix = match.group("indent") + match.group("marker") + " "
    return Entry(text=body, topic=topic, day=day, raw="".join(item_lines), prefix=prefix)


def _parse_projects(section: Section, lines: list[str], start: int, end: int, tokens: list) -> None:  # type: ignore[type-arg]
    h3 = [
        t.map[0]
        for t in tokens
        if t.type == "heading_open" and t.tag == "h3" and t.map and start <= t.map[0] < end
    ]
    _append_raw(section.blocks, lines[start : h3[0] if h3 else end])
    bounds = [*h3, end]
    for block_start, block_end in pairwise(bounds):
        name = strip_newline(lines[block_start]).strip().lstrip("#").strip().rstrip("#").strip()
        body = lines[block_start + 1 : block_end]
        last = content_end(body)
        section.blocks.append(ProjectBlock(name=name, heading_raw=lines[block_start], lines=body[:last]))
        _append_raw(section.blocks, body[last:])


def _top_level_items(tokens: list, start: int, end: int) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    spans = []
    depth = 0
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif token.type == "list_item_open" and depth == 1 and token.map and start <= token.map[0] < end:
            spans.append((token.map[0], min(token.map[1], end)))
    return spans


def _append_raw(blocks: list[Block], lines: list[str]) -> None:
    if lines:
        blocks.append(RawBlock("".join(lines)))


def _split_tail(blocks: list[Block]) -> None:
    """Separate a section's trailing blank lines into their own block, so new content goes before them."""
    if not blocks or not isinstance(blocks[-1], RawBlock):
        return
    raw = blocks[-1].raw
    lines = _lines(raw)
    keep = content_end(lines)
    if 0 < keep < len(lines):
        blocks[-1] = RawBlock("".join(lines[:keep]))
        blocks.append(RawBlock("".join(lines[keep:])))
