"""`memory-sleep init`: the layout, a commented config generated from the model, and never overwriting."""

from __future__ import annotations

import tomllib
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.cli.scaffold import commented_config, config_keys
from memory_sleep.config import Config


def uncommented(text: str) -> str:
    return "\n".join(
        line[2:] if line.startswith("# ") and " = " in line else line for line in text.splitlines()
    )


def test_commented_config_lists_every_key_at_its_default() -> None:
    text = commented_config()
    sections = {
        "engine": {"agent": {}},
        "memory": {
            "forgetting": {"weights": {}},
            "gc": {
                "ttl": {},
                "decay": {},
                "usage": {},
                "capacity": {},
                "compaction": {},
                "contradiction": {},
                "importance": {},
                "summarization": {},
            },
        },
        "sidecar": {},
        "schedule": {},
    }
    assert tomllib.loads(text) == sections
    keys = [key for key in config_keys() if not isinstance(key, str)]
    assert len(keys) > 40
    for key in keys:
        assert key.note, f"{key.path}: no description (add one to KEY_NOTES in scaffold.py)"
        assert f"# {key.path.rsplit('.', 1)[-1]} =" in text
    # uncommenting every line gives the defaults, except the examples of keys that are unset by default
    values = Config.model_validate(tomllib.loads(uncommented(text)))
    examples = {key.path for key in keys if key.default is None}
    default = Config()
    for key in keys:
        if key.path in examples:
            continue
        got, want = values, default
        for part in key.path.split("."):
            got, want = getattr(got, part), getattr(want, part)
        assert got == want, key.path


def test_init_creates_the_layout_and_never_overwrites(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "agent"
    dry = runner.invoke(main, ["init", str(folder), "--dry-run"])
    assert dry.exit_code == 0 and dry.output.startswith(
        f"Would create in {folder}: memory/, MEMORY.md, memory-sleep.toml"
    )
    assert not folder.exists()
    created = runner.invoke(main, ["init", str(folder)])
    assert created.exit_code == 0, created.output
    assert (folder / "MEMORY.md").read_text() == "# MEMORY.md\n"
    assert (folder / "memory").is_dir()
    assert (folder / "memory-sleep.toml").read_text() == commented_config()
    assert "Next: write daily notes to" in created.output
    (folder / "MEMORY.md").write_text("# MEMORY.md\n\nmine\n")
    (folder / "memory-sleep.toml").write_text("lookback_days = 5\n")
    again = runner.invoke(main, ["init", str(folder)])
    assert again.exit_code == 0
    assert again.output.splitlines() == [
        f"Created in {folder}: nothing",
        "Already there, left alone: memory/, MEMORY.md, memory-sleep.toml",
    ]
    assert (folder / "MEMORY.md").read_text() == "# MEMORY.md\n\nmine\n"
    assert (folder / "memory-sleep.toml").read_text() == "lookback_days = 5\n"


def test_a_fresh_workspace_runs_and_is_healthy(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "agent"
    assert runner.invoke(main, ["init", str(folder)]).exit_code == 0
    (folder / "memory" / "2026-11-24.md").write_text("- Decided: Postgres for the job queue, not Redis\n")
    ran = runner.invoke(main, ["run", str(folder), "--today", "2026-11-25", "--engine", "offline"])
    assert ran.exit_code == 0, ran.output
    assert "Postgres" in (folder / "MEMORY.md").read_text()
    assert runner.invoke(main, ["doctor", str(folder)]).exit_code == 0


def test_init_on_a_file_is_an_error(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    result = CliRunner().invoke(main, ["init", str(target)])
    assert result.exit_code == 2 and f"Directory '{target}' is a file." in result.output
    assert target.read_text() == "x"
