"""A recall reads the config as load_config validated it last, while the file is unchanged; any change
(an edit, a new or removed file, a broken one) is validated again, with load_config's own errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import load_config
from memory_sleep.errors import ConfigError
from memory_sleep.sidecar.settings import SAVED, RecallSettings, recall_settings
from memory_sleep.workspace.layout import Workspace
from tests.sidecar_helpers import make_workspace

EVERY_KEY_RECALL_READS = """\
max_note_bytes = 4096
[sidecar]
embedder = "offline"
dimensions = 128
scope = "raj"
candidates = 80
rrf_k = 30
half_life_days = 45
decay_floor = 0.25
timeout_secs = 10
[memory.gc.decay]
half_life_days = 14
recall_threshold = 0.3
"""


def _values(settings: RecallSettings) -> dict[str, object]:
    """Every value with its type: a float read back as an int would compare equal, and differ."""
    return {
        "sidecar": {key: (value, type(value)) for key, value in vars(settings.sidecar).items()},
        "decay": {key: (value, type(value)) for key, value in vars(settings.decay).items()},
        "max_note_bytes": (settings.max_note_bytes, type(settings.max_note_bytes)),
    }


def _validated(workspace: Workspace) -> dict[str, object]:
    config = load_config(workspace.config_file)
    return {
        "sidecar": {key: (value, type(value)) for key, value in config.sidecar.model_dump().items()},
        "decay": {key: (value, type(value)) for key, value in config.memory.gc.decay.model_dump().items()},
        "max_note_bytes": (config.max_note_bytes, int),
    }


@pytest.mark.parametrize("config", [None, "", EVERY_KEY_RECALL_READS])
def test_the_saved_settings_are_load_configs_values_and_types(tmp_path: Path, config: str | None) -> None:
    workspace = Workspace.open(make_workspace(tmp_path, {}))
    if config is not None:
        workspace.config_file.write_text(config, encoding="utf-8")
    first = recall_settings(workspace)  # validated, then saved
    assert (workspace.state_dir / SAVED).exists()
    again = recall_settings(workspace)  # read back
    assert not isinstance(again.sidecar, type(first.sidecar))
    assert _values(again) == _validated(workspace)


def test_a_config_edited_added_or_removed_since_is_honoured(tmp_path: Path) -> None:
    workspace = Workspace.open(make_workspace(tmp_path, {}))
    assert recall_settings(workspace).sidecar.candidates == 50
    workspace.config_file.write_text("[sidecar]\ncandidates = 80\n", encoding="utf-8")
    assert recall_settings(workspace).sidecar.candidates == 80
    workspace.config_file.write_text("[sidecar]\ncandidates = 70\n", encoding="utf-8")
    assert recall_settings(workspace).sidecar.candidates == 70
    workspace.config_file.unlink()
    assert recall_settings(workspace).sidecar.candidates == 50


@pytest.mark.parametrize(
    "broken",
    [
        "[sidecar]\ncandidates = 0\n",
        "[sidecar]\ncandidatez = 80\n",
        "[engine]\nnmae = 'openai'\n",  # a section recall never reads still fails it, as before
        "[sidecar\n",
        b"\xff\xfe",
    ],
)
def test_a_config_broken_since_fails_with_load_configs_error(tmp_path: Path, broken: str | bytes) -> None:
    workspace = Workspace.open(make_workspace(tmp_path, {}))
    recall_settings(workspace)
    data = broken.encode() if isinstance(broken, str) else broken
    workspace.config_file.write_bytes(data)
    with pytest.raises(ConfigError) as expected:
        load_config(workspace.config_file)
    for _ in range(2):  # and never saved as if it were valid
        with pytest.raises(ConfigError) as caught:
            recall_settings(workspace)
        assert str(caught.value) == str(expected.value)
    result = CliRunner().invoke(main, ["recall", "anything", str(workspace.root), "--dry-run"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {expected.value}\n"


def test_saved_settings_of_another_config_are_not_used(tmp_path: Path) -> None:
    workspace = Workspace.open(make_workspace(tmp_path, {}))
    recall_settings(workspace)
    saved = workspace.state_dir / SAVED
    record = json.loads(saved.read_text(encoding="utf-8"))
    saved.write_text(json.dumps(record | {"digest": "of another config.py"}), encoding="utf-8")
    assert recall_settings(workspace).sidecar.candidates == 50
    assert json.loads(saved.read_text(encoding="utf-8"))["digest"] == record["digest"]
    saved.write_text("{not json", encoding="utf-8")
    assert recall_settings(workspace).sidecar.candidates == 50


def test_a_dsn_is_never_copied_out_of_the_config(tmp_path: Path) -> None:
    workspace = Workspace.open(make_workspace(tmp_path, {}))
    workspace.config_file.write_text(
        '[sidecar]\ndsn = "postgresql://raj:secret@db/memory"\n', encoding="utf-8"
    )
    assert recall_settings(workspace).sidecar.dsn == "postgresql://raj:secret@db/memory"
    assert not (workspace.state_dir / SAVED).exists()


def test_recall_prints_the_same_from_saved_settings_and_imports_no_pydantic(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-21.md": "- Orion booth code is 4411\n- Raj owns the queue\n"})
    (folder / "memory-sleep.toml").write_text(
        "[sidecar]\nembedder = 'offline'\nrrf_k = 20\n", encoding="utf-8"
    )
    command = ["recall", "Orion booth code", str(folder), "--dry-run", "--json", "--today", "2026-11-25"]
    first = CliRunner().invoke(main, ["index", str(folder), "--today", "2026-11-25"])
    assert first.exit_code == 0, first.output
    probe = (
        "import json, sys\n"
        "from memory_sleep.cli.main import main\n"
        f"main({command!r}, standalone_mode=False)\n"
        "print(json.dumps('pydantic' in sys.modules))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True, text=True)]
    (folder / "memory" / ".sleep" / SAVED).unlink()
    runs.append(subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True, text=True))
    (saved_hits, saved_imports), (validated_hits, validated_imports) = (
        run.stdout.rsplit("\n", 2)[:2] for run in runs
    )
    assert "4411" in saved_hits
    assert saved_hits == validated_hits
    assert (json.loads(saved_imports), json.loads(validated_imports)) == (False, True)
