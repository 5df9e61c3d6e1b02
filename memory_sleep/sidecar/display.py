"""Plain-text renderings of index reports, recall hits and stats for the command line."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memory_sleep.sidecar.rows import CONTEXT_JOIN, places
from memory_sleep.text import counted, shorten

if TYPE_CHECKING:  # recall imports this module and must not pay for the indexer
    from memory_sleep.sidecar.index import IndexReport
    from memory_sleep.sidecar.search import Hit

# MEMORY.md's own sections (workspace/memory_blocks.py, not imported: recall must stay light)
MERGED_SHOWN = 3  # places of a merge's originals shown before "and N more"
LINE_CHARS = 96  # a hit's text wrapped on lines this long, under its 4-space indent
OWN_SECTIONS = frozenset({"Decisions", "Facts", "Lessons", "Action items", "People", "Projects"})
# a field: a short key and a short value ("**Area**: tools", "Owner: Pim")
_FIELD = re.compile(r"^\W*[^:：\n]{1,30}?\**\s*[:：]\s*[^\n]{1,40}$")


def index_lines(report: IndexReport, dry_run: bool = False) -> list[str]:
    verb = "Would index" if dry_run else "Indexed"
    lines = [
        f"{verb} {report.sources_read} of {counted(report.sources_seen, 'file')} with {report.embedder}: "
        f"{report.added} added, {report.updated} updated, {report.moved} moved, {report.removed} removed, "
        f"{report.restored} restored ({report.seconds:.2f} s)"
    ]
    if report.reembedded:
        lines.append(
            f"Embedder changed: {counted(report.reembedded, 'entry', 'entries')} "
            f"{'would be ' if dry_run else ''}re-embedded."
        )
    if report.redacted:
        lines.append(
            f"Redacted {counted(report.redacted, 'stored entry', 'stored entries')} holding a secret that "
            "the redaction rules now find (the note keeps it)."
        )
    lines.extend(f"Warning: {warning}" for warning in report.warnings)
    return lines


def index_dict(report: IndexReport) -> dict[str, object]:
    return {
        "embedder": report.embedder,
        "sources_seen": report.sources_seen,
        "sources_read": report.sources_read,
        "added": report.added,
        "updated": report.updated,
        "moved": report.moved,
        "removed": report.removed,
        "restored": report.restored,
        "reembedded": report.reembedded,
        "redacted": report.redacted,
        "seconds": round(report.seconds, 3),
        "warnings": report.warnings,
    }


def nothing_indexed(missing: bool, entries: int, workspace: Path) -> str | None:
    """Why a recall found nothing when nothing could match: no sidecar until this recall made one,
    or one with no entry; None when entries were searched."""
    if entries and not missing:
        return None
    if not missing and not _anything_to_index(workspace):
        return (
            f"Nothing to search yet: {workspace} has no daily notes and nothing in MEMORY.md. Write notes to "
            f"memory/YYYY-MM-DD.md; `memory-sleep run {workspace}` then consolidates and indexes them."
        )
    why = "No sidecar yet" if missing else "The sidecar is empty"
    return (
        f"{why}: nothing is indexed, so nothing can match. Run `memory-sleep run {workspace}` (it "
        f"consolidates the notes into MEMORY.md and indexes them), or `memory-sleep index {workspace}` to "
        "index the notes as they are."
    )


def _anything_to_index(folder: Path) -> bool:
    """Whether the workspace holds a file the sidecar indexes items of: after a run over an empty
    workspace, "run it" is no advice."""
    from memory_sleep.sidecar.sources import memory_items, source_files
    from memory_sleep.workspace.layout import Workspace

    files = source_files(Workspace.open(folder))
    if any(source.kind != "memory" for source in files):
        return True
    return any(memory_items(source.path.read_text(encoding="utf-8", errors="replace")) for source in files)


def hit_lines(hits: Sequence[Hit], width: int = 200) -> list[str]:
    """Each hit's place, day, status and text: `width` characters of it, on lines of at most LINE_CHARS
    (one line of 100 cut "the staging host lives at…" before the answer a note gave after its reason)."""
    if not hits:
        return ["No match."]
    lines = []
    for hit in hits:
        where = _merged_from(hit) if hit.merged else f"{hit.source}:{hit.line}"
        day = hit.day or "undated"
        status = f"  ({hit.status_line()})" if hit.status else ""
        lines.append(
            f"{hit.rank:>2}. {where}  {day}{status}  [{hit.entry.kind}, id {hit.id}, score {hit.score:.4f}]"
        )
        text = shorten(_with_heading(hit), width)
        lines += [f"    {line}" for line in textwrap.wrap(text, LINE_CHARS) or [text]]
        if hit.also:
            lines.append(f"    also in {', '.join(places(hit.also))}")
    return lines


def _merged_from(hit: Hit) -> str:
    """Where a statement GC merged from several stands ("merged from memory/2026-09-06.md:31,
    memory/2026-09-06.md:69"): the garbage collector's own row ("gc:compaction:0") is in no file."""
    found = places(hit.merged)
    shown = ", ".join(found[:MERGED_SHOWN])
    more = len(found) - MERGED_SHOWN
    return f"merged from {shown}" + (f" and {more} more" if more > 0 else "")


def _with_heading(hit: Hit) -> str:
    """A field of MEMORY.md after the heading it stands under ("FACT-12 GitHub CLI logged out ›
    **Area**: tools"): indexed line by line, a key and a short value of a hand-written block say nothing
    of what they are of. A line of MEMORY.md's own sections is shown as it is, and so is a note's line,
    whose innermost heading is as often its day or hour."""
    heading = hit.entry.context.rsplit(CONTEXT_JOIN, 1)[-1].strip() if hit.entry.context else ""
    if hit.entry.kind != "memory" or not (heading and _FIELD.match(hit.text)) or heading in OWN_SECTIONS:
        return hit.text
    return f"{heading} › {hit.text}"


def stats_lines(stats: Mapping[str, object]) -> list[str]:
    sizes = stats["bytes_on_disk"]
    assert isinstance(sizes, dict)
    last = stats["last_indexed_at"]
    when = (
        datetime.fromtimestamp(float(last), UTC).isoformat(timespec="seconds")
        if isinstance(last, float)
        else "never"
    )
    lines = [
        f"Database: {stats['database']} (schema {stats['schema_version']})",
        f"Embedder: {stats['embedder'] or 'none yet'} ({stats['dimensions'] or '-'} dimensions)",
        f"Entries: {stats['entries']} ({stats['live']} live, {stats['soft_deleted']} soft-deleted); "
        f"embeddings: {stats['embeddings']}",
    ]
    for title, key in (("By source", "by_source"), ("By scope", "by_scope")):
        groups = stats[key]
        assert isinstance(groups, dict)
        parts = [
            f"{name} {counts['live']} live/{counts['soft_deleted']} deleted"
            for name, counts in groups.items()
        ]
        lines.append(f"{title}: {', '.join(parts) or 'none'}")
    reasons = stats["soft_deleted_by_reason"]
    if isinstance(reasons, dict) and reasons:
        lines.append("Soft-deleted by reason: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
    lines.append(f"Queries logged: {stats['queries_logged']}")
    lines.append(f"Last indexed: {when}")
    lines.append(f"Size on disk: {sizes.get('total', 0):,} bytes")
    return lines
