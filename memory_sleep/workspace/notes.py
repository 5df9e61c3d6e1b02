"""Reading a daily note and splitting it into items (bullets, timestamped lines, paragraphs, blocks)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import frontmatter
from markdown_it import MarkdownIt
from markdown_it.token import Token

from memory_sleep.language import SECTION_NAMES
from memory_sleep.models import ItemKind, NoteItem
from memory_sleep.text import normalize, stable_id
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.note_read import decode, read_bytes
from memory_sleep.workspace.stamps import split_stamps

# Only block structure is used. The default maxNesting (20) silently drops the rest of a file after
# ten levels of nested bullets; inline parsing is off because, unbounded, it recurses on "[[[[...".
_MARKDOWN = MarkdownIt("commonmark", options_update={"maxNesting": 100_000}).enable("table").disable("inline")
# for a note nested past what Python's recursion allows: read down to this depth, stop there, and say so
_SHALLOW_MARKDOWN = (
    MarkdownIt("commonmark", options_update={"maxNesting": 200}).enable("table").disable("inline")
)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|\Z)", re.DOTALL)
_LINE_STARTS_ITEM = re.compile(
    r"^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?(?:\s|$)|\*\*\d{1,2}:\d{2}\*\*|\*\*[^*\n]{1,60}?(?::\*\*|\*\*:))"
)
_LITERAL_NEWLINE = re.compile(r"(?<!\\)\\n")
# markdown-it ends lines only here; str.splitlines() also splits at \f, U+2028 and others,
# which would shift every line number after them and drop items
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# "Owner: Dana", "负责人：Dana": a plain key of three words at most (not a time, "04:00"; not a
# sentence's "summary sent to Dana: 41 diffs") and its value, a field
_PLAIN_KEY_LINE = re.compile(r"^\s*[^\W\d_][^:：\s]{0,29}(?:[ \t][^:：\s]{1,30}){0,2}(?::\s+|：\s*)\S")
_SENTENCE_END = re.compile(r"(?:[.!?:)。！？]|[\u2600-\u27bf\U0001f300-\U0001faff])\s*$")
_SENTENCE_START = re.compile(r"^[^\s\->]")
_BOLD_KEY_LINE = re.compile(r"^\s*\*\*[^*\n]{1,60}?(?::\*\*|\*\*:)")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])(?:\s|$)")
CHUNK_LINES = 2_000  # lines of a note parsed at a time: tokens are large, a note may be megabytes
_SECTION_NAMES = frozenset(name for names in SECTION_NAMES.values() for name in names)  # "todo", "next steps"
# "Next steps:", "**DC IS:**", "**剩余手动**:" (a bold label, the colon inside or after it, ASCII or full-width)
_LEAD_IN = re.compile(r"^(?:\*\*)?([^\n*]{2,120}?)(?:\*\*)?[:：](?:\*\*)?$")


@dataclass
class ParsedNote:
    """The items of one note, and anything wrong with it that the user should hear about."""

    items: list[NoteItem]
    front_matter: dict[str, Any]
    warning: str | None = None


def read_note(note: NoteFile, max_bytes: int) -> ParsedNote:
    """Read and split a note; a note that cannot be read raises NoteReadError (the file, why, the fix)."""
    return parse_note_text(
        note, decode(note.relative, read_bytes(note.path, note.relative, max_bytes), max_bytes)
    )


def parse_note_text(note: NoteFile, text: str) -> ParsedNote:
    """Split a note's text into items, keeping 1-based line numbers of the file."""
    meta, warning, lines, project_hint = _front_matter(note, text)
    try:
        items = list(_items(note, lines, _chunks(lines, _MARKDOWN), project_hint))
    except RecursionError:
        shallow = [_SHALLOW_MARKDOWN.parse("\n".join(lines))]
        items = list(_items(note, lines, shallow, project_hint))
        warning = (
            f"{note.relative}: lists or quotes nested too deeply (hundreds of levels); read only up to the "
            "deepest part, the rest of the note was skipped. Flatten the nesting."
            + (f" Also: {warning}" if warning else "")
        )
    return ParsedNote(items=items, front_matter=meta, warning=warning)


