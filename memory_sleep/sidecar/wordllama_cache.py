"""WordLlama's tokenizer tables kept in the sidecar folder (memory/.sleep/wordllama-tokens.db), so
that a recall process looks up the few tokens and merges its query needs instead of parsing the
1.8 MB tokenizer file (~27 ms of every recall).

A SQLite file of three tables (vocab, merges, specials) and the identity of the tokenizer file it
was made from (resolved path, size, modification time) with this module's FORMAT. A file that
names another tokenizer file or format, or that does not read, is made again from the tokenizer
file, through atomic_write (a reader has the old file open or the new one, never a mix); a folder
that cannot be written parses the tokenizer file each time, as without a workspace.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from memory_sleep.sidecar.wordllama_tokens import BpeTokens, read_tables

FILE = "wordllama-tokens.db"
FORMAT = "1"


class StoredLookup:
    """One table of the file, each key read once (a query asks for the same pairs again and again)."""

    def __init__(self, db: sqlite3.Connection, table: str) -> None:
        self._db = db
        self._query = f"SELECT value FROM {table} WHERE key = ?"
        self._read: dict[str, int | None] = {}

    def get(self, key: str, /) -> int | None:
        if key not in self._read:
            row = self._db.execute(self._query, (key,)).fetchone()
            self._read[key] = None if row is None else int(row[0])
        return self._read[key]

    def __getitem__(self, key: str, /) -> int:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value


def cached_tokens(tokenizer_file: Path, folder: Path) -> BpeTokens:
    """The tokenizer file's reader, from the tables kept in `folder` while they are its own;
    ValueError (as `BpeTokens.from_file`) for a file this reader does not implement."""
    source = _identity(tokenizer_file)
    path = folder / FILE
    db = _open(path, source)
    if db is not None:
        specials = dict(db.execute("SELECT key, value FROM specials"))
        return BpeTokens(StoredLookup(db, "vocab"), StoredLookup(db, "merges"), specials)
    vocab, ranks, specials = read_tables(tokenizer_file)
    _save(path, source, {"vocab": vocab, "merges": ranks, "specials": specials})
    return BpeTokens(vocab, ranks, specials)


def _identity(tokenizer_file: Path) -> str:
    status = tokenizer_file.stat()
    return f"{FORMAT}\0{tokenizer_file.resolve()}\0{status.st_size}\0{status.st_mtime_ns}"


def _open(path: Path, source: str) -> sqlite3.Connection | None:
    """The kept tables when they are those of `source`; None when missing, stale or unreadable."""
    try:
        # immutable: never changed in place, only replaced whole by atomic_write; so no lock is taken
        db = sqlite3.connect(
            f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False
        )
    except sqlite3.Error:
        return None
    try:
        row = db.execute("SELECT value FROM source").fetchone()
        if row is not None and row[0] == source:
            return db
    except sqlite3.Error:  # missing (SQLite opened nothing) or damaged: made again
        pass
    db.close()
    return None


def _save(path: Path, source: str, tables: dict[str, dict[str, int]]) -> None:
    """Never an error: a folder that cannot be written parses the tokenizer file next time too."""
    from memory_sleep.workspace.atomic import atomic_write

    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE TABLE source (value TEXT NOT NULL)")
        db.execute("INSERT INTO source VALUES (?)", (source,))
        for table, rows in tables.items():
            db.execute(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID")
            db.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows.items())
        db.commit()
        data = db.serialize()
    finally:
        db.close()
    with contextlib.suppress(OSError):
        atomic_write(path, data)
