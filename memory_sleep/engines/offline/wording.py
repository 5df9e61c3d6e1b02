"""The one-line MEMORY.md wording of a kept item, as the offline engine writes it."""

from __future__ import annotations

import re
from itertools import accumulate, pairwise, zip_longest

from memory_sleep.engines.cards import KEYED
from memory_sleep.engines.offline import cues
from memory_sleep.models import KeptItem
from memory_sleep.text import columns, shorten, soft_break, unspaced

ENTRY_MAX_CHARS = 200
_BOLD_PHRASE = re.compile(r"\*\*([^*\n]{12,}?)\*\*")
TABLE_RULE = re.compile(r"^\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")
# A line narrower than this was ended by its author: text is filled to 60 columns or more (72, 79, 80
# are usual), and a full line falls short of its width by less than one long word.
_WRAP_COLUMNS = 48
_SENTENCE_END = re.compile(r"[.!?。！？][*_)\"'”’」]*\s*$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")  # a block quote's markers: its lines read as any others
_HARD_BREAK = re.compile(r"(?: {2,}|\\)$")  # Markdown's hard line break: the next line is a new one
_FRAMED = re.compile(r"^[│║┃].*[│║┃]$")  # a diagram's line inside a box's sides
_SIDES = re.compile(r"^(?:[│║┃]\s*)+|(?:\s*[│║┃])+$")
_ONE_LINE_BLOCK = re.compile(r"^#{1,6}(?:\s+|$)|^(?=\|)")  # a heading (its marks) or a table row
# lines that open a block of their own rather than continue a paragraph: a list item or checkbox, a
# heading, a table row, and (as the note parser reads them) a timestamped line
_STARTS_BLOCK = re.compile(
    "|".join(
        (cues.BULLET.pattern, cues.CHECKBOX_OPEN.pattern, _ONE_LINE_BLOCK.pattern, cues.TIMESTAMP.pattern)
    )
)


LEAD = " › "  # joins an entry's lead-in (the line its list hangs from) and the item's own text


def entry_text(kept: KeptItem, lead: bool = True) -> str:
    """The one-line MEMORY.md wording of a kept item: markup stripped, lines joined, length capped; with
    `lead`, after the lead-in its list hangs from ("Follow-ups › Pim: terminate the cluster"). The lead
    is joined by "›", not a colon: it is context, and the item's own `Key:` stays the line's key (a
    colon made it the key of every item of its list, one key's values that superseded each other)."""
    said = re.sub(r"\*\*([^*]+)\*\*", r"\1", kept.item.lead or "").strip() if lead else ""
    if kept.topic and said.lower() == kept.topic.lower():
        said = ""  # "Quokka:" above a list of Quokka's: the entry's project says it
    text = (f"{said}{LEAD}" if said else "") + plain(kept.item.text)
    stressed = _stressed(kept.item.text)
    if stressed and stressed not in shorten(text, ENTRY_MAX_CHARS):  # the cut would leave it out
        text = f"{stressed} — {text}"
    text = shorten(text, ENTRY_MAX_CHARS)
    if kept.topic and text.lower().startswith(kept.topic.lower() + ":"):
        text = text[len(kept.topic) + 1 :].strip()
    if kept.deadline and kept.deadline.isoformat() not in text:
        text = f"{text} (due {kept.deadline.isoformat()})"
    return text


def _stressed(text: str) -> str | None:
    """The first phrase the author set in bold ("**We're switching the database to Quokka DB**"), not a
    bold key ("**Owner:**") nor a word: what the item says above all, put first when the entry would
    be cut before it."""
    for found in _BOLD_PHRASE.finditer(text):
        phrase = " ".join(found.group(1).split()).rstrip(".")
        if " " in phrase and not phrase.endswith((":", "：")):
            return phrase
    return None


def plain(text: str) -> str:
    """A note's lines as one statement: bullets, checkboxes, clock times and bold marks stripped.

    A line that starts a block of its own (a list item, heading, table row, code line, a timestamped
    or **Key:** line, anything after a blank line or a hard break) starts a new part; so does a line
    that the line before it had room for: notes are often written a statement a line. A line that
    continues a paragraph whose line before it was full (its first word did not fit there: the
    paragraph was wrapped, by hand or by an editor) continues the sentence, as Markdown renders it:
    after a space, or after nothing between two CJK characters. Parts join with "; "."""
    parts = []
    for paragraph in _paragraphs(text):
        widest = max(columns(raw.rstrip()) for raw, _ in paragraph)
        breaks = [_break(previous, line, widest) for (previous, _), (_, line) in pairwise(paragraph)]
        if "line" in breaks:  # not filled to a width: written a statement a line
            breaks = ["; " if joiner == " " else joiner for joiner in breaks]
        breaks = _within_parentheses(paragraph, breaks)
        part = paragraph[0][1]
        for joiner, (_, line) in zip(breaks, paragraph[1:], strict=True):
            if joiner == " ":
                part += soft_break(part, line) + line
            else:
                parts.append(part)
                part = line
        parts.append(part)
    return "; ".join(stripped for part in parts if (stripped := part.strip().rstrip(".;")))


