"""What the sidecar holds: totals, soft-deleted, by source kind and scope (on Postgres, by agent
namespace and scope, across the shared database), queries logged, size on disk."""

from __future__ import annotations

from pathlib import Path

from memory_sleep.sidecar.boundary import SidecarStore


def sidecar_stats(store: SidecarStore, folder: Path | None) -> dict[str, object]:
    db = store.db
    total, deleted = db.execute("SELECT count(*), count(deleted_at) FROM entries").fetchone()
    by_kind = {
        kind: {"live": live, "soft_deleted": gone}
        for kind, live, gone in db.execute(
            "SELECT kind, count(*) - count(deleted_at), count(deleted_at) FROM entries GROUP BY kind ORDER BY kind"
        )
    }
    by_scope = {
        scope: {"live": live, "soft_deleted": gone}
        for scope, live, gone in db.execute(
            "SELECT scope, count(*) - count(deleted_at), count(deleted_at) FROM entries GROUP BY scope ORDER BY scope"
        )
    }
    deleted_by_reason = dict(
        db.execute(
            "SELECT deleted_reason, count(*) FROM entries WHERE deleted_at IS NOT NULL"
            " GROUP BY deleted_reason ORDER BY deleted_reason"
        ).fetchall()
    )
    if store.namespace is not None:  # a shared database: every agent's part of it
        by_scope = {
            f"{namespace}/{scope}": {"live": live, "soft_deleted": gone}
            for namespace, scope, live, gone in db.execute(
                "SELECT namespace, scope, count(*) - count(deleted_at), count(deleted_at) FROM entries"
                " GROUP BY namespace, scope ORDER BY namespace, scope"
            )
        }
    queries = db.execute("SELECT count(*) FROM queries").fetchone()[0]
    sizes = _sizes(store, folder)
    return {
        "database": store.path,
        "schema_version": store.schema_version(),
        "embedder": store.meta("embedder"),
        "dimensions": int(store.meta("dimensions") or 0) or None,
        "entries": total,
        "embeddings": db.execute("SELECT count(*) FROM entries WHERE embedding IS NOT NULL").fetchone()[0],
        "live": total - deleted,
        "soft_deleted": deleted,
        "soft_deleted_by_reason": deleted_by_reason,
        "by_source": by_kind,
        "by_scope": by_scope,
        "sources": db.execute("SELECT count(*) FROM sources").fetchone()[0],
        "queries_logged": queries,
        "last_indexed_at": float(store.meta("last_indexed_at") or 0) or None,
        "bytes_on_disk": sizes,
    }


def _sizes(store: SidecarStore, folder: Path | None) -> dict[str, int]:
    sizes: dict[str, int] = {}
    if store.path != ":memory:":
        for suffix in ("", "-wal", "-shm"):
            path = Path(store.path + suffix)
            if path.exists():
                sizes[path.name] = path.stat().st_size
    if folder is not None and folder.is_dir():
        for path in sorted(folder.glob("sidecar-vectors-*")):
            sizes[path.name] = path.stat().st_size
    sizes["total"] = sum(sizes.values())
    return sizes
