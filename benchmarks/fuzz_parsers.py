"""Fuzz the daily-note parser and the MEMORY.md parser with hypothesis, for a given time (not in CI).

    python benchmarks/fuzz_parsers.py                      # 180 s per parser
    python benchmarks/fuzz_parsers.py --seconds 600 --target memory

Inputs are built from the pieces real notes and memory files are made of (headings, bullets,
fences, front matter, tables, CR/CRLF/lone CR, BOM, form feeds, U+2028, literal \\n, emoji,
other scripts, deep indentation) mixed with arbitrary text and bytes. Laws checked:

- notes: `read_note` either reads the file or raises NoteReadError (never anything else); every
  item has 1-based lines inside the file, start <= end, a unique id and non-empty text; parsing
  is deterministic.
- MEMORY.md: parse then render gives back the exact text; after adding an entry and setting a
  project's fields, the result parses again, keeps its BOM and line endings, renders stably and
  holds the new entry.

Every failure is printed with its input (repr) and written to --out (default
benchmarks/fuzz-failures/), so that it can become a test. Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from memory_sleep.models import ProjectFields
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument
from memory_sleep.workspace.note_read import NoteReadError
from memory_sleep.workspace.notes import read_note

PIECES = [
    "\n", "\n", "\n", "\r\n", "\r", "  ", "\t", "    ", "- ", "* ", "+ ", "1. ", "2) ", "- [ ] ", "- [x] ",
    "# ", "## ", "### ", "#### ", "###### ", "####### ", "## Facts\n", "## Decisions\n", "## Projects\n",
    "## Lessons learned\n", "## People\n", "## Action items\n", "### Atlas\n", "- Status: active\n",
    "- **Next:** ship\n", "---\n", "---", "title: x\n", "project: [a\n", "```\n", "```python\n", "~~~\n",
    "| a | b |\n", "|---|---|\n", "> ", ">>> ", "<!--", "-->", "<div>\n", "</div>\n", "**Key:** value",
    "**Decided**: ", "[10:32] ", "10:32 ", "**09:15**", "(2026-11-03)", "(2026-02-30)", "(9999-99-99)",
    "[Atlas] ", "[x] ", "\\n", "\\\\n", "\ufeff", "\x0c", "\u2028", "\u2029", "\x85", "\x00", "\x1b[31m",
    "🚀", "✅", "数据库迁移完成。", "قررنا استخدام", "déployé à 14h", "Title\n=====\n", "Facts\n-----\n",
    "HEARTBEAT_OK\n", "Decided: use Postgres 16.", "Note to self: ", "TODO by 2026-11-25", "Raj Patel",
    "    code\n", "&amp;", "<br>", "\\", "*", "_", "`", "[", "]", "(", ")", ":", "#", "-", "=", "|",
]  # fmt: skip

piece = st.sampled_from(PIECES)
free_text = st.text(max_size=12)
nested = st.integers(0, 60).map(lambda depth: "".join("  " * level + "- n\n" for level in range(depth)))
fragment = st.one_of(piece, piece, piece, free_text, nested)
document_text = st.lists(fragment, max_size=60).map("".join)
raw_bytes = st.one_of(
    document_text.map(lambda text: text.encode("utf-8")),
    st.binary(max_size=200),
    st.tuples(document_text, st.binary(max_size=8)).map(lambda pair: pair[0].encode() + pair[1]),
)

FUZZ_DAY = date(2026, 11, 24)


def check_note(raw: bytes, folder: Path) -> None:
    path = folder / "2026-11-24-fuzz.md"
    path.write_bytes(raw)
    note = NoteFile(path=path, name=path.name, day=FUZZ_DAY, topic="fuzz")
    try:
        parsed = read_note(note, max_bytes=2_000_000)
    except NoteReadError as error:
        assert str(error).startswith("memory/2026-11-24-fuzz.md: "), str(error)
        return
    text = raw.decode("utf-8-sig")
    line_count = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    ids = [item.id for item in parsed.items]
    assert len(ids) == len(set(ids)), "item ids repeat"
    for item in parsed.items:
        assert 1 <= item.line_start <= item.line_end <= line_count, (
            item.line_start,
            item.line_end,
            line_count,
        )
        assert item.text.strip(), "empty item"
    again = read_note(note, max_bytes=2_000_000)
    assert [(i.id, i.text) for i in again.items] == [(i.id, i.text) for i in parsed.items], (
        "not deterministic"
    )


def check_memory(text: str) -> None:
    document = MemoryDocument.parse(text)
    assert document.render() == text, "parse then render changed the text"
    list(document.entries())
    document.add_entry("Facts", Entry(text="fuzz entry", topic="Fuzz", day=FUZZ_DAY))
    document.project("Fuzz").set_fields(
        ProjectFields(status="active", contacts="—", last_event="x (2026-11-24)", next="y"), document.newline
    )
    rendered = document.render()
    assert rendered.startswith("\ufeff") == text.startswith("\ufeff"), "BOM lost"
    reparsed = MemoryDocument.parse(rendered)
    assert reparsed.render() == rendered, "edited document does not round-trip"
    assert any(entry.text == "fuzz entry" for _, entry in reparsed.entries()), "added entry lost"
    assert "Fuzz" in reparsed.projects(), "added project lost"


def fuzz(name: str, seconds: float, out: Path) -> tuple[int, list[str]]:
    """Run one target for `seconds`; returns (examples tried, failure descriptions)."""
    failures: list[str] = []
    seen: set[str] = set()
    tried = 0
    folder = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-"))
    target: Callable[..., None]
    if name == "notes":

        @given(raw=raw_bytes)
        def target(raw: bytes) -> None:
            nonlocal tried
            tried += 1
            check_note(raw, folder)

    else:

        @given(text=document_text)
        def target(text: str) -> None:
            nonlocal tried
            tried += 1
            check_memory(text)

    configured = settings(
        max_examples=2_000,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )(target)
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        try:
            configured()
        except Exception as error:  # one shrunk failure per round; keep going to find others
            description = f"{type(error).__name__}: {error}".splitlines()[0][:300]
            key = description.split(":")[0] + traceback.extract_tb(error.__traceback__)[-1].name
            if key in seen:
                continue
            seen.add(key)
            failures.append(description)
            out.mkdir(parents=True, exist_ok=True)
            record = out / f"{name}-{len(failures)}.txt"
            record.write_text("".join(traceback.format_exception(error)))
            print(f"[{name}] FAILURE {description} (details in {record})", flush=True)
    return tried, failures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=180.0, help="time per parser (default 180)")
    parser.add_argument("--target", choices=["notes", "memory", "both"], default="both")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "fuzz-failures")
    arguments = parser.parse_args()
    names = ["notes", "memory"] if arguments.target == "both" else [arguments.target]
    summary = {}
    for name in names:
        started = time.monotonic()
        tried, failures = fuzz(name, arguments.seconds, arguments.out)
        summary[name] = {
            "seconds": round(time.monotonic() - started, 1),
            "examples": tried,
            "failures": failures,
        }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 1 if any(result["failures"] for result in summary.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
