"""Shared fixtures; every test runs without network access."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config
from memory_sleep.cycle.runner import RunOptions, RunReport, run_cycle
from memory_sleep.engines.offline import offline_engine
from memory_sleep.workspace.layout import Workspace

pytest_plugins = ["tests.pg_fixtures", "tests.forget_helpers"]

REPO = Path(__file__).resolve().parent.parent
FIXTURE_WORKSPACE = REPO / "fixtures" / "workspace"
FIXTURE_TODAY = date(2026, 11, 25)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Refuse connections to anything but the loopback interface."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and host not in ("127.0.0.1", "::1", "localhost")
            and self.family != socket.AF_UNIX
        ):
            raise RuntimeError(f"tests must not use the network (tried {address!r})")
        return real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


@pytest.fixture(autouse=True)
def no_real_crontab(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`memory-sleep cron` and `doctor` use a file instead of the user's crontab in every test."""
    table = tmp_path_factory.mktemp("cron") / "crontab"
    monkeypatch.setenv("MEMORY_SLEEP_CRONTAB", str(table))
    return table


@pytest.fixture
def fixture_workspace(tmp_path: Path) -> Path:
    """A private copy of the bundled example workspace."""
    target = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, target)
    return target


def run_offline(
    folder: Path, today: date = FIXTURE_TODAY, config: Config | None = None, **options: object
) -> RunReport:
    """One offline run, as `memory-sleep run --today ... --engine offline` does it."""
    return run_cycle(
        Workspace.open(folder), config or Config(), offline_engine(), RunOptions(today=today, **options)
    )  # type: ignore[arg-type]


def snapshot_tree(folder: Path, skip_state: bool = True) -> dict[str, bytes]:
    """Every file under `folder` with its bytes (the tool's .sleep/ state left out by default)."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not (skip_state and ".sleep" in path.parts)
    }
