"""Recall is fast as a whole process (it imports only what a query needs) and warm in the MCP server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memory_sleep.cli.mcp_server import WarmRecall
from memory_sleep.config import Config
from memory_sleep.workspace.layout import Workspace
from tests.sidecar_helpers import make_workspace, open_at

NOT_FOR_RECALL = (
    "memory_sleep.cycle.runner",
    "memory_sleep.engines.offline",
    "memory_sleep.sidecar.index",
    "memory_sleep.workspace.notes",
    "markdown_it",
    "rich",
    "anthropic",
    "openai",
    "mcp",
)


def test_the_recall_verb_imports_neither_the_cycle_nor_the_indexer_nor_sdks() -> None:
    probe = (
        "import json, sys\n"
        "from memory_sleep.cli.main import main\n"
        "from memory_sleep.sidecar import display\n"
        "from memory_sleep.sidecar.recall import open_sidecar\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True).stdout)
    assert [name for name in NOT_FOR_RECALL if name in loaded] == []


def test_the_mcp_recall_keeps_one_sidecar_open_and_sees_what_a_run_indexes_later(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": "- Orion staging server IP is 10.0.0.5\n"})
    workspace = Workspace.open(folder)
    warm = WarmRecall()
    try:
        first = warm(workspace, "Orion staging server IP", 3, None)
        sidecar = warm._sidecar
        (folder / "memory" / "2026-11-21.md").write_text("- Orion booth code is 4411\n", encoding="utf-8")
        with open_at(folder, config=Config()) as other:  # a nightly run indexing in another process
            other.index()
        later = warm(workspace, "Orion booth code", 3, None)
        assert warm._sidecar is sidecar
    finally:
        warm.close()
    assert "10.0.0.5" in str(first[0]["text"])
    assert "4411" in str(later[0]["text"])
