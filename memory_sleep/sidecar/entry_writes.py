"""Writes to the sidecar's entries: insert, rewrite, move, soft-delete, restore, re-embed, and validity;
each bumps the store generation when the set of live vectors changes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from memory_sleep.sidecar.connection import Connection
from memory_sleep.sidecar.rows import STORED_ENDINGS, NewEntry, Vectors, to_blob, validity_writes


class EntryWrites(Connection):
    """The entry-writing half of the store."""

    def _stamp(self, ids: Sequence[int]) -> None:
        """Record that these entries' vectors (or liveness) changed, at a new generation."""
        if not ids:
            return
        generation = self.bump_generation()
        self.db.executemany(
            "UPDATE entries SET vector_generation = ? WHERE id = ?",
            [(generation, entry_id) for entry_id in ids],
        )

    def insert_entries(
        self, entries: Sequence[NewEntry], vectors: Vectors, embedder: str, now: float
    ) -> list[int]:
        if not entries:
            return []
        first = int(self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0])
        ids = list(range(first, first + len(entries)))
        # in slices, so the BLOBs of a 100k-entry build are never all in memory twice
        for start in range(0, len(entries), 1_000):
            self._insert_slice(
                ids[start : start + 1_000],
                entries[start : start + 1_000],
                vectors[start : start + 1_000],
                embedder,
                now,
            )
        self._stamp(ids)
        return ids

    def _insert_slice(
        self, ids: Sequence[int], entries: Sequence[NewEntry], vectors: Vectors, embedder: str, now: float
    ) -> None:
        self.db.executemany(
            "INSERT INTO entries (id, source_key, source_path, kind, line_start, line_end, context, text,"
            " content_hash, day, scope, importance, created_at, updated_at, expires_at, values_key, embedder,"
            " dim, embedding, discarded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    entry_id,
                    *entry.columns(now),
                    embedder,
                    len(vector),
                    to_blob(vector),
                    entry.discarded,
                )
                for entry_id, entry, vector in zip(ids, entries, vectors, strict=True)
            ],
        )
        self._index_texts([(entry_id, entry.tokens) for entry_id, entry in zip(ids, entries, strict=True)])

    def rewrite_entries(
        self, pairs: Sequence[tuple[int, NewEntry]], vectors: Vectors, embedder: str, now: float
    ) -> None:
        """Replace the text (and so the embedding) of existing entries, keeping their id and history."""
        for (entry_id, entry), vector in zip(pairs, vectors, strict=True):
            self.db.execute(
                "UPDATE entries SET source_path = ?, line_start = ?, line_end = ?, context = ?, text = ?,"
                " content_hash = ?, day = ?, scope = ?, expires_at = ?, updated_at = ?, values_key = ?,"
                " embedder = ?, dim = ?, embedding = ?, discarded = ? WHERE id = ?",
                (
                    *entry.rewritten(now),
                    embedder,
                    len(vector),
                    to_blob(vector),
                    entry.discarded,
                    entry_id,
                ),
            )
            self._unindex_text(entry_id)
            self._index_texts([(entry_id, entry.tokens)])
        self._stamp([entry_id for entry_id, _ in pairs])

    def _index_texts(self, texts: Sequence[tuple[int, str]]) -> None:
        """Add entries to the full-text index and their distinct terms to the document counts."""
        self.db.executemany("INSERT INTO entries_fts (rowid, tokens) VALUES (?, ?)", texts)
        counts = Counter(term for _, tokens in texts for term in set(tokens.split()))
        self.db.executemany(
            "INSERT INTO fts_terms (term, docs) VALUES (?, ?)"
            " ON CONFLICT (term) DO UPDATE SET docs = docs + excluded.docs",
            counts.items(),
        )

    def _unindex_text(self, entry_id: int) -> None:
        row = self.db.execute("SELECT tokens FROM entries_fts WHERE rowid = ?", (entry_id,)).fetchone()
        if row is None:
            return
        self.db.execute("DELETE FROM entries_fts WHERE rowid = ?", (entry_id,))
        self.db.executemany(
            "UPDATE fts_terms SET docs = docs - 1 WHERE term = ?", [(term,) for term in set(row[0].split())]
        )

    def move_entry(self, entry_id: int, path: str, line_start: int, line_end: int) -> None:
        """Same text, new place (lines shifted or the file moved): no re-embedding."""
        self.db.execute(
            "UPDATE entries SET source_path = ?, line_start = ?, line_end = ? WHERE id = ?",
            (path, line_start, line_end, entry_id),
        )

    def soft_delete(self, ids: Sequence[int], reason: str, now: float, pass_id: str | None = None) -> int:
        """Mark live entries deleted (text and embedding kept, restorable); returns how many changed."""
        changed = 0
        for entry_id in ids:
            cursor = self.db.execute(
                "UPDATE entries SET deleted_at = ?, deleted_reason = ?, deleted_pass = ?"
                " WHERE id = ? AND deleted_at IS NULL",
                (now, reason, pass_id, entry_id),
            )
            changed += cursor.rowcount
        if changed:
            self._stamp(ids)
        return changed

    def restore(self, ids: Sequence[int]) -> int:
        """Bring soft-deleted entries back exactly as they were."""
        changed = 0
        for entry_id in ids:
            cursor = self.db.execute(
                "UPDATE entries SET deleted_at = NULL, deleted_reason = NULL, deleted_pass = NULL"
                " WHERE id = ? AND deleted_at IS NOT NULL",
                (entry_id,),
            )
            changed += cursor.rowcount
        if changed:
            self._stamp(ids)
        return changed

    def set_embeddings(self, ids: Sequence[int], vectors: Vectors, embedder: str) -> None:
        self.db.executemany(
            "UPDATE entries SET embedder = ?, dim = ?, embedding = ? WHERE id = ?",
            [
                (embedder, len(vector), to_blob(vector), entry_id)
                for entry_id, vector in zip(ids, vectors, strict=True)
            ],
        )
        self._stamp(ids)

    def set_validity(self, endings: Mapping[int, tuple[str, str, str | None]]) -> None:
        """Make `endings` (id: valid_to, status, ended_by) the only entries that stopped being true;
        validity is derived from the files, so every other entry is valid again (an undone run)."""
        stored = self.db.execute(f"{STORED_ENDINGS} WHERE status IS NOT NULL")
        cleared, changed = validity_writes(stored, endings)
        self.db.executemany(
            "UPDATE entries SET valid_to = NULL, status = NULL, ended_by = NULL WHERE id = ?", cleared
        )
        self.db.executemany("UPDATE entries SET valid_to = ?, status = ?, ended_by = ? WHERE id = ?", changed)