def note_item_stream(note: NoteFile, text: str) -> tuple[dict[str, Any], Iterator[NoteItem]]:
    """A note's front matter, and its items one at a time for a reader that need not hold them all.

    The items are those of parse_note_text, except that where that reads a note nested too deeply
    only in part, the iterator raises RecursionError: read such a note with parse_note_text.
    """
    meta, _, lines, project_hint = _front_matter(note, text)
    return meta, _items(note, lines, _chunks(lines, _MARKDOWN), project_hint)


def _front_matter(note: NoteFile, text: str) -> tuple[dict[str, Any], str | None, list[str], str | None]:
    """The front matter, a warning if it is unreadable, the lines of the note (the front matter's
    left blank) and the project the note is about."""
    meta: dict[str, Any] = {}
    warning = None
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            meta = dict(frontmatter.parse(match.group(0) + "\n")[0])
        except Exception as error:  # the YAML library raises many kinds; all mean "unreadable"
            # read as note text: a note often opens with a `---` rule, and no line goes unread
            warning = _front_matter_warning(note, error, text[: match.end()].rstrip("\r\n").count("\n") + 1)
        else:  # the front matter's lines are left blank, so line numbers stay the file's
            text = "\n" * match.group(0).count("\n") + text[match.end() :]
    project = meta.get("project") if isinstance(meta.get("project"), str) else None
    return meta, warning, _LINE_BREAK.split(text), project or note.topic


def _front_matter_warning(note: NoteFile, error: Exception, closing: int) -> str:
    """Lines 1 to `closing` between --- lines that are no YAML, where the YAML breaks, and that they are
    read as note text (a note that opens with a `---` rule looks like front matter)."""
    problem = getattr(error, "problem", None) or (str(error).splitlines() or [type(error).__name__])[0]
    mark = getattr(error, "problem_mark", None)
    # the YAML starts below the first ---; an error at its end is at the closing one
    where = f", line {min(mark.line + 2, closing)}" if mark is not None else ""
    return (
        f"{note.relative}: lines 1-{closing}, between --- lines, look like front matter but are not valid "
        f"YAML ({problem}{where}); they were read as note text. If they are front matter, fix the YAML; "
        "if the first --- is a horizontal rule, start the note with another line (a heading, say) to "
        "silence this."
    )


def _chunks(lines: list[str], markdown: MarkdownIt) -> Iterator[list[Token]]:
    """The tokens of the note, CHUNK_LINES lines at a time, with line numbers of the whole note.

    Tokens for a whole note of megabytes take hundreds of megabytes. A chunk's last block (or item of
    a top-level list: a day of log lines is often one long list) may be cut short by the chunk's end,
    so it is dropped and the next chunk starts where it starts: there the parser of the whole note
    starts afresh too, and every block before it is complete.
    """
    start, size = 0, CHUNK_LINES
    while start < len(lines):
        end = min(len(lines), start + size)
        tokens = markdown.parse("\n".join(lines[start:end]))
        following = len(lines)
        if end < len(lines):
            restart = _restart(tokens, lines, start, markdown)
            if restart is None:
                size *= 2  # one block or item longer than the chunk: parse it whole
                continue
            following = start + tokens[restart].map[0]  # type: ignore[index]
            del tokens[restart:]
        for token in tokens:
            if token.map is not None:
                token.map = [token.map[0] + start, token.map[1] + start]
        yield tokens
        start, size = following, CHUNK_LINES


def _restart(tokens: list[Token], lines: list[str], offset: int, markdown: MarkdownIt) -> int | None:
    """Index of the last token past the chunk's first line where the parser of the whole note starts
    afresh: a top-level block, or an item of a top-level list (each item is read like the first of a
    new list, unless its line and the next, on their own, start something else, such as a table)."""
    for index in range(len(tokens) - 1, 0, -1):
        token = tokens[index]
        if not token.map or token.map[0] == 0:
            continue
        if token.level == 0:
            return index
        if token.level == 1 and token.type == "list_item_open":
            line = offset + token.map[0]
            head = markdown.parse("\n".join(lines[line : line + 2]))
            if head and head[0].type.endswith("_list_open") and head[0].markup == token.markup:
                return index
    return None


