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
        return self.connection.execute(_pg(sql), parameters)

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
    ensure_vector_extension(connection, dsn)
    register_vector(connection)
    return PgDb(connection)


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
