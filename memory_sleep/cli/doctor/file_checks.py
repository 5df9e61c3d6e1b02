"""Doctor's checks of the files: MEMORY.md and briefing sizes, the notes (readable, named right, no
secret in plain text), and the vector sidecar."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from memory_sleep.cli.doctor.report import Check
from memory_sleep.config import Config
from memory_sleep.errors import MemorySleepError
from memory_sleep.text import counted
from memory_sleep.workspace.layout import Workspace, discover, unwritable
from memory_sleep.workspace.note_read import NoteReadError

_DATE_LIKE = re.compile(r"(\d{4})[-_.](\d{1,2})[-_.](\d{1,2})|(\d{1,2})[-_.](\d{1,2})[-_.](\d{4})")


def sizes(workspace: Workspace, config: Config) -> Iterator[Check]:
    memory = workspace.memory_md
    if memory.is_file():
        raw = memory.read_bytes()
        from memory_sleep.cycle.memory_loss import unreadable

        if (problem := unreadable(workspace, raw)) is not None:
            reason, fix = problem
            yield Check("sizes", "fail", f"MEMORY.md: {reason}; every run refuses it", fix)
            return
        from memory_sleep.cycle.guards import tool_bytes
        from memory_sleep.workspace.memory_doc import MemoryDocument

        size, limit = len(raw), config.memory_max_bytes
        document = MemoryDocument.parse(raw.decode("utf-8"))
        titles = [section.title for section in document.sections if section.owned]
        for title in sorted({title for title in titles if titles.count(title) > 1}):
            yield Check(
                "sizes",
                "warn",
                f"MEMORY.md: {titles.count(title)} sections are '## {title}' (or a name for it);"
                " runs add new entries to the first only",
                f"move the entries of the other '{title}' sections into the first, and delete their headings",
            )
        hidden = document.open_block
        if hidden is not None:
            yield Check(
                "sizes",
                "warn",
                f'MEMORY.md: {hidden.describe()} (the next run closes it before "{hidden.sections[0]}")',
                hidden.fix(),
            )
        tool = tool_bytes(document)
        if tool > limit:
            yield Check(
                "sizes",
                "warn",
                f"MEMORY.md: the tool's entries take {tool:,} bytes, over memory_max_bytes ({limit:,})",
                "runs keep them from growing; raise memory_max_bytes or archive entries by hand",
            )
        elif tool > 0.9 * limit:
            yield Check(
                "sizes",
                "warn",
                f"MEMORY.md: the tool's entries take {tool:,} of {limit:,} bytes (memory_max_bytes)",
                "runs will archive the least used entries (finished business first) to stay under it; "
                "raise memory_max_bytes to keep more",
            )
        else:
            yield Check(
                "sizes",
                "ok",
                f"MEMORY.md {size:,} bytes; the tool's entries {tool:,} of {limit:,} (memory_max_bytes)",
            )
    briefing = workspace.briefing
    if briefing.is_file() and briefing.stat().st_size > config.briefing_max_bytes:
        yield Check(
            "sizes",
            "warn",
            f"memory/briefing.md is {briefing.stat().st_size:,} bytes, over briefing_max_bytes "
            f"({config.briefing_max_bytes:,}): edited by hand?",
            "the next run rewrites it within the limit",
        )


def notes(workspace: Workspace, config: Config, today: date) -> Iterator[Check]:
    from memory_sleep.workspace.notes import read_note

    found = discover(workspace)
    for problem in found.problems:
        yield _not_read(problem)
    for note in (note for note in found.notes if note.days_ahead(today)):
        yield Check(
            "notes",
            "warn",
            f"{note.relative}: dated {counted(note.days_ahead(today), 'day')} after today ({today}); "
            "it is read as written, and what it says is dated then",
            "if the date is a typo, rename it to the day it was written",
        )
    unreadable = 0
    empty: list[str] = []
    for note in found.notes:
        try:
            parsed = read_note(note, config.max_note_bytes)
        except NoteReadError as error:
            unreadable += 1
            yield _not_read(error)
            continue
        if not parsed.items:
            empty.append(note.relative)
        if parsed.warning:
            yield Check("notes", "warn", parsed.warning)
    for stray in found.strays:
        names = note_names(stray.removeprefix("memory/"))
        if not names:
            yield Check(
                "notes",
                "warn",
                f"{stray}: not a daily note; left alone",
                "move it out of memory/ if it does not belong there",
            )
            continue
        misnamed = f"{stray}: looks like a daily note but is not named like one; it is not read"
        if len(names) == 2:
            fix = f"rename it to memory/{names[0]} (day first) or memory/{names[1]} (month first)"
        elif (workspace.notes_dir / names[0]).exists():
            fix = (
                f"memory/{names[0]} exists: merge it into that note, or rename it to "
                f"memory/{names[0].removesuffix('.md')}-<topic>.md"
            )
        else:
            fix = f"rename it to memory/{names[0]}"
        yield Check("notes", "warn", misnamed, fix)
    readable = len(found.notes) - unreadable
    if not found.notes:
        yield Check(
            "notes",
            "ok",
            f"no daily notes yet: a run reads them from memory/YYYY-MM-DD.md ({today}.md today)",
        )
    else:
        nothing = f" ({counted(len(empty), 'holds', 'hold')} nothing to read: {', '.join(empty[:3])}" + (
            f" and {len(empty) - 3} more)" if len(empty) > 3 else ")"
        )
        said = f"{counted(readable, 'daily note', 'daily notes')} readable" + (nothing if empty else "")
        yield Check("notes", "ok" if readable > len(empty) else "warn", said)


def secrets(workspace: Workspace) -> Iterator[Check]:
    from memory_sleep.workspace.note_secrets import by_note, sightings_in_notes

    held = by_note(sightings_in_notes(discover(workspace).notes, workspace))
    for note, where in held:
        fix = f"`memory-sleep redact {workspace.root / note}` replaces them (`memory-sleep undo` reverts)"
        yield Check("secrets", "warn", f"{note}: in plain text at {where}", fix)
    if not held:
        yield Check("secrets", "ok", "no secret in plain text in the notes")


def note_names(name: str) -> list[str]:
    """The names a misnamed note should have (`2026-11-24.md` for `2026_11_24.txt`), the likelier
    first; both readings of `12-01-2026.md` (day first, then month first); none for other files."""
    match = _DATE_LIKE.search(name)
    if not match:
        return []
    if match[1]:
        readings = [(match[1], match[2], match[3])]
    else:
        readings = [(match[6], match[5], match[4]), (match[6], match[4], match[5])]
    stem, suffix = name[: match.start()], name[match.end() :]
    topic = re.sub(r"\.(md|markdown|txt|MD)$", "", suffix).strip("-_. ")
    prefix = stem.strip("-_. ")
    topic = "-".join(part for part in (prefix, topic) if part)
    names = []
    for year, month, day in readings:
        try:
            day_named = date(int(year), int(month), int(day))
        except ValueError:
            continue
        names.append(f"{day_named.isoformat()}{'-' + topic if topic else ''}.md")
    return list(dict.fromkeys(names))


def _not_read(error: NoteReadError) -> Check:
    """A daily note a run cannot read, in the run's words (workspace/note_read.py), the fix apart."""
    return Check("notes", "fail", f"{error.relative}: {error.reason}; {error.outcome}", error.fix)