def _items(
    note: NoteFile, lines: list[str], chunks: Iterable[list[Token]], project_hint: str | None
) -> Iterator[NoteItem]:
    seen: Counter[str] = Counter()
    lead: str | None = None
    previous_end = -1
    file = note.relative
    for kind, start, end, path in _spans(lines, chunks):
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        if start >= end or not any(line.strip() for line in lines[start:end]):
            continue
        if start != previous_end or (kind != "bullet" and not _BOLD_KEY_LINE.match(lines[start])):
            lead = None
        previous_end = end
        raw = "\n".join(lines[start:end])
        body = raw if kind in ("code", "table") else _LITERAL_NEWLINE.sub("\n", raw)
        if not body.strip():
            continue
        norm = normalize(body)
        seen[norm] += 1
        stamp, said = split_stamps(body.strip())
        yield NoteItem(
            id=stable_id(note.name, norm, str(seen[norm])),
            file=file,
            day=note.day,
            line_start=start + 1,
            line_end=end,
            kind=kind,
            text=said,
            headings=path,
            project_hint=project_hint,
            lead=lead,
            stamp=stamp,
        )
        if kind in ("line", "paragraph"):
            lead = lead_in(body) or lead


def lead_in(body: str) -> str | None:
    """What a line leading the list under it names ("Quokka:" leads with "Quokka"; a section's name
    alone, "TODO" or "**Next steps**", with itself), else None."""
    text = body.strip()
    match = _LEAD_IN.match(text)
    if match:
        return match.group(1)
    bare = text.strip("*").strip()
    return bare if " ".join(bare.lower().split()) in _SECTION_NAMES else None


def _spans(
    lines: list[str], chunks: Iterable[list[Token]]
) -> Iterator[tuple[ItemKind, int, int, tuple[str, ...]]]:
    """Line spans of the items, in order, each with its kind and the headings above it."""
    headings: list[tuple[int, str]] = []
    path: tuple[str, ...] = ()
    for tokens in chunks:
        for index, token in enumerate(tokens):
            if token.type == "heading_open" and token.level == 0:
                level = int(token.tag[1:])
                headings = [(lvl, title) for lvl, title in headings if lvl < level]
                headings.append((level, tokens[index + 1].content.strip()))
                path = tuple(title for _, title in headings)
            elif token.type == "hr" and token.level == 0:
                path = ()  # a thematic break ends the section: what follows is a footer or a new block
            elif token.level == 0 and token.map is not None:
                start, end = token.map
                if token.type in ("bullet_list_open", "ordered_list_open"):
                    for item_start, item_end in _list_items(tokens, index):
                        lazy = _first_lazy_line(lines, item_start, item_end)
                        yield ("bullet", item_start, lazy, path)
                        yield from (("line", s, e, path) for s, e in _paragraph_parts(lines, lazy, item_end))
                elif token.type == "paragraph_open":
                    yield from (("line", s, e, path) for s, e in _paragraph_parts(lines, start, end))
                elif token.type in ("fence", "code_block"):
                    yield ("code", start, end, path)
                elif token.type == "table_open":
                    yield ("table", start, end, path)
                elif token.type == "blockquote_open":
                    yield ("quote", start, end, path)
                elif token.type == "html_block":
                    yield ("paragraph", start, end, path)


def _first_lazy_line(lines: list[str], start: int, end: int) -> int:
    """Where a list item stops being the item: the first unindented, non-list line after its first.

    CommonMark folds such lines into the item ("lazy continuation"); agents mean them as new lines.
    """
    for number in range(start + 1, end):
        line = lines[number]
        if line.strip() and not line[:1].isspace() and not _LIST_MARKER.match(line):
            return number
    return end


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
    """A paragraph cut into statements: every timestamped or `**Key:**` line stands alone, so does each
    line of a paragraph of "Key: value" lines only (fields, one a line; a pasted log's "Fatal Exception:
    ..." over its frames is no such paragraph), and a line that starts a sentence after one that ended a
    sentence starts a new part (hard-wrapped prose does not)."""
    fields = all(_PLAIN_KEY_LINE.match(lines[number]) for number in range(start, end))
    parts = []
    part_start = start
    for number in range(start + 1, end):
        previous, current = lines[number - 1], lines[number]
        stands_alone = fields or _LINE_STARTS_ITEM.match(previous) or _LINE_STARTS_ITEM.match(current)
        new_sentence = _SENTENCE_END.search(previous) and _SENTENCE_START.match(current)
        if stands_alone or new_sentence:
            parts.append((part_start, number))
            part_start = number
    parts.append((part_start, end))
    return parts
