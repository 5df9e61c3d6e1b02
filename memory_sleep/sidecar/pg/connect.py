"""Connecting to Postgres: the DSN, the pgvector extension, and a qmark adapter over psycopg so the
SQL both stores share is written once."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from memory_sleep.errors import StoreError

if TYPE_CHECKING:
    import psycopg

DSN_ENV = "MEMORY_SLEEP_DSN"


def resolve_dsn(configured: str | None) -> str:
    dsn = os.environ.get(DSN_ENV) or configured
    if not dsn:
        raise StoreError(
            f'[sidecar] store = "postgres" needs a connection string: set dsn = "postgresql://user@host/db" '
            f"under [sidecar] in memory-sleep.toml, or {DSN_ENV}."
        )
    return dsn


def shown(dsn: str) -> str:
    """The DSN without its password, for messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", re.sub(r"password=\S+", "password=***", dsn))


@functools.lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class PgDb:
    """A psycopg connection taking the qmark (`?`) parameters sqlite3 takes."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.connection.execute(_pg(sql), parameters, binary=True)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Any:
        cursor = self.connection.cursor()
        rows = list(parameters)
        if rows:
            cursor.executemany(_pg(sql), rows)
        return cursor

    def close(self) -> None:
        self.connection.close()


def connect(dsn: str) -> PgDb:
    """An autocommit connection (transactions are explicit) with pgvector's types registered;
    errors say which extension or permission is missing."""
    try:
        import psycopg
        from pgvector.psycopg import register_vector
    except ImportError:
        raise StoreError(
            "[sidecar] store = \"postgres\" needs psycopg and pgvector: pip install 'memory-sleep[postgres]'."
        ) from None
    try:
        connection = psycopg.connect(dsn, autocommit=True)
    except psycopg.Error as error:
        raise StoreError(
            f"{shown(dsn)}: cannot connect to Postgres ({str(error).strip()}). Check the host, the "
            f"user and the database in the connection string (dsn under [sidecar], or {DSN_ENV})."
        ) from None
    try:
        ensure_vector_extension(connection, dsn)
    except StoreError:
        connection.close()
        raise
    register_vector(connection)
    _read_vectors_as_blobs(connection)
    return PgDb(connection)


def _read_vectors_as_blobs(connection: psycopg.Connection[Any]) -> None:
    """Read `vector` values as the little-endian float32 bytes SQLite stores, so the code that reads
    embeddings (vector index, SleepGate) reads both stores alike; numpy arrays are still written."""
    import numpy as np
    from psycopg.adapt import Loader
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    class BinaryBlob(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:  # int16 dimensions, int16 unused, big-endian float32s
            return np.frombuffer(bytes(data)[4:], dtype=">f4").astype("<f4").tobytes()

    class TextBlob(Loader):
        format = Format.TEXT

        def load(self, data: Any) -> bytes:
            return np.array(bytes(data).decode()[1:-1].split(","), dtype="<f4").tobytes()

    info = TypeInfo.fetch(connection, "vector")
    assert info is not None  # the extension was just checked
    connection.adapters.register_loader(info.oid, BinaryBlob)
    connection.adapters.register_loader(info.oid, TextBlob)


def ensure_vector_extension(connection: psycopg.Connection[Any], dsn: str) -> None:
    import psycopg

    if connection.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    try:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege:
        raise StoreError(
            f"{shown(dsn)}: the database lacks the pgvector extension ('vector') and this user may not "
            "create it (permission denied). Ask an administrator to run `CREATE EXTENSION vector;` "
            "in this database, then rerun."
        ) from None
    except psycopg.Error as error:
        raise StoreError(
            f"{shown(dsn)}: the database lacks the pgvector extension ('vector') and the server cannot "
            f"create it ({str(error).strip()}). Install pgvector on the server (e.g. the "
            "postgresql-16-pgvector package), then rerun `memory-sleep migrate`."
        ) from None
