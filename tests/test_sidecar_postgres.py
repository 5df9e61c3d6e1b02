"""The Postgres store on a real server: many agents writing one database at once lose no update and
duplicate no entry; a database without pgvector, or without a connection string, says what to do."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.errors import StoreError
from memory_sleep.sidecar import OfflineEmbedder, open_sidecar
from memory_sleep.sidecar.pg.store import PgStore

from .conftest import FIXTURE_WORKSPACE
from .sidecar_helpers import NOW


def _config(dsn: str, scope: str) -> Config:
    return Config(sidecar=SidecarConfig(store="postgres", dsn=dsn, scope=scope))


def _index(folder: Path, dsn: str, scope: str) -> int:
    with open_sidecar(folder, _config(dsn, scope), OfflineEmbedder(), clock=lambda: NOW) as sidecar:
        return sidecar.index().added


@pytest.mark.slow  # eight indexers of four agents at once
def test_agents_indexing_at_once_lose_nothing_and_duplicate_nothing(tmp_path: Path, pg_dsn: str) -> None:
    folders = []
    for number in range(4):
        folders.append(tmp_path / f"agent-{number}")
        shutil.copytree(FIXTURE_WORKSPACE, folders[-1])
    # four agents, and each agent's indexer twice at once (two runs of one agent must queue)
    jobs = [(folder, f"agent-{number}") for number, folder in enumerate(folders)] * 2
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda job: _index(job[0], pg_dsn, job[1]), jobs))
    alone = tmp_path / "alone"
    shutil.copytree(FIXTURE_WORKSPACE, alone)
    with open_sidecar(alone, Config(), OfflineEmbedder(), clock=lambda: NOW) as sqlite:
        expected = sqlite.index().added
    store = PgStore.open(pg_dsn, "agent-0", 384)
    try:
        per_agent = dict(
            store.db.execute("SELECT namespace, count(*) FROM entries GROUP BY namespace").fetchall()
        )
        duplicates = store.db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM entries GROUP BY namespace, source_key, line_start,"
            " content_hash HAVING count(*) > 1) d"
        ).fetchone()[0]
    finally:
        store.close()
    assert duplicates == 0
    assert per_agent == {f"agent-{n}": expected for n in range(4)}  # as many as one SQLite index


def test_access_counts_from_many_connections_are_all_kept(tmp_path: Path, pg_dsn: str) -> None:
    folder = tmp_path / "agent"
    shutil.copytree(FIXTURE_WORKSPACE, folder)
    _index(folder, pg_dsn, "default")

    def recall(_: int) -> list[int]:
        with open_sidecar(
            folder, _config(pg_dsn, "default"), OfflineEmbedder(), clock=lambda: NOW
        ) as sidecar:
            return [hit.id for _ in range(5) for hit in sidecar.recall("billing cutover", k=3)]

    with ThreadPoolExecutor(max_workers=6) as pool:
        served = [entry_id for ids in pool.map(recall, range(6)) for entry_id in ids]
    store = PgStore.open(pg_dsn, "default", 384)
    try:
        counts = dict(
            store.db.execute("SELECT id, access_count FROM entries WHERE access_count > 0").fetchall()
        )
        logged = store.db.execute("SELECT count(*) FROM queries").fetchone()[0]
    finally:
        store.close()
    assert logged == 30
    assert counts == {entry_id: served.count(entry_id) for entry_id in set(served)}


def test_a_database_without_pgvector_names_the_extension_and_the_permission(pg_server: Any) -> None:
    import psycopg

    with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS no_vector")
        admin.execute("DROP ROLE IF EXISTS plain_agent")
        admin.execute("CREATE ROLE plain_agent LOGIN")
        admin.execute("CREATE DATABASE no_vector OWNER plain_agent")  # template1: no extension
    dsn = pg_server.get_uri("no_vector").replace("postgres:@", "plain_agent:@", 1)
    with pytest.raises(StoreError) as raised:
        PgStore.open(dsn, "default", 384)
    assert "pgvector extension ('vector')" in str(raised.value)
    assert "permission denied" in str(raised.value) and "CREATE EXTENSION vector" in str(raised.value)


def test_the_postgres_store_without_a_connection_string_says_where_to_give_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMORY_SLEEP_DSN", raising=False)
    folder = tmp_path / "agent"
    shutil.copytree(FIXTURE_WORKSPACE, folder)
    with pytest.raises(StoreError, match="MEMORY_SLEEP_DSN"):
        open_sidecar(folder, Config(sidecar=SidecarConfig(store="postgres")))


def test_migrate_doctor_and_stats_on_a_shared_database(
    tmp_path: Path, pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg
    from click.testing import CliRunner

    from memory_sleep.cli.main import main

    with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS fresh_fleet")
        admin.execute("CREATE DATABASE fresh_fleet")
    monkeypatch.setenv("MEMORY_SLEEP_DSN", pg_server.get_uri("fresh_fleet"))
    runner = CliRunner()
    for agent in ("agent-1", "agent-2"):
        folder = tmp_path / agent
        shutil.copytree(FIXTURE_WORKSPACE, folder)
        (folder / "memory-sleep.toml").write_text(
            f'[sidecar]\nstore = "postgres"\nscope = "{agent}"\nembedder = "offline"\n'
        )
    first = runner.invoke(main, ["migrate", str(tmp_path / "agent-1")])
    again = runner.invoke(main, ["migrate", str(tmp_path / "agent-2")])
    assert (
        first.exit_code == 0
        and "applied m001_schema, m002_realign_vectors, m003_values_key, entries_hnsw_384" in first.output
    ), first.output
    assert again.exit_code == 0 and again.output.endswith("up to date\n")
    doctor = runner.invoke(main, ["doctor", str(tmp_path / "agent-1")])
    assert "connected, pgvector 0.6" in doctor.output and "schema version 3" in doctor.output
    assert "indexes present (HNSW for 384 dimensions)" in doctor.output
    for agent in ("agent-1", "agent-2"):
        assert runner.invoke(main, ["index", str(tmp_path / agent)]).exit_code == 0
    stats = runner.invoke(main, ["stats", str(tmp_path / "agent-2"), "--json"])
    by_scope = json.loads(stats.output)["by_scope"]
    assert set(by_scope) == {"agent-1/agent-1", "agent-2/agent-2"}
    assert by_scope["agent-1/agent-1"] == by_scope["agent-2/agent-2"]
