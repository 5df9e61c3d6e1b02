"""The wheel ships the prompt templates and the language files, and a fresh install outside the checkout can load them."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from memory_sleep.engines.prompting import render_prompt
from memory_sleep.errors import ConfigError

from .conftest import REPO

TEMPLATES = sorted(p.name for p in (REPO / "prompts").glob("*.j2"))
LANGUAGES = sorted(p.name for p in (REPO / "memory_sleep" / "languages").glob("*.toml"))


def test_every_template_renders_with_strict_undefined() -> None:
    text = render_prompt("nrem_classify.md.j2", projects=["Atlas"], memory=[], items=[])
    assert "KEEP" in text and "Atlas" in text
    with pytest.raises(ConfigError, match=r"nrem_classify\.md\.j2"):
        render_prompt("nrem_classify.md.j2", projects=[])


def test_override_folder_wins(tmp_path: Path) -> None:
    (tmp_path / "nrem_classify.md.j2").write_text("custom {{ projects | length }}")
    assert render_prompt("nrem_classify.md.j2", override=tmp_path, projects=[1, 2]) == "custom 2"


@pytest.mark.slow
def test_wheel_contains_templates_and_installs_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(REPO),
        ],
        check=True,
    )
    wheel = next(dist.glob("memory_sleep-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert TEMPLATES and all(f"memory_sleep/prompts/{name}" in names for name in TEMPLATES)
    assert LANGUAGES and all(f"memory_sleep/languages/{name}" in names for name in LANGUAGES)
    packages = [p.parent.relative_to(REPO).as_posix() for p in (REPO / "memory_sleep").rglob("__init__.py")]
    assert [p for p in packages if f"{p}/__init__.py" not in names] == []  # every subpackage ships
    target = tmp_path / "venv"
    venv.create(target, with_pip=False, system_site_packages=True)
    python = target / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(tmp_path / "site"),
            str(wheel),
        ],
        check=True,
    )
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import memory_sleep.engines.prompting as p, memory_sleep.text; "
        "assert p.__file__.startswith(sys.argv[1]), p.__file__; "
        "print(p.render_prompt('nrem_classify.md.j2', projects=[], memory=[], items=[])[:40])"
    )
    result = subprocess.run(
        [str(python), "-c", probe, str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.startswith("You are the NREM phase")
