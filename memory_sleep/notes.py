"""Reading a daily note and splitting it into items (bullets, timestamped lines, paragraphs, blocks)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import frontmatter
from markdown_it import MarkdownIt
from markdown_it.token import Token

from .models import ItemKind, NoteItem
from .text import normalize, stable_id
from .workspace import NoteFile

_MARKDOWN = MarkdownIt("commonmark").enable("table")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|\Z)", re.DOTALL)
_LINE_STARTS_ITEM = re.compile(
    r"^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?(?:\s|$)|\*\*\d{1,2}:\d{2}\*\*|\*\*[^*\n]{1,60}?(?::\*\*|\*\*:))"
)
_LITERAL_NEWLINE = re.compile(r"(?<!\\)\\n")


@dataclass
class ParsedNote:
    """The items of one note, and anything wrong with it that the user should hear about."""

    items: list[NoteItem]
    front_matter: dict[str, Any]
    warning: str | None = None


class NoteReadError(Exception):
    """A note that cannot be read at all; the message names the file and the fix."""


def read_note(note: NoteFile, max_bytes: int) -> ParsedNote:
    """Read and split a note; unreadable notes raise NoteReadError with a message for the user."""
    size = note.path.stat().st_size
    if size > max_bytes:
        raise NoteReadError(
            f"{note.relative}: {size:,} bytes, over max_note_bytes ({max_bytes:,}); skipped. "
            "Split the file, or raise max_note_bytes in memory-sleep.toml."
        )
    raw = note.path.read_bytes()
    if b"\x00" in raw:
        raise NoteReadError(
            f"{note.relative}: binary data, not a text note; skipped. Move it out of memory/."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NoteReadError(
            f"{note.relative}: not valid UTF-8 (byte {error.start}); skipped. Re-save it as UTF-8."
        ) from None
    return parse_note_text(note, text)


def parse_note_text(note: NoteFile, text: str) -> ParsedNote:
    """Split a note's text into items, keeping 1-based line numbers of the file."""
    meta: dict[str, Any] = {}
    warning = None
    body_offset = 0
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            meta = dict(frontmatter.parse(match.group(0) + "\n")[0])
        except Exception as error:  # the YAML library raises many kinds; all mean "unreadable"
            first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
            warning = (
                f"{note.relative}: front matter is not valid YAML ({first_line}); read the note without it."
            )
        body_offset = match.group(0).count("\n")
        text = "\n" * body_offset + text[match.end() :]
    project = meta.get("project") if isinstance(meta.get("project"), str) else None
    items = _split_items(note, text, project or note.topic)
    return ParsedNote(items=items, front_matter=meta, warning=warning)


def _split_items(note: NoteFile, text: str, project_hint: str | None) -> list[NoteItem]:
    lines = text.splitlines()
    tokens = _MARKDOWN.parse(text)
    headings: list[tuple[int, str]] = []
    spans: list[tuple[ItemKind, int, int, tuple[str, ...]]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        path = tuple(title for _, title in headings)
        if token.type == "heading_open" and token.level == 0:
            level = int(token.tag[1:])
            headings = [(lvl, title) for lvl, title in headings if lvl < level]
            headings.append((level, tokens[index + 1].content.strip()))
        elif token.level == 0 and token.map is not None:
            start, end = token.map
            if token.type in ("bullet_list_open", "ordered_list_open"):
                spans.extend(("bullet", s, e, path) for s, e in _list_items(tokens, index))
            elif token.type == "paragraph_open":
                spans.extend(("line", s, e, path) for s, e in _paragraph_parts(lines, start, end))
            elif token.type in ("fence", "code_block"):
                spans.append(("code", start, end, path))
            elif token.type == "table_open":
                spans.append(("table", start, end, path))
            elif token.type == "blockquote_open":
                spans.append(("quote", start, end, path))
            elif token.type == "html_block":
                spans.append(("paragraph", start, end, path))
        index += 1
    seen: Counter[str] = Counter()
    items = []
    for kind, start, end, path in spans:
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        raw = "\n".join(lines[start:end])
        body = raw if kind in ("code", "table") else _LITERAL_NEWLINE.sub("\n", raw)
        if not body.strip():
            continue
        norm = normalize(body)
        seen[norm] += 1
        items.append(
            NoteItem(
                id=stable_id(note.name, norm, str(seen[norm])),
                file=note.relative,
                day=note.day,
                line_start=start + 1,
                line_end=end,
                kind=kind,
                text=body.strip(),
                headings=path,
                project_hint=project_hint,
            )
        )
    return items


def _list_items(tokens: list[Token], list_index: int) -> list[tuple[int, int]]:
    """Line spans of the top-level items of the list that opens at tokens[list_index]."""
    spans = []
    depth = 0
    for token in tokens[list_index:]:
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
            if depth == 0:
                break
        elif token.type == "list_item_open" and depth == 1 and token.map is not None:
            spans.append((token.map[0], token.map[1]))
    return spans


def _paragraph_parts(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """A paragraph's lines; every timestamped or `**Key:**` line stands as a part of its own."""
    parts = []
    part_start = start
    for number in range(start + 1, end):
        previous_stands_alone = _LINE_STARTS_ITEM.match(lines[number - 1]) is not None
        if previous_stands_alone or _LINE_STARTS_ITEM.match(lines[number]):
            parts.append((part_start, number))
            part_start = number
    parts.append((part_start, end))
    return parts
