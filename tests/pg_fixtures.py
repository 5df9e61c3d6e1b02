"""A real Postgres with pgvector for the tests: one server per test session (per xdist worker), started
from the pgserver wheel in a temporary folder, and a fresh database per test copied from a migrated
template. `sidecar_store` runs a test on both stores."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_sleep.config import SidecarConfig

_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    pgserver = pytest.importorskip(
        "pgserver", reason="pgserver is not installed: pip install -e '.[dev]' to test the Postgres store"
    )
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed: pip install -e '.[dev]'")
    # a folder of our own, not pytest's numbered tmp dirs: another session's cleanup may remove those
    folder = Path(tempfile.mkdtemp(prefix="memory-sleep-pg-"))
    server = pgserver.get_server(folder / "data", cleanup_mode="stop")
    from memory_sleep.sidecar.pg.store import PgStore

    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        # a throwaway server: nothing it writes has to survive a crash, so it never waits for the disk
        # (each test's CREATE DATABASE and the shutdown's checkpoint took seconds, ~30 s at the end of a run)
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            admin.execute(f"ALTER SYSTEM SET {setting} = off")
        admin.execute("SELECT pg_reload_conf()")
        admin.execute("CREATE DATABASE memory_sleep_template")
    PgStore.open(server.get_uri("memory_sleep_template"), "default", 16).close()
    yield server
    # its data is thrown away: stop without the checkpoint a clean shutdown writes
    pgserver.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=server.pgdata, user=server.system_user)
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_dsn(pg_server: Any) -> str:
    """A new, migrated database of its own for this test."""
    import psycopg

    name = f"test_{next(_numbers)}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name} TEMPLATE memory_sleep_template")
    return str(pg_server.get_uri(name))


@pytest.fixture(params=["sqlite", "postgres"])
def sidecar_store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on SQLite, then on Postgres: `open_at` and `store_with` open the chosen store."""
    if request.param == "postgres" and request.node.get_closest_marker("sqlite_only"):
        pytest.skip("tests the SQLite store's own file, cache or FTS5 table")
    if request.param == "postgres":
        from memory_sleep.sidecar.pg.store import PgStore

        from . import sidecar_helpers, sleepgate_helpers

        dsn = request.getfixturevalue("pg_dsn")
        monkeypatch.setattr(sidecar_helpers, "STORE", {"store": "postgres", "dsn": dsn})
        monkeypatch.setattr(sleepgate_helpers, "DSN", dsn)
        opened: list[PgStore] = []
        real_open = PgStore.open.__func__  # type: ignore[attr-defined]

        def tracked(cls: type[PgStore], *args: Any) -> PgStore:
            store: PgStore = real_open(cls, *args)
            opened.append(store)
            return store

        monkeypatch.setattr(PgStore, "open", classmethod(tracked))
        request.addfinalizer(lambda: [store.close() for store in opened])  # tests leave some open
    return str(request.param)


def postgres_settings(dsn: str, scope: str = "default") -> SidecarConfig:
    return SidecarConfig(store="postgres", dsn=dsn, scope=scope)
