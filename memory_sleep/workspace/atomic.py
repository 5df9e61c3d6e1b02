"""Files written so that a crash leaves the old or the new one, never a mix: a temporary file in the
same folder, fsynced, renamed over the old one, the folder fsynced. No pydantic, no manifests: the
recall path (a vector cache) writes through it without importing the safe writer."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes | Callable[[BinaryIO], object]) -> None:
    """Write `data` to `path` so that a crash leaves either the old or the new file, never a mix.

    `data` is the bytes, or a function that writes them to the open file (a large array, say).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as temp:
            if callable(data):
                data(temp)
            else:
                temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    fsync_dir(path.parent)


_TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # what atomic_write's mkstemp names


def sweep_temporary_files(root: Path, trees: Sequence[Path] = ()) -> list[Path]:
    """Delete atomic_write's leftovers (a process killed between mkstemp and rename) in the workspace's
    folders, and anywhere under `trees` (folders only memory-sleep writes, such as the snapshots)."""
    memory = root / "memory"
    deep = [folder for tree in trees if tree.is_dir() and not tree.is_symlink() for folder in _folders(tree)]
    folders = [
        root,
        memory,
        memory / "weekly",
        memory / "archive" / "daily",
        memory / ".sleep",
        memory / ".sleep" / "notes",
        *deep,
    ]
    removed = []
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in folder.glob(".*.tmp"):
            if _TEMPORARY.match(path.name) and path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def _folders(tree: Path) -> list[Path]:
    """`tree` and every folder under it, not through links."""
    return [tree, *(path for path in sorted(tree.rglob("*")) if path.is_dir() and not path.is_symlink())]


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
