"""Secrets the redaction rules learned to find after an entry was indexed.

The indexer redacts every item before it is stored, with the rules of its day, and never reads a file
whose bytes did not change again. So when the rules find more (`redact.RULES` names them), entries
indexed before may still hold a secret that only the note should keep: `stale_secrets` finds them,
live or soft-deleted, and says what each must become (the text the indexer would store now), for the
indexer to rewrite in place and then reclaim the old bytes.
"""

from __future__ import annotations

from memory_sleep.engines.redact import find_secrets, redact_at
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import EntryRow, NewEntry
from memory_sleep.sidecar.sources import SourceItem
from memory_sleep.sidecar.tokenize import fts_document

RULES_KEY = "redaction_rules"  # sidecar meta: the rules every stored entry has been redacted with
_SCAN = 5_000


def stale_secrets(store: SidecarStore) -> list[tuple[int, NewEntry]]:
    """(id, redacted entry) of every stored entry in which the current rules find a secret."""
    found: list[int] = []
    after = 0
    while chunk := store.scan_entries(after, _SCAN):
        after = chunk[-1][0]
        found.extend(entry_id for entry_id, _, _, text, _ in chunk if find_secrets(text))
    return [(row.id, _redacted(row)) for row in store.fetch(found).values()]


def _redacted(row: EntryRow) -> NewEntry:
    item = SourceItem(
        kind=row.kind,
        line_start=row.line_start,
        line_end=row.line_end,
        context=row.context,
        text=redact_at(row.text, row.source_path, row.line_start),
        day=None,
    )
    return NewEntry(
        source_key=row.source_key,
        source_path=row.source_path,
        kind=row.kind,
        line_start=row.line_start,
        line_end=row.line_end,
        context=row.context,
        text=item.text,
        content_hash=item.content_hash,
        day=row.day,
        scope=row.scope,
        importance=row.importance,
        expires_at=row.expires_at,
        tokens=fts_document(item.embed_text),
        discarded=bool(row.discarded),
    )
