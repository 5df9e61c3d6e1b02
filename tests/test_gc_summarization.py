"""Summarization (issue 19, item 8): past its limit, a scope's oldest archived entries become one entry."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from memory_sleep.config import GcConfig, SummarizationConfig
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.offline.gardening import OfflineGardener
from memory_sleep.gc.details import lost_details
from memory_sleep.gc.neighbours import in_time_order
from memory_sleep.gc.summarization import Summarization
from memory_sleep.models import EntryView

from .conftest import FIXTURE_WORKSPACE, REPO
from .gc_helpers import gc_context
from .sidecar_helpers import open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")  # on SQLite and on Postgres


def _limit(archive_limit: int, batch: int) -> GcConfig:
    return GcConfig(summarization=SummarizationConfig(archive_limit=archive_limit, batch=batch))


@pytest.fixture
def after_run(tmp_path: Path) -> Path:
    """The fixture workspace as its golden run leaves it: 39 entries in memory/archive.md."""
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, workspace)
    shutil.copytree(REPO / "fixtures" / "expected", workspace, dirs_exist_ok=True)
    return workspace


def test_the_oldest_batches_are_summarized_until_the_archive_is_under_its_limit(after_run: Path) -> None:
    with open_at(after_run) as sidecar:
        sidecar.index()
        context = gc_context(sidecar, _limit(archive_limit=28, batch=10))
        archived = in_time_order([row for row in context.entries if row.kind == "archive"])
        actions = Summarization().plan(context)
    assert len(archived) == 39
    # 39 -> 30 after one summary of 10, still over 28 -> 21 after a second
    assert [action.op for action in actions] == ["summarize", "summarize"]
    assert [action.ids for action in actions] == [
        [row.id for row in archived[:10]],
        [row.id for row in archived[10:20]],
    ]
    rows = {row.id: row for row in archived}
    for action in actions:
        assert action.text is not None and action.text.startswith("Archived 10 entries, 2026-")
        assert lost_details([rows[i].text for i in action.ids], action.text) == []
        assert action.day is not None and action.day.isoformat() == max(rows[i].day or "" for i in action.ids)


def test_an_archive_within_its_limit_is_left_alone(after_run: Path) -> None:
    with open_at(after_run) as sidecar:
        sidecar.index()
        assert Summarization().plan(gc_context(sidecar, _limit(archive_limit=39, batch=10))) == []
        assert Summarization().plan(gc_context(sidecar)) == []  # the default limit is 500


class ForgetfulSummarizer(OfflineGardener):
    """A model double whose summary names the first entry only."""

    def summarize(self, entries: Sequence[EntryView]) -> str:
        return entries[0].text


def test_a_summary_that_drops_a_detail_is_not_applied_but_listed_for_review(after_run: Path) -> None:
    engine = dataclasses.replace(offline_engine(), gardener=ForgetfulSummarizer())
    with open_at(after_run) as sidecar:
        sidecar.index()
        (action,) = Summarization().plan(gc_context(sidecar, _limit(archive_limit=38, batch=5), engine))
    assert action.op == "review" and action.text is None and len(action.ids) == 5
    assert action.reason.startswith("summary of the oldest 5 archived entries not applied: it drops ")
