"""Shared helpers for the sidecar tests: a fixed clock, small workspaces, and row counts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.sidecar import Embedder, OfflineEmbedder, Sidecar, Store, open_sidecar

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC).timestamp()
STORE: dict[str, str] = {}  # the `sidecar_store` fixture's choice: {} (SQLite) or store and dsn


def make_workspace(root: Path, notes: dict[str, str], memory: str = "# MEMORY.md\n") -> Path:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text(memory, encoding="utf-8")
    for name, text in notes.items():
        (root / "memory" / name).write_text(text, encoding="utf-8")
    return root


def open_at(folder: Path, embedder: Embedder | None = None, config: Config | None = None) -> Sidecar:
    return open_sidecar(
        folder, with_store(config or Config()), embedder or OfflineEmbedder(), clock=lambda: NOW
    )


def with_store(config: Config) -> Config:
    """`config` on the store the `sidecar_store` fixture chose."""
    return config.model_copy(update={"sidecar": config.sidecar.model_copy(update=STORE)}) if STORE else config


def rows(store: Store, where: str = "1 = 1") -> list[tuple[object, ...]]:
    return list(
        store.db.execute(
            f"SELECT id, source_key, text, deleted_reason FROM entries WHERE {where} ORDER BY id"
        )
    )