def sidecar(workspace: Workspace, config: Config) -> Iterator[Check]:
    from memory_sleep.sidecar import index_failure
    from memory_sleep.sidecar.store import DB_NAME, Store

    if not config.sidecar.enabled:
        yield Check("sidecar", "ok", "disabled ([sidecar] enabled = false)")
        return
    if config.sidecar.store == "postgres":
        yield from _postgres(config)
        return
    path = workspace.state_dir / DB_NAME
    if not path.exists():
        yield Check(
            "sidecar",
            "warn",
            "not built yet: recall finds nothing",
            f"`memory-sleep index {workspace.root}` (every run indexes too)",
        )
        return
    try:
        store = Store.open(path, read_only=unwritable(path.parent) or unwritable(path))
    except MemorySleepError as error:
        yield Check("sidecar", "fail", str(error))
        return
    try:
        verdict = store.db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            yield Check(
                "sidecar",
                "fail",
                f"{workspace.relative(path)}: damaged ({verdict})",
                "move it away and run `memory-sleep index` to rebuild it from the markdown",
            )
            return
        live, deleted = store.db.execute(
            "SELECT count(*) - count(deleted_at), count(deleted_at) FROM entries"
        ).fetchone()
        stored = store.meta("embedder")
    finally:
        store.close()
    behind = index_failure.behind(workspace.state_dir)
    if behind:
        yield Check(
            "sidecar", "warn", behind, f"`memory-sleep index {workspace.root}` retries and says what stops it"
        )
    else:
        yield Check(
            "sidecar",
            "ok",
            f"{counted(live, 'entry', 'entries')} live, {deleted} soft-deleted, embedder {stored or 'none yet'}",
        )
    if stored and not stored.startswith(config.sidecar.embedder):
        yield Check(
            "sidecar",
            "warn",
            f"built with {stored}, configured embedder is {config.sidecar.embedder}",
            "the next index or recall re-embeds every entry",
        )


def _postgres(config: Config) -> Iterator[Check]:
    from memory_sleep.sidecar.pg.connect import resolve_dsn
    from memory_sleep.sidecar.pg.health import findings

    try:
        dsn = resolve_dsn(config.sidecar.dsn)
    except MemorySleepError as error:
        yield Check("sidecar", "fail", str(error))
        return
    from memory_sleep.sidecar.embed import build_embedder

    dimensions = config.sidecar.dimensions or build_embedder(config.sidecar).dimensions
    for level, message, fix in findings(dsn, dimensions):
        yield Check("sidecar", level, message, fix)  # type: ignore[arg-type]
