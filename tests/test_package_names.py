"""The package reads notes it has never seen: the benchmark generator's invented names stay out of it.

Rules and examples that name the generator's projects, people or customers are how a phrase engine
learns one generator's wordings; issue 15 took them out of memory_sleep/ and this keeps them out.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from workspace_gen import vocab  # noqa: E402

NAMES = sorted({*vocab.PROJECT_NAMES, *vocab.FIRST_NAMES, *vocab.CUSTOMERS}, key=len, reverse=True)
NAMED = re.compile(r"\b(?:" + "|".join(map(re.escape, NAMES)) + r")\b")
SHIPPED = {".py", ".toml", ".j2", ".md", ".json"}


def named_lines(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*")):
        if path.suffix not in SHIPPED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(package)}:{number}: {name}" for name in NAMED.findall(line)]
    return found


def test_the_package_names_none_of_the_generators_projects_people_or_customers() -> None:
    assert named_lines(ROOT / "memory_sleep") == []


def test_the_check_finds_a_name_where_there_is_one(tmp_path: Path) -> None:
    (tmp_path / "rule.py").write_text("# e.g. 'Atlas now releases weekly'\nMIGRATED = 'Atlassian'\n")
    assert [line.rsplit(": ", 1)[1] for line in named_lines(tmp_path)] == ["Atlas"]
