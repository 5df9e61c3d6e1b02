"""The settings a recall reads, without importing pydantic when memory-sleep.toml has not changed.

An agent runs `memory-sleep recall` once a question, and importing pydantic to validate the config
cost each process ~90 ms, more than the search. So the config is validated by load_config (the
pydantic models, their defaults and their errors) as for every verb, and the sections a recall uses
are saved, as validated, in memory/.sleep/recall-config.json with a digest of the config file and of
config.py. A later recall whose digest is the same reads them back; a config edited, added, removed
or broken since, or a new version of config.py, goes through load_config again (with its errors).
A config with a `[sidecar] dsn` (it may hold a password) is validated each time, never copied.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from memory_sleep.config import Config, DecayConfig, SidecarConfig
    from memory_sleep.workspace.layout import Workspace

SAVED = "recall-config.json"


@dataclass(frozen=True)
class RecallSettings:
    """What a recall needs of the config: `[sidecar]`, `[memory.gc.decay]` and max_note_bytes."""

    sidecar: SidecarConfig
    decay: DecayConfig
    max_note_bytes: int

    @classmethod
    def of(cls, config: Config) -> RecallSettings:
        return cls(config.sidecar, config.memory.gc.decay, config.max_note_bytes)


def recall_settings(workspace: Workspace) -> RecallSettings:
    """The workspace's settings: those saved when the config was last validated, while it is unchanged."""
    path = workspace.state_dir / SAVED
    digest = _digest(workspace.config_file)
    saved = _read(path, digest) if digest else None
    if saved is not None:
        return saved
    from memory_sleep.config import load_config

    config = load_config(workspace.config_file)
    # what was validated is what was hashed; a dsn may hold a password: never copied out of the config
    if digest and _digest(workspace.config_file) == digest and config.sidecar.dsn is None:
        _save(workspace, path, digest, config)
    return RecallSettings.of(config)


def _digest(config_file: Path) -> str | None:
    """Of config.py (its keys, defaults and checks) and of the config file's bytes, or of its absence;
    None when a file cannot be read (load_config then says why)."""
    try:
        digest = hashlib.sha256(Path(__file__).parents[1].joinpath("config.py").read_bytes())
        try:
            digest.update(b"file\0" + config_file.read_bytes())
        except FileNotFoundError:
            digest.update(b"no file")
    except OSError:
        return None
    return digest.hexdigest()


def _read(path: Path, digest: str) -> RecallSettings | None:
    try:
        saved = json.loads(path.read_bytes())
        if saved["digest"] != digest:
            return None
        return RecallSettings(
            cast("SidecarConfig", SimpleNamespace(**saved["sidecar"])),
            cast("DecayConfig", SimpleNamespace(**saved["decay"])),
            saved["max_note_bytes"],
        )
    except (OSError, ValueError, KeyError, TypeError):  # none saved yet, or damaged: validate again
        return None


def _save(workspace: Workspace, path: Path, digest: str, config: Config) -> None:
    """Through the one writer; never an error (a read-only workspace validates each time)."""
    from memory_sleep.errors import WorkspaceError
    from memory_sleep.workspace.atomic import atomic_write

    saved = {
        "digest": digest,
        "sidecar": config.sidecar.model_dump(),
        "decay": config.memory.gc.decay.model_dump(),
        "max_note_bytes": config.max_note_bytes,
    }
    try:
        workspace.check_state_dir()  # never written through a linked folder
        atomic_write(path, json.dumps(saved, indent=1).encode())
    except (OSError, WorkspaceError):
        pass
