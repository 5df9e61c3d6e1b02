"""Doc: lays item specs out as markdown lines and records where each item landed."""

from __future__ import annotations

import random
import re
import textwrap

from .dates import clock
from .spec import (
    BULLET,
    CHECK_DONE,
    CHECK_OPEN,
    KEY_VALUE,
    PARAGRAPH,
    RAW,
    STAMPED,
    ItemSpec,
)

# A plain paragraph line must not look like the start of any other kind of item.
UNSAFE_PLAIN = re.compile(r"^(?:\s|#|\||```|~~~|---|>|[-*+]\s|\d{1,3}[.)]\s|\*\*|\[?\d{1,2}:\d{2})")
SENTENCE_END = re.compile(r"(?:[.!?:;)。！？]|[\u2600-\u27bf\U0001f300-\U0001faff])\s*$")
BLOCK_KIND = {
    BULLET: "list",
    CHECK_OPEN: "list",
    CHECK_DONE: "list",
    STAMPED: "line",
    KEY_VALUE: "line",
    PARAGRAPH: "para",
    RAW: "raw",
}


class Doc:
    """One markdown file being written, line by line."""

    def __init__(self, path: str, rng: random.Random, clock_style: str) -> None:
        self.path = path
        self.rng = rng
        self.clock_style = clock_style
        self.lines: list[str] = []
        self.items: list[ItemSpec] = []
        self.size = 0

    def append(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line.encode()) + 1

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.append("")

    def heading(self, level: int, text: str) -> None:
        self.blank()
        self.append("#" * level + " " + text)
        if self.rng.random() < 0.85:
            self.append("")

    def place(self, spec: ItemSpec, lines: list[str]) -> None:
        spec.file = self.path
        spec.line = len(self.lines) + 1
        spec.lines = tuple(lines)
        for line in lines:
            self.append(line)
        self.items.append(spec)

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"

    def section(self, specs: list[ItemSpec], prefer: dict[str, float] | None = None) -> None:
        """Lay out `specs` as blocks of bullets, stamped lines, paragraphs and raw blocks."""
        drawn = [(spec, self.choose_shape(spec, prefer or {})) for spec in specs]
        drawn.sort(key=lambda pair: pair[0].minute)
        if self.rng.random() < 0.6:
            ranks = {kind: self.rng.random() for kind in ("list", "line", "para", "raw")}
            drawn.sort(key=lambda pair: ranks[BLOCK_KIND[pair[1]]])
        blocks: list[list[tuple[ItemSpec, str]]] = []
        for spec, shape in drawn:
            kind = BLOCK_KIND[shape]
            if blocks and kind in ("list", "line") and BLOCK_KIND[blocks[-1][0][1]] == kind:
                blocks[-1].append((spec, shape))
            else:
                blocks.append([(spec, shape)])
        for block in blocks:
            self.blank()
            self.block(block)

    def choose_shape(self, spec: ItemSpec, prefer: dict[str, float]) -> str:
        if spec.raw:
            return RAW
        if prefer:
            weights = [prefer.get(shape, 1.0) for shape in spec.shapes]
            shape = self.rng.choices(spec.shapes, weights=weights)[0]
        else:
            shape = spec.shapes[self.rng.randrange(len(spec.shapes))]
        if shape == KEY_VALUE and spec.key_value is None:
            shape = BULLET
        if shape == PARAGRAPH and not safe_plain(spec.body):
            shape = BULLET
        return shape

    def block(self, block: list[tuple[ItemSpec, str]]) -> None:
        kind = BLOCK_KIND[block[0][1]]
        has_checks = any(shape in (CHECK_OPEN, CHECK_DONE) for _, shape in block)
        numbered = 0 if has_checks or len(block) < 2 else 6
        marker = self.rng.choices(("-", "*", "1."), weights=(80, 14, numbered))[0]
        for position, (spec, shape) in enumerate(block, start=1):
            if kind == "list":
                self.place(spec, self.list_lines(spec, shape, marker, position))
            elif kind == "line":
                self.place(spec, [self.line_text(spec, shape)])
            elif kind == "para":
                self.place(spec, self.paragraph_lines(spec))
            else:
                self.place(spec, list(spec.raw))

    def escaped(self, spec: ItemSpec) -> str | None:
        """Children folded into one line with literal backslash-n, as some agents write."""
        if not spec.children or self.rng.random() > 0.18:
            return None
        return spec.body + "\\n" + "\\n".join(f"- {child}" for child in spec.children)

    def list_lines(self, spec: ItemSpec, shape: str, marker: str, position: int) -> list[str]:
        lead = f"{position}." if marker == "1." else marker
        if shape == CHECK_OPEN:
            lead += " [ ]"
        elif shape == CHECK_DONE:
            lead += " [x]"
        folded = self.escaped(spec)
        if folded is not None:
            return [f"{lead} {folded}"]
        indent = " " * (len(lead.split(" ")[0]) + 1)
        child_marker = self.rng.choice(("-", "-", "*", ""))
        children = [
            f"{indent}{child_marker} {child}" if child_marker else f"{indent}{child}"
            for child in spec.children
        ]
        return [f"{lead} {spec.body}", *children]

    def line_text(self, spec: ItemSpec, shape: str) -> str:
        if shape == KEY_VALUE and spec.key_value is not None:
            key, value = spec.key_value
            if self.rng.random() < 0.85:
                return f"**{key}:** {value}"
            return f"**{key}**: {value}"
        style = self.clock_style if self.rng.random() < 0.9 else self.rng.choice(("plain", "bracket", "bold"))
        style = spec.clock_style or style
        body = self.escaped(spec) or spec.body
        return f"{clock(spec.minute, style)} {body}"

    def paragraph_lines(self, spec: ItemSpec) -> list[str]:
        folded = self.escaped(spec)
        if folded is not None and safe_plain(folded):
            return [folded]
        if len(spec.body) > 80 and self.rng.random() < 0.4:
            wrapped = textwrap.wrap(
                spec.body,
                width=self.rng.randint(56, 84),
                break_long_words=False,
                break_on_hyphens=False,
            )
            # A wrapped line ending a sentence would read as two items to a sentence-aware parser.
            if all(safe_plain(line) for line in wrapped) and not any(
                SENTENCE_END.search(line) for line in wrapped[:-1]
            ):
                return wrapped
        return [spec.body]


def safe_plain(line: str) -> bool:
    """True when `line` can stand in a paragraph without being read as another item kind."""
    return bool(line.strip()) and UNSAFE_PLAIN.match(line) is None
