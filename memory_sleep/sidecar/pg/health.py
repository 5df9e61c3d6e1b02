"""What `doctor` checks on a Postgres sidecar (the connection, pgvector, the schema version, the
indexes) and what `migrate` does: plain findings, so the CLI stays free of SQL."""

from __future__ import annotations

from collections.abc import Iterator

from memory_sleep.errors import StoreError
from memory_sleep.sidecar.pg.connect import connect, shown
from memory_sleep.sidecar.pg.migrations import MIGRATIONS, migrate, missing
from memory_sleep.sidecar.pg.store import ensure_hnsw, hnsw_index_name

Finding = tuple[str, str, str | None]  # level (ok, warn, fail), message, fix
INDEXES = ("entries_by_source", "entries_live", "entries_tokens", "query_results_by_entry")


def findings(dsn: str, dimensions: int) -> Iterator[Finding]:
    where = shown(dsn)
    try:
        db = connect(dsn)  # also checks (or creates) the extension
    except StoreError as error:
        yield "fail", str(error), None
        return
    try:
        version = db.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
        yield "ok", f"{where}: connected, pgvector {version}", None
        lacking = missing(db, where)
        if lacking:
            yield (
                "fail",
                f"schema version {len(MIGRATIONS) - len(lacking)} of {len(MIGRATIONS)}",
                ("`memory-sleep migrate` (any agent may run it; the others wait for it)"),
            )
            return
        yield "ok", f"schema version {len(MIGRATIONS)}", None
        present = {
            name for (name,) in db.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'entries'")
        }
        present |= {
            name
            for (name,) in db.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'query_results'")
        }
        absent = [name for name in (*INDEXES, hnsw_index_name(dimensions)) if name not in present]
        if absent:
            yield "fail", f"missing indexes: {', '.join(absent)}", "`memory-sleep migrate`"
        else:
            yield "ok", f"indexes present (HNSW for {dimensions} dimensions)", None
    finally:
        db.close()


def upgrade(dsn: str, dimensions: int) -> list[str]:
    """Apply the missing migrations and make the vector index; the names of what was done."""
    db = connect(dsn)
    try:
        done = migrate(db, shown(dsn))
        had = db.execute(
            "SELECT 1 FROM pg_indexes WHERE indexname = ?", (hnsw_index_name(dimensions),)
        ).fetchone()
        ensure_hnsw(db, dimensions)
        return [*done, *([] if had else [hnsw_index_name(dimensions)])]
    finally:
        db.close()
