"""Compaction (issue 19, item 5): alike entries become one statement that loses no detail."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import CompactionConfig, Config, GcConfig
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.offline.gardening import OfflineGardener, merged_statement
from memory_sleep.gc.compaction import Compaction, alike_clusters
from memory_sleep.gc.details import is_open_action, key_details, lost_details
from memory_sleep.models import EntryView

from .conftest import FIXTURE_WORKSPACE
from .gc_helpers import gc_context, texts, with_gardener
from .sidecar_helpers import make_workspace, open_at

on_each_store = pytest.mark.usefixtures("sidecar_store")  # on SQLite and on Postgres

MEMORY = """# MEMORY.md

## Facts
- [Atlas] Atlas DB listens on port 5432 (2026-11-01)
- [Atlas] Atlas DB listens on port 5432; ask @raj before restarts (2026-11-09)
- [Cobalt] Cobalt cluster is 3 nodes, about $1,900/month (2026-10-27)

## Action items
- [Beacon] Send Dana Whitfield the Q4 numbers by 2026-11-27 (2026-11-20)
"""
LOOSER = GcConfig(compaction=CompactionConfig(similarity=0.75))  # the hashing embedder is stricter


def _view(ref: str, text: str, day: date | None, section: str = "Facts") -> EntryView:
    return EntryView(ref=ref, section=section, topic=None, text=text, day=day)


def test_the_checker_names_each_number_date_name_handle_and_open_action_a_merge_drops() -> None:
    originals = ["Atlas DB listens on port 5432, owner Raj Patel", "Release moved to 2026-11-26; ping @tom"]
    action = "Send Dana the Q4 numbers by Friday"
    kept = "Atlas DB listens on port 5432, owner Raj Patel; release moved to 2026-11-26; ping @tom"
    assert lost_details(originals, kept) == []
    assert lost_details(originals, "Atlas DB listens on some port; release moved; ping Tom") == [
        "5432",
        "patel",
        "raj",
        "2026-11-26",
        "@tom",
    ]
    assert lost_details([action], "Q4 numbers for Dana, Friday", [action]) == []
    bigger = "Send Dana the Q4 numbers and the budget draft by Friday"
    assert lost_details([bigger], "Dana: Q4, Friday", [bigger]) == [f"open action “{bigger}”"]
    # a sentence's first word is capitalised whatever it is; "Dana" counts once it is seen mid-sentence
    assert key_details("Send the memo by Friday") == ["friday"]
    assert "dana" in key_details("Dana signs off", frozenset({"dana"}))
    assert is_open_action("Action items · Atlas", "Send the memo") and is_open_action("", "- [ ] ship it")
    assert not is_open_action("Facts", "- [x] shipped")
    assert key_details("- [ ] GitHub 发布 Cost.Agent") == ["cost"]  # a name, not "Agent" of its identifier


def test_the_checker_imports_on_its_own() -> None:
    # gc/details.py reads values with the offline engine's values.py, whose package builds the
    # offline engine, whose gardener uses the checker: a cycle unless the engine imports it late
    subprocess.run([sys.executable, "-c", "import memory_sleep.gc.details"], check=True)


def test_offline_merge_starts_from_the_newest_fullest_statement_and_keeps_the_others_details() -> None:
    cluster = [
        _view("E1", "Atlas DB listens on 5432, owner Raj Patel", date(2026, 11, 1)),
        _view("E2", "Atlas DB listens on port 5432; ask @raj before restarts", date(2026, 11, 9)),
    ]
    merged = merged_statement(cluster)
    assert merged == "Atlas DB listens on port 5432; ask @raj before restarts; owner Raj Patel"
    assert lost_details([view.text for view in cluster], merged) == []


@pytest.mark.parametrize(
    "texts",
    [
        ["Atlas DB listens on port 5432", "Atlas DB listens on port 8000"],  # a change, not a repeat
        ["Send Dana the Q4 numbers by 2026-11-27", "Send Raj the budget by 2026-11-27"],  # two tasks
        ["| run | jobs |\n| A | 20 |", "| run | jobs |\n| B | 20 |"],  # parts of a table
        ["- [ ] GitHub 发布 Cost.Agent", "- [ ] GitHub 发布太一记忆宫殿 v2.0"],  # two open tasks
    ],
)
def test_offline_merge_declines_entries_that_do_not_say_one_thing(texts: list[str]) -> None:
    cluster = [_view(f"E{n}", text, date(2026, 11, n)) for n, text in enumerate(texts, start=1)]
    assert OfflineGardener().merge([cluster]) == [None]


@pytest.mark.parametrize(
    "texts",
    [
        [
            "22:12 Vela v0.15.0 now ships audit log v2",
            "Vela v0.15.0 now ships the new sso flow; audit log v2 slips",
        ],
        [
            "Vela: Blocker — waiting on the design for the new export flow",
            "19:21 Vela: Blocker — waiting on the design for the new migration flow",
        ],
        ["Vela build status: green", "Vela build status: red"],
        ["Vela keeps user uploads for 365 days", "Vela keeps backups for 365 days"],
    ],
)
def test_offline_merge_declines_one_subject_stated_with_another_value(texts: list[str]) -> None:
    """A changed value is not a repeat: merged, the old value would stand beside the new one as if
    both were current (the contradiction strategy and REM deal with a change)."""
    cluster = [_view(f"E{n}", text, date(2026, 11, n)) for n, text in enumerate(texts, start=1)]
    assert OfflineGardener().merge([cluster]) == [None]


@pytest.mark.parametrize(
    ("texts", "merged"),
    [
        (
            [
                "**Vela search language:** Kotlin 2.0",
                "20:45 Again for the record: Vela search is written in Kotlin 2.0",
            ],
            "20:45 Again for the record: Vela search is written in Kotlin 2.0",
        ),
        (
            [
                "Vela is back on track after the release candidate.",
                "- Again for the record: vela is back on track after the release candidate.",
            ],
            "Again for the record: vela is back on track after the release candidate",
        ),
    ],
)
def test_offline_merge_reads_a_line_past_its_time_and_remark(texts: list[str], merged: str) -> None:
    """ "Again for the record: X" at 20:45 says X: a repeat in other words still merges."""
    cluster = [_view(f"E{n}", text, date(2026, 11, n)) for n, text in enumerate(texts, start=1)]
    assert OfflineGardener().merge([cluster]) == [merged]


@pytest.mark.parametrize(
    "texts",
    [
        [
            "TODO rotate the Atlas staging TLS cert deadline 2026-09-22",
            "rotate the Atlas sandbox TLS cert (by 22 Sep) (due 2026-09-22)",
        ],
        [
            "TODO migrate Atlas billing off nuc-02 (due 2026-11-02)",
            "migrate Atlas exporter off web-box-02 (due 2026-11-02)",
        ],
    ],
)
def test_offline_merge_declines_two_open_actions_a_done_report_tells_apart(texts: list[str]) -> None:
    """Alike open actions of one day that name another thing (a swapped word, another host) are two
    tasks: merged, a report that one is done would close both or neither."""
    cluster = [
        _view(f"E{n}", text, date(2026, 9, n), "Action items") for n, text in enumerate(texts, start=1)
    ]
    assert OfflineGardener().merge([cluster]) == [None]


@on_each_store
def test_compaction_on_the_sidecar_merges_alike_entries_and_leaves_the_rest(tmp_path: Path) -> None:
    with open_at(make_workspace(tmp_path, {}, MEMORY)) as sidecar:
        sidecar.index()
        context = gc_context(sidecar, LOOSER)
        actions = Compaction().plan(context)
        assert len(actions) == 1
        (merge,) = actions
        assert merge.op == "merge" and merge.strategy == "compaction" and merge.day == date(2026, 11, 9)
        assert texts(sidecar, merge.ids) == [
            "Atlas DB listens on port 5432",
            "Atlas DB listens on port 5432; ask @raj before restarts",
        ]
        assert merge.text == "Atlas DB listens on port 5432; ask @raj before restarts"
        live = sidecar.store.db.execute("SELECT count(*) FROM entries WHERE deleted_at IS NULL").fetchone()
        assert live[0] == len(context.entries)  # a strategy decides; it changes nothing


class DroppingGardener(OfflineGardener):
    """A model double whose merges drop the last word of the newest statement: here, "@raj"."""

    def merge(self, clusters: Sequence[Sequence[EntryView]]) -> list[str | None]:
        return [cluster[-1].text.rsplit(" ", 3)[0] for cluster in clusters]


@on_each_store
def test_a_merge_that_drops_a_detail_is_not_applied_but_listed_for_review(tmp_path: Path) -> None:
    engine = dataclasses.replace(offline_engine(), gardener=DroppingGardener())
    with open_at(make_workspace(tmp_path, {}, MEMORY)) as sidecar:
        sidecar.index()
        (action,) = Compaction().plan(gc_context(sidecar, LOOSER, engine))
    assert action.op == "review" and action.text is None and len(action.ids) == 2
    assert action.reason == "merge of 2 alike entries not applied: it drops @raj"


@on_each_store
def test_compaction_on_the_fixture_workspace_merges_only_what_keeps_every_detail(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, workspace)
    with open_at(workspace) as sidecar:
        sidecar.index()
        context = gc_context(sidecar)
        clusters = alike_clusters(context)
        actions = Compaction().plan(context)
        rows = {row.id: row for row in context.entries}
    assert Config().memory.gc.compaction.similarity == 0.85
    assert clusters and all(len({row.kind for row in cluster}) == 1 for cluster in clusters)
    merges = [action for action in actions if action.op == "merge"]
    assert merges and len(merges) < len(clusters)  # some clusters are not one thing
    for merge in merges:
        assert merge.text is not None and lost_details([rows[i].text for i in merge.ids], merge.text) == []
    summaries = [rows[i].text for merge in merges for i in merge.ids if rows[i].text == "EOD summary sent."]
    assert len(summaries) >= 2


@pytest.mark.parametrize(
    "texts",
    [
        [  # one change said twice is a repeat, not two changes
            "Vela v0.6.5 scope changed: the new audit flow instead of audit log v2",
            "Again for the record: vela v0.6.5 scope changed: the new audit flow instead of audit log v2",
        ],
        [  # a dash in a lesson is no release's claim demoted
            "**Takeaway:** benchmarks on a laptop on battery are worthless; plug in or use build-box-03",
            "(repeating for the summary) Takeaway for next time — benchmarks on a laptop on battery are "
            "worthless; plug in or use build-box-03.",
        ],
    ],
)
def test_offline_merge_takes_one_statement_said_twice_for_a_repeat(texts: list[str]) -> None:
    cluster = [_view(f"E{n}", text, date(2026, 11, n)) for n, text in enumerate(texts, start=1)]
    assert OfflineGardener().merge([cluster]) != [None]


class CountingGardener(OfflineGardener):
    """The offline gardener, counting the clusters it is asked to merge."""

    def __init__(self) -> None:
        self.asked = 0

    def merge(self, clusters: Sequence[Sequence[EntryView]]) -> list[str | None]:
        self.asked += len(clusters)
        return super().merge(clusters)


def test_a_cluster_declined_last_pass_is_declined_again_without_asking(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, workspace)
    with open_at(workspace) as sidecar:
        sidecar.index()
        first, again = CountingGardener(), CountingGardener()
        context = with_gardener(gc_context(sidecar), first, "alike")
        expected = Compaction().plan(context)
        later = with_gardener(context, again, "alike")
        assert Compaction().plan(later) == expected
        other = dataclasses.replace(later, engine=dataclasses.replace(offline_engine(), name="another"))
        assert [action.ids for action in Compaction().plan(other)] == [action.ids for action in expected]
    merges = len([action for action in expected if action.op in ("merge", "review")])
    assert first.asked > merges  # some clusters were declined
    assert again.asked == merges  # only those the engine did not decline are asked again