def _paragraphs(text: str) -> list[list[tuple[str, str]]]:
    """The runs of lines Markdown would read as one paragraph, each line as written and with its
    markup stripped; a code line, heading or table row is a run of its own."""
    paragraphs: list[list[tuple[str, str]]] = []
    continues, in_fence = False, False  # whether the next line may continue the last run
    header: list[str] | None = None  # the cells of the header row of the table being read
    boxed = any(_FRAMED.match(raw.strip()) for raw in text.splitlines())  # "│  API layer  │"
    for raw in text.splitlines():
        line = raw.strip() if in_fence else _QUOTE.sub("", raw).strip()
        if in_fence:  # a diagram's line: its words, without the box around them or the spaces aligning them
            line = " ".join((_SIDES.sub("", line) if boxed else line).split())
        header = header if line.startswith("|") and not in_fence else None
        if cues.FENCE.match(line):
            in_fence, continues = not in_fence, False
        elif not line:
            continues = False  # a blank line ends the paragraph
        elif (
            TABLE_RULE.match(line)
            and header is None
            and paragraphs
            and _row(paragraphs[-1][0][0]).startswith("|")
        ):
            header = _cells(paragraphs.pop()[0][0])  # the row above the first rule names the columns
        elif header is not None and not TABLE_RULE.match(line):  # a rule between rows only groups them
            paragraphs.append([(raw, _unbold(_named_cells(header, _cells(line))))])
        elif TABLE_RULE.match(line) or (in_fence and not any(char.isalnum() for char in line)):
            continue  # "|---|", a diagram's "└───┘" or "▼": no words
        elif continues and not _STARTS_BLOCK.match(line):
            paragraphs[-1].append((raw, _unbold(line)))
            continues = not _HARD_BREAK.search(raw)
        else:
            one_line = in_fence or bool(_ONE_LINE_BLOCK.match(line))
            line = line if in_fence else _ONE_LINE_BLOCK.sub("", line)  # "# " in code is a comment
            line = cues.CHECKBOX_OPEN.sub("", cues.BULLET.sub("", line, count=1), count=1)
            paragraphs.append([(raw, _unbold(cues.TIMESTAMP.sub("", line, count=1)).strip())])
            continues = not one_line and not _HARD_BREAK.search(raw)
    return paragraphs


def _row(raw: str) -> str:
    """A line as a table row reads: without a block quote's markers."""
    return _QUOTE.sub("", raw).strip()


def _cells(row: str) -> list[str]:
    """A table row's cells: "| db1 | primary |" is "db1", "primary"."""
    return [cell.strip() for cell in _row(row).strip("|").split("|")]


def _named_cells(header: list[str], cells: list[str]) -> str:
    """A table row as a statement: its first cell, then each other cell named by its column's header,
    "db1 (role: primary)"; empty cells say nothing."""
    others = zip_longest(header[1:], cells[1:], fillvalue="")  # a row may have more or fewer cells
    named = [f"{name}: {cell}" if name else cell for name, cell in others if cell]
    return f"{cells[0]} ({'; '.join(named)})" if named else cells[0]


def _within_parentheses(paragraph: list[tuple[str, str]], breaks: list[str]) -> list[str]:
    """A line that leaves open a parenthesis a later line closes ends no statement: the next line goes on
    inside it ("(old one" then "https://... is gone)")."""
    depths = list(accumulate(line.count("(") - line.count(")") for _, line in paragraph))
    return [
        " " if depth > 0 and min(depths[index + 1 :]) < depth else joiner
        for index, (depth, joiner) in enumerate(zip(depths, breaks, strict=False))
    ]


def _break(previous: str, line: str, widest: int) -> str:
    """How the line before `line` ends: at a sentence's end or before a `Key: value` line (a new
    statement, "; "), full (" ": `line`'s first word, or first character in a script written without
    spaces, would have made it wider than the paragraph's widest line), or with room left ("line")."""
    if _SENTENCE_END.search(previous) or KEYED.match(line):
        return "; "
    word = line.split(maxsplit=1)[0]
    room = columns(word[0]) if unspaced(word[0]) else 1 + columns(word)
    width = columns(previous.rstrip())
    return " " if width >= _WRAP_COLUMNS and width + room > widest else "line"


def _unbold(line: str) -> str:
    return re.sub(r"\*\*([^*]+)\*\*", r"\1", line)
