"""A fixture workspace with two scopes beside the default one, for the forgetting tests."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config, SidecarConfig

from .conftest import FIXTURE_TODAY, FIXTURE_WORKSPACE, run_offline

OFFLINE = Config(sidecar=SidecarConfig(embedder="offline"))
# words that appear nowhere but in alice's notes
ALICE_WORDS = ("Zorbleck", "quokkavault", "Priyanka", "7700 900123", "Fennimore")
SHARED = "Standup moves to 09:30 on Tuesdays for the whole platform team."
ALICE_NOTES = {
    "2026-11-10-ledger.md": f"""---
scope: alice
---
# Ledger

## Decisions
- Decided: Alice keeps the Zorbleck ledger in the quokkavault bucket, not Drive (legal asked).
- Alice's number for the Zorbleck escalations is +44 7700 900123.
- {SHARED}

## Actions
- [ ] Alice sends the Zorbleck ledger audit to Priyanka by 2026-11-27
""",
    "2026-11-20-export.md": """---
scope: alice
---
- Lesson: the quokkavault export times out above 40k rows; page it by 10k (Fennimore found it).
""",
}
BOB_NOTE = f"""---
scope: bob
---
- {SHARED}
- Bob moves the Halvorsen backups to the cold tier on Fridays.
"""


def two_scope_workspace(folder: Path, config: Config = OFFLINE) -> Path:
    """The fixture workspace (copied to `folder`) with alice's and bob's notes, the offline embedder,
    and two runs: the second one's snapshot holds MEMORY.md with alice's entries in it."""
    (folder / "memory-sleep.toml").write_text('[sidecar]\nembedder = "offline"\n', encoding="utf-8")
    for name, text in ALICE_NOTES.items():
        (folder / "memory" / name).write_text(text, encoding="utf-8")
    (folder / "memory" / "2026-11-12-bob.md").write_text(BOB_NOTE, encoding="utf-8")
    run_offline(folder, config=config)
    (folder / "memory" / "2026-11-25.md").write_text(
        "# 2026-11-25\n- Decided: the Atlas cutover dry run happens on 2026-12-01.\n", encoding="utf-8"
    )
    run_offline(folder, date(2026, 11, 26), config=config)
    return folder


@pytest.fixture(scope="session")
def built_two_scopes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("two-scopes") / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, folder)
    return two_scope_workspace(folder)


@pytest.fixture
def workspace(built_two_scopes: Path, tmp_path: Path) -> Path:
    """A private copy of the two-scope workspace, built once per session."""
    return Path(shutil.copytree(built_two_scopes, tmp_path / "workspace"))


def holding(folder: Path, words: tuple[str, ...] = ALICE_WORDS) -> dict[str, list[str]]:
    """Every file under `folder` (the database, its WAL, caches and snapshots included) holding any of
    `words`, with the words it holds."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            held = [word for word in words if word.encode() in data]
            if held:
                found[path.relative_to(folder).as_posix()] = held
    return found


def erasures(folder: Path) -> list[dict[str, object]]:
    log = json.loads((folder / "memory" / "sleep-log.json").read_text(encoding="utf-8"))
    return log["erasures"]  # type: ignore[no-any-return]


__all__ = ["FIXTURE_TODAY"]
