"""Each GC strategy on an indexed workspace, on both stores: what it removes, rates or keeps, and
that `restore --pass` brings the removed entries back exactly."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import GcConfig
from memory_sleep.sleepgate.session import restore

from .gc_helpers import DAY, collect, deleted, noon
from .sidecar_helpers import make_workspace, open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")
NOTES = {
    "2026-11-01.md": (
        "- Staging DB password rotates monthly; expires: 2026-11-10\n"
        "- Feature flag new-checkout on for 10% ttl: 7d\n"
        "- Atlas ships the job queue on Postgres in December\n"
    ),
    "2026-11-20.md": "---\nexpires: 2026-11-22\n---\n- Dana out of office until Monday\n",
}


def test_ttl_soft_deletes_what_expired_and_restore_brings_it_back(tmp_path: Path) -> None:
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        plan = collect(sidecar, ("ttl",), noon(date(2026, 11, 25)))
        gone = deleted(sidecar)
        assert gone == {
            "- Staging DB password rotates monthly; expires: 2026-11-10": "gc:ttl",
            "- Feature flag new-checkout on for 10% ttl: 7d": "gc:ttl",
            "- Dana out of office until Monday": "gc:ttl",
        }
        reasons = sorted(action.reason for action in plan.decision.actions)
        assert reasons[0].startswith("expired 2026-11-08 (ttl: 7d)")
        report = restore(sidecar, [], plan.decision.pass_id, None)
        assert len(report.restored) == 3 and deleted(sidecar) == {}


def test_ttl_by_category_days(tmp_path: Path) -> None:
    make_workspace(tmp_path, {"2026-11-01.md": "- Atlas ships the job queue on Postgres in December\n"})
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        entry_id = int(sidecar.store.db.execute("SELECT id FROM entries").fetchone()[0])
        from memory_sleep.engines.offline import offline_engine
        from memory_sleep.gc.run import decide

        config = GcConfig.model_validate({"ttl": {"category_days": {"fact": 5}}})
        decision = decide(sidecar, config, offline_engine(), ("ttl",), noon(date(2026, 11, 25)), 30)
        assert decision.actions == []  # no category known: NREM has not read the note
        from memory_sleep.gc.actions import GcContext
        from memory_sleep.gc.entries import live_by_scope
        from memory_sleep.gc.ttl import Ttl

        entries = tuple(live_by_scope(sidecar.store)["default"])
        context = GcContext(
            sidecar,
            entries,
            "default",
            config,
            offline_engine(),
            noon(date(2026, 11, 25)),
            30,
            categories={entry_id: "fact"},
        )
        [action] = Ttl().plan(context)
        assert action.ids == [entry_id] and "fact entries live 5 days" in action.reason


def test_importance_rates_once_then_only_what_changed(tmp_path: Path) -> None:
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        plan = collect(sidecar, ("importance",), noon(date(2026, 11, 25)))
        rated = {entry_id for action in plan.decision.actions for entry_id in action.ids}
        assert len(rated) == 4
        values = dict(sidecar.store.db.execute("SELECT text, importance FROM entries"))
        assert values["- Atlas ships the job queue on Postgres in December"] != 0.3  # no longer the default
        again = collect(sidecar, ("importance",), noon(date(2026, 11, 26)))
        assert again.decision.actions == []


def test_decay_soft_deletes_under_the_recall_threshold_and_recall_leaves_it_out(tmp_path: Path) -> None:
    make_workspace(tmp_path, NOTES)
    config = GcConfig.model_validate({"decay": {"recall_threshold": 0.2, "half_life_days": 10}})
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        assert collect(sidecar, ("decay",), noon(date(2026, 11, 3)), config).decision.actions == []
        plan = collect(sidecar, ("decay",), noon(date(2026, 11, 25)), config)
        # 0.3 x 0.5^(24/10) = 0.057 for the notes of 11-01; 0.3 x 0.5^(5/10) = 0.21 for 11-20
        assert set(deleted(sidecar).values()) == {"gc:decay"}
        assert "- Dana out of office until Monday" not in deleted(sidecar)
        assert len(plan.decision.actions[0].ids) == 3


def test_recall_filters_below_the_threshold_only_when_set(tmp_path: Path) -> None:
    from memory_sleep.config import Config

    from .sidecar_helpers import NOW

    make_workspace(tmp_path, {"2026-08-01.md": "- Atlas ships the job queue on Postgres in December\n"})
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        assert sidecar.search("job queue Postgres", k=3)
    config = Config.model_validate({"memory": {"gc": {"decay": {"recall_threshold": 0.3}}}})
    with open_at(tmp_path, config=config) as sidecar:
        assert noon(date(2026, 8, 1)) + 100 * DAY < NOW
        assert sidecar.search("job queue Postgres", k=3) == []


def test_usage_removes_what_nobody_used_for_unused_days(tmp_path: Path) -> None:
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        used = [hit.id for hit in sidecar.recall("Atlas job queue Postgres", k=1)]
        config = GcConfig.model_validate({"usage": {"unused_days": 20}})
        collect(sidecar, ("usage",), noon(date(2026, 11, 25)), config)
        gone = deleted(sidecar)
        assert "- Atlas ships the job queue on Postgres in December" not in gone  # recalled
        assert gone["- Staging DB password rotates monthly; expires: 2026-11-10"] == "gc:usage"
        assert "- Dana out of office until Monday" not in gone  # written 5 days ago
        assert used


def test_capacity_keeps_open_actions_and_what_was_used(tmp_path: Path) -> None:
    lines = "".join(f"- Reading {n}: pump {n} pressure nominal at {n} bar\n" for n in range(8))
    make_workspace(tmp_path, {"2026-11-01.md": lines + "- [ ] Call Dana about the pump contract\n"})
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        action_id = int(
            sidecar.store.db.execute("SELECT id FROM entries WHERE text LIKE '- [ ] Call Dana%'").fetchone()[
                0
            ]
        )
        recalled = [hit.id for hit in sidecar.recall("pump 3 pressure", k=1)]
        from memory_sleep.engines.offline import offline_engine
        from memory_sleep.gc.actions import GcContext
        from memory_sleep.gc.capacity import Capacity
        from memory_sleep.gc.entries import live_by_scope

        entries = tuple(live_by_scope(sidecar.store)["default"])
        config = GcConfig.model_validate({"capacity": {"max_entries": 3}})
        context = GcContext(
            sidecar,
            entries,
            "default",
            config,
            offline_engine(),
            noon(date(2026, 11, 25)),
            30,
            categories={action_id: "action"},
        )
        [action] = Capacity().plan(context)
        assert len(action.ids) == 6  # 9 entries, 3 allowed
        assert action_id not in action.ids and recalled[0] not in action.ids
        unlimited = GcConfig.model_validate({"capacity": {"max_entries": 0}})
        assert (
            Capacity().plan(GcContext(sidecar, entries, "default", unlimited, offline_engine(), 0.0, 30))
            == []
        )


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        plan = collect(sidecar, ("ttl", "importance"), noon(date(2026, 11, 25)), dry=True)
        assert plan.decision.actions
        assert deleted(sidecar) == {}
        assert {value for (value,) in sidecar.store.db.execute("SELECT importance FROM entries")} == {0.3}


def test_capacity_and_usage_keep_the_line_that_superseded_an_entry_while_it_is_valid(tmp_path: Path) -> None:
    from memory_sleep.workspace.archive import ArchiveRecord, Ending, append_records

    later = "".join(f"- Reading {n}: pump {n} pressure nominal at {n} bar\n" for n in range(6))
    make_workspace(
        tmp_path,
        {
            "2026-08-01.md": "- Orion staging server IP is 10.0.0.5\n",
            "2026-08-14.md": "- Orion staging server IP changed to 10.0.0.9 (was 10.0.0.5)\n",
            "2026-11-20.md": later,
        },
    )
    record = ArchiveRecord(
        date(2026, 8, 14),
        "Facts",
        "- [Orion] Orion staging server IP is 10.0.0.5 (2026-08-01)",
        "superseded by memory/2026-08-14.md:1",
        Ending("superseded", date(2026, 8, 14), "memory/2026-08-14.md:1"),
    )
    (tmp_path / "memory" / "archive.md").write_text(append_records(None, [record]), encoding="utf-8")
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        config = GcConfig.model_validate({"capacity": {"max_entries": 4}, "usage": {"unused_days": 60}})
        collect(sidecar, ("usage", "capacity"), noon(date(2026, 11, 25)), config)
        gone = deleted(sidecar)
    assert "- Orion staging server IP changed to 10.0.0.9 (was 10.0.0.5)" not in gone  # the current value
    assert gone["- Orion staging server IP is 10.0.0.5"] == "gc:usage"  # the old one may go
