"""The default `pytest` is the fast run; `.ci/run` runs it, then the tests marked slow."""

from __future__ import annotations

import ast

import pytest

from .conftest import REPO


def test_the_default_run_leaves_the_slow_tests_to_ci(request: pytest.FixtureRequest) -> None:
    assert any(line.startswith("slow:") for line in request.config.getini("markers"))
    addopts = request.config.getini("addopts")
    assert addopts[addopts.index("-m") + 1] == "not slow"
    script = (REPO / ".ci" / "run").read_text()
    fast, slow = script.index("\ntests "), script.index("\ntests -m slow")
    assert fast < slow and "5)" in script and 'if [ "$ran" -eq 0 ]' in script


def test_every_crash_test_is_marked_slow() -> None:
    module = ast.parse((REPO / "tests" / "test_reliability_crash.py").read_text())
    assert any(
        isinstance(node, ast.Assign) and ast.unparse(node) == "pytestmark = pytest.mark.slow"
        for node in module.body
    )
