"""A run pauses Python's cycle collector while it plans and writes, and leaves it as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from memory_sleep.cycle.planner import Planner
from memory_sleep.cycle.report import RunReport
from tests.conftest import run_offline


@pytest.mark.parametrize("enabled", [True, False])
def test_a_run_pauses_the_cycle_collector_and_resumes_it_as_it_was(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    during: list[bool] = []
    plan = Planner.plan

    def watched(self: Planner, run_id: str) -> RunReport:
        during.append(gc.isenabled())
        return plan(self, run_id)

    monkeypatch.setattr(Planner, "plan", watched)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        run_offline(fixture_workspace)
        assert during == [False]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_failed_run_resumes_the_cycle_collector(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(self: Planner, run_id: str) -> RunReport:
        raise RuntimeError("planning failed")

    monkeypatch.setattr(Planner, "plan", fails)
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="planning failed"):
        run_offline(fixture_workspace)
    assert gc.isenabled()
