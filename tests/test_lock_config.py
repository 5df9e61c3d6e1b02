"""The workspace lock, and memory-sleep.toml loading."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_sleep.config import KEYS_HINT, Config, load_config
from memory_sleep.errors import ConfigError, LockedError
from memory_sleep.workspace.lock import workspace_lock

# ---- lock -------------------------------------------------------------------------------------


def test_second_acquisition_times_out_naming_the_holder(tmp_path: Path) -> None:
    state_dir = tmp_path / "memory" / ".sleep"
    with workspace_lock(state_dir, timeout=0):
        holder = json.loads((state_dir / "lock.holder").read_text())
        assert holder["pid"] == os.getpid()
        started = time.monotonic()
        with pytest.raises(LockedError) as caught, workspace_lock(state_dir, timeout=0.05):
            pass
        assert time.monotonic() - started < 2
    message = str(caught.value)
    assert message.startswith(f"Another memory-sleep run holds {state_dir / 'lock'} (pid {os.getpid()} on ")
    assert message.endswith(
        "Wait for it to finish and rerun (`run` and `index` take --wait SECONDS; "
        "lock_timeout_secs in memory-sleep.toml sets how long every command waits)."
    )
    with workspace_lock(state_dir, timeout=0):
        pass


def test_lock_is_released_when_the_body_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), workspace_lock(tmp_path, timeout=0):
        raise RuntimeError("boom")
    with workspace_lock(tmp_path, timeout=0):
        pass


def test_lock_held_by_a_killed_process_is_recovered_at_once(tmp_path: Path) -> None:
    script = (
        "import sys, time; from pathlib import Path; from memory_sleep.workspace.lock import workspace_lock\n"
        "with workspace_lock(Path(sys.argv[1]), timeout=0):\n"
        "    print('locked', flush=True)\n"
        "    time.sleep(60)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(LockedError, match=f"pid {holder.pid} on "), workspace_lock(tmp_path, timeout=0):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        holder.stdout.close()  # type: ignore[union-attr]
    started = time.monotonic()
    with workspace_lock(tmp_path, timeout=0):
        assert json.loads((tmp_path / "lock.holder").read_text())["pid"] == os.getpid()
    assert time.monotonic() - started < 1


# ---- config -----------------------------------------------------------------------------------


def test_missing_optional_file_gives_the_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "memory-sleep.toml")
    assert config == Config()
    assert (config.lookback_days, config.stale_after_days, config.archive_after_days) == (3, 30, 7)
    assert config.briefing_max_bytes == 2048
    assert config.engine.name == "auto"
    forgetting = config.memory.forgetting
    assert (forgetting.enabled, forgetting.interval_secs, forgetting.retention_threshold) == (
        True,
        86_400,
        0.30,
    )


def test_missing_required_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(path, required=True)
    assert str(caught.value) == f"{path}: no such config file. Check the --config path."


def test_valid_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "memory-sleep.toml"
    path.write_text(
        "lookback_days = 5\nbriefing_max_bytes = 1024\n\n"
        '[engine]\nname = "openai"\nbase_url = "http://127.0.0.1:11434/v1"\nmodel = "llama3"\n\n'
        "[memory.forgetting]\nenabled = false\ninterval_secs = 3600\nretention_threshold = 0.5\n"
    )
    config = load_config(path, required=True)
    assert config.lookback_days == 5
    assert config.briefing_max_bytes == 1024
    assert config.stale_after_days == 30
    assert (config.engine.name, config.engine.base_url, config.engine.model) == (
        "openai",
        "http://127.0.0.1:11434/v1",
        "llama3",
    )
    forgetting = config.memory.forgetting
    assert (forgetting.enabled, forgetting.interval_secs, forgetting.retention_threshold) == (
        False,
        3600,
        0.5,
    )


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("lookback_dayz = 5\n", "lookback_dayz: unknown key (did you mean lookback_days?)"),
        ("[engine]\nnmae = 'openai'\n", "engine.nmae: unknown key (did you mean name?)"),
        (
            "[memory.forgetting]\ninterval = 5\n",
            "memory.forgetting.interval: unknown key (did you mean interval_secs?)",
        ),
        (
            "[schedule]\ninterval_secs = 3600\nmax_note_bytes = 5000\n",
            "schedule.max_note_bytes: unknown key; max_note_bytes is a top-level key, and in TOML every key "
            "below [schedule] belongs to that section: move max_note_bytes above the first [section] header",
        ),
    ],
    ids=["top level", "engine", "forgetting", "top-level key appended after a section"],
)
def test_unknown_key_is_an_error_naming_the_key(tmp_path: Path, toml: str, problem: str) -> None:
    path = tmp_path / "memory-sleep.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {problem}. {KEYS_HINT}"


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('lookback_days = "three"\n', "lookback_days: "),
        ("lookback_days = 0\n", "lookback_days: "),
        ("briefing_max_bytes = 4096\n", "briefing_max_bytes: "),
        ('[engine]\nname = "gpt"\n', "engine.name: "),
        ("[memory.forgetting]\nretention_threshold = 1.5\n", "memory.forgetting.retention_threshold: "),
        ("engine = 3\n", "engine: "),
    ],
)
def test_wrong_value_is_an_error_naming_the_key(tmp_path: Path, toml: str, key: str) -> None:
    path = tmp_path / "memory-sleep.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}")
    assert message.endswith(f". {KEYS_HINT}")


@pytest.mark.parametrize("data", [b"lookback_days = \n", b"[engine\n", b"a = 1\na = 2\n", b"x = '\xff'\n"])
def test_invalid_toml_is_an_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "memory-sleep.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not valid TOML (")
    assert message.endswith("). Fix the file or remove it.")
