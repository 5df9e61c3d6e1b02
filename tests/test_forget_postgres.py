"""forget-scope and purge on the Postgres store: the scope's rows, vectors, terms and queries leave
the agent's namespace for good; other agents' namespaces are untouched."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.forget import forget_scope, purge
from memory_sleep.sidecar.pg.store import PgStore

from .conftest import FIXTURE_WORKSPACE
from .forget_helpers import holding, two_scope_workspace

LATER = datetime(2027, 3, 10, 12, tzinfo=UTC).timestamp()


def _config(dsn: str, agent: str) -> Config:
    return Config(sidecar=SidecarConfig(store="postgres", dsn=dsn, scope=agent, embedder="offline"))


def _count(dsn: str, sql: str, *parameters: object) -> int:
    store = PgStore.open(dsn, "x", 384)
    try:
        return int(store.db.execute(sql, parameters).fetchone()[0])
    finally:
        store.close()


@pytest.mark.slow  # four runs and two agents on a real server
def test_forget_scope_and_purge_on_postgres(tmp_path: Path, pg_dsn: str) -> None:
    folder = tmp_path / "agent-1"
    shutil.copytree(FIXTURE_WORKSPACE, folder)
    two_scope_workspace(folder, _config(pg_dsn, "agent-1"))
    other = tmp_path / "agent-2"
    shutil.copytree(FIXTURE_WORKSPACE, other)
    two_scope_workspace(other, _config(pg_dsn, "agent-2"))
    zorbleck = "SELECT count(*) FROM entries WHERE namespace = ? AND text LIKE '%Zorbleck%'"
    assert _count(pg_dsn, zorbleck, "agent-1") >= 6

    report = forget_scope(folder, "alice", config=_config(pg_dsn, "agent-1"))

    assert report.traces == [] and holding(folder) == {}
    assert _count(pg_dsn, zorbleck, "agent-1") == 0
    assert (
        _count(pg_dsn, "SELECT count(*) FROM entries WHERE namespace = ? AND scope = 'alice'", "agent-1") == 0
    )
    assert (
        _count(pg_dsn, "SELECT count(*) FROM fts_terms WHERE namespace = ? AND term = 'zorbleck'", "agent-1")
        == 0
    )
    assert _count(pg_dsn, zorbleck, "agent-2") >= 6  # another agent's alice is its own

    # purge: a note deleted (its items soft-deleted now) is gone for good 90 days later
    (other / "memory" / "2026-11-20-export.md").unlink()
    from memory_sleep.sidecar import open_sidecar

    with open_sidecar(other, _config(pg_dsn, "agent-2")) as sidecar:
        assert sidecar.index().removed >= 1
    fennimore = "SELECT count(*) FROM entries WHERE namespace = ? AND text LIKE '%Fennimore%'"
    assert _count(pg_dsn, fennimore, "agent-2") >= 1
    purged = purge(other, 90, config=_config(pg_dsn, "agent-2"), clock=lambda: LATER)
    assert purged.removed["sidecar_entries"] >= 1
    assert (
        _count(
            pg_dsn, "SELECT count(*) FROM entries WHERE namespace = ? AND deleted_at IS NOT NULL", "agent-2"
        )
        == 0
    )
