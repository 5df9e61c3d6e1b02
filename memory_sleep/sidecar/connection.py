"""An open sidecar database connection: write transactions, the meta table and the store generation."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from memory_sleep.errors import StoreError


class Connection:
    """The database, its path, and why it cannot be written (None when it can)."""

    def __init__(self, db: sqlite3.Connection, path: str, read_only: str | None = None) -> None:
        self.db = db
        self.path = path
        self.read_only = read_only  # why nothing can be written, or None

    def close(self) -> None:
        self.db.close()

    def require_writable(self) -> None:
        if self.read_only is not None:
            raise StoreError(
                f"{self.path}: cannot write the sidecar: {self.read_only}; nothing was changed. Make it "
                "writable (mount it read-write, or run as the user who owns it) and rerun; "
                "`memory-sleep recall` still searches it, unlogged."
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; BEGIN IMMEDIATE so two indexers queue instead of interleaving."""
        self.require_writable()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # meta

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.require_writable()
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_meta(self, key: str) -> None:
        self.require_writable()
        self.db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def meta_keys(self, prefix: str) -> list[str]:
        """The meta keys starting with `prefix`, sorted."""
        rows = self.db.execute(
            "SELECT key FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key", (len(prefix), prefix)
        )
        return [str(key) for (key,) in rows]

    def generation(self) -> int:
        """A counter bumped whenever the set of live vectors changes; derived caches compare it."""
        return int(self.meta("generation") or 0)

    def bump_generation(self) -> int:
        generation = self.generation() + 1
        self.set_meta("generation", str(generation))
        return generation

    def schema_version(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(number), 0) FROM schema_migrations").fetchone()[0])
