"""Closing actions: a note that reports a task done archives that task's entry and no other."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.cycle.close_actions import ACTIONS, close_done_actions
from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.engines.offline.closing import OfflineCloser
from memory_sleep.models import Closure, EntryView, KeptItem, NoteItem
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import run_offline
from .item_helpers import archived_by, note_item

TODAY = date(2026, 11, 20)


def _closed(actions: list[str], done: str, topic: str | None = None) -> list[str]:
    """The action entries the note line `done` closes, in a MEMORY.md that knows three projects."""
    bullets = "".join(f"- {action} (2026-11-01)\n" for action in actions)
    document = MemoryDocument.parse(
        "# MEMORY.md\n\n## Action items\n"
        + bullets
        + "\n## Projects\n\n### Nimbus\n\n### Beacon\n\n### Sable\n"
    )
    completion = KeptItem(item=note_item(done, TODAY), category="status", topic=topic)
    return [
        record.entry
        for record in archived_by(
            document, TODAY, lambda e: close_done_actions(e, [completion], OfflineCloser(), {})[0]
        )
    ]


@pytest.mark.parametrize(
    ("action", "done"),
    [
        (
            "[Sable] Zara: fix the flaky Sable test `test_compute_usage` (SAB-867) due Oct 22 (due 2026-10-22)",
            "16:28 完成：fix the flaky Sable test `test_compute_usage` (SAB-867)",
        ),
        (
            "Still open: renew the harbor.corp.example domain (before Sunday) (due 2026-11-15)",
            "Closed: renew the harbor.corp.example domain (Tom confirmed)",
        ),
        (
            "ask Lena for the notifier load numbers (today, before I log off)",
            "08:34 Ask Lena for the notifier load numbers: done",
        ),
        (
            "send Initech the revised SOW for Sable — bis 18.9",
            "**19:53** Done: send Initech the revised SOW for Sable",
        ),
        ("migrate billing off gcp-ew4-04", "- [x] migrate billing off gcp-ew4-04 (took two hours)"),
        (  # told in other words, with more detail
            "TODO: renew the TLS cert for billing.fernhill.io before Dec 2 (due 2026-12-02)",
            "- done: Raj renewed the billing.fernhill.io TLS cert (new expiry 2027-02-17). The Dec 2 TODO is closed ✅",
        ),
        (
            "QA regression pass on build 205 or later (Wei, from Monday)",
            "- [x] QA regression pass (Wei, build 206)",
        ),
        (  # "rotate" and "rotated" are one verb: no word swapped
            "TODO: Marco to rotate the Stripe webhook secret before 2026-11-26",
            "09:12 Marco rotated the Stripe webhook secret; the old one is revoked. That TODO is done.",
        ),
        (
            "Get Maya's final onboarding screens by 2026-11-04",
            'done: Maya\'s final onboarding screens are in Figma (page "1.4 / Onboarding v2 FINAL").',
        ),
        (  # a verb of completion opening the line (session 55's second trial)
            "Follow-up: enable WAL archiving on beacon-db-01 before the upgrade (Jonas)",
            "* finished WAL archiving on beacon-db-01 — archive_mode=on, tested a PITR restore",
        ),
        (  # a name in an aside is no one the task is for (session 55's second trial)
            "TODO: write a runbook for the Beacon replay procedure (we keep re-deriving it from Slack)",
            "- done: Beacon replay runbook written (docs/runbooks/beacon-replay.md), reviewed by Mateo",
        ),
    ],
)
def test_a_task_reported_done_closes_its_action(action: str, done: str) -> None:
    assert _closed([action], done) == [f"- {action} (2026-11-01)"]


@pytest.mark.parametrize(
    ("action", "done"),
    [
        (  # a status with a finished milestone is not every task of its project
            "[Nimbus] clean up the `new_checkout` flag in Nimbus (by Monday next week)",
            "Nimbus milestone reached: SSO for Soylent ✅\\n- next: a beta for 10 users\\n- owner: Raj",
        ),
        ("file last month's expense report for Beacon", "- [x] file last month's expense report for Nimbus"),
        ("rotate the staging TLS cert", "- [x] rotate the canary TLS cert"),
        (
            "add alerting for billing p95 > 120 ms deadline 2026-11-28",
            "✅ add alerting for billing p95 > 240 ms",
        ),
        ("draft the Q2 roadmap for Sable", "完成：draft the Q3 roadmap for Sable"),
        ("document the cleanup runbook", "- [x] document the vacuum runbook"),
        (  # another person: the name opens what is left of the task once "get" is dropped
            "TODO get Tomas access to the Beacon qa cluster (due 2026-11-08)",
            "- [x] get Ilse access to the Beacon qa cluster",
        ),
        ("migrate billing off web-box-04 (by 2026-11-04)", "- [x] migrate billing off nuc-02"),
        (  # what comes next is not what was done
            "update the pricing page copy with Yuki",
            "15:52 Meridian のステータス：the v2 API freeze が完了、次は the pricing page。",
        ),
    ],
)
def test_a_task_reported_done_closes_no_other_action(action: str, done: str) -> None:
    assert _closed([action], done) == []


def test_of_two_alike_actions_the_one_naming_the_same_flag_is_closed() -> None:
    actions = [
        "clean up the `usage_billing` flag in Nimbus (bis 1.10.)",
        "clean up the `new_checkout` flag in Nimbus",
    ]
    closed = _closed(actions, "Clean up the `new_checkout` flag in Nimbus — done", topic="Nimbus")
    assert closed == ["- clean up the `new_checkout` flag in Nimbus (2026-11-01)"]


def test_the_same_task_of_another_project_does_not_hide_it() -> None:
    """Words shared with the same task of other projects still tell an action from the rest."""
    actions = [
        "[Sable] TODO file last month's expense report for Sable due Sep 25",
        "[Nimbus] TODO file last month's expense report for Nimbus deadline 2026-09-24",
        "[Beacon] TODO file last month's expense report for Beacon by Fri",
    ]
    closed = _closed(actions, "- File last month's expense report for Sable: done", topic="Sable")
    assert closed == ["- [Sable] TODO file last month's expense report for Sable due Sep 25 (2026-11-01)"]


def _written_and_done(
    done_line: int,
    closer: object,
    action_headings: tuple[str, ...] = (),
    done_headings: tuple[str, ...] = (),
) -> tuple[list[str], list[str]]:
    """An action this run adds from line 10 of today's note, and a line of the same note that reports
    it done at `done_line`: the actions archived, and the closures refused."""
    note = f"memory/{TODAY.isoformat()}.md"
    action = NoteItem(
        id="a1",
        file=note,
        day=TODAY,
        line_start=10,
        line_end=10,
        kind="bullet",
        text="x",
        headings=action_headings,
    )
    done = NoteItem(
        id="i1",
        file=note,
        day=TODAY,
        line_start=done_line,
        line_end=done_line,
        kind="bullet",
        text="- [x] test the Page Agent in real use",
        headings=done_headings,
    )
    editor = DocumentEditor(MemoryDocument.parse("# MEMORY.md\n\n## Action items\n"), TODAY)
    add = Edit(op="add", section=ACTIONS, item="a1", text="test the Page Agent in real use", day=TODAY)
    editor.apply([add])
    completion = KeptItem(item=done, category="status", topic=None)
    edits, refused = close_done_actions(editor, [completion], closer, {"a1": action})  # type: ignore[arg-type]
    return [record.entry for record in editor.apply(edits).archived], refused


def test_a_line_above_the_action_in_its_note_does_not_close_it() -> None:
    """A note's finished work comes before its "next steps": a line written above the action cannot
    report it done, however alike the two are; a line below it can."""
    assert _written_and_done(3, OfflineCloser()) == ([], [])
    assert _written_and_done(12, OfflineCloser()) == (["- test the Page Agent in real use (2026-11-20)"], [])

    class Any:  # an engine (a model) that closes the first action with the first note
        def close(
            self, completions: list[KeptItem], actions: list[EntryView], projects: object
        ) -> list[Closure]:
            return [Closure(item_id=completions[0].item.id, target=actions[0].ref)]

    assert _written_and_done(3, Any()) == (
        [],
        ["close E1 by item i1: the note item was written before the action"],
    )


def test_a_note_does_not_report_its_own_next_steps_done() -> None:
    """A note's "next steps" are what its work left to do: a line below them in the same note (its
    closing status) reports that work, not them; a section stamped later in the day is later work."""
    plan = ("Session 3", "Next steps")
    assert _written_and_done(12, OfflineCloser(), plan) == ([], [])
    assert _written_and_done(12, OfflineCloser(), plan, ("Session 3", "Evening (20:16)")) == (
        ["- test the Page Agent in real use (2026-11-20)"],
        [],
    )
    assert _written_and_done(12, OfflineCloser(), ("Session 3", "✅ Completed tasks")) == (
        ["- test the Page Agent in real use (2026-11-20)"],
        [],
    )


def test_a_line_sharing_only_what_many_actions_say_closes_none() -> None:
    """Words most open actions have ("AI agent") do not tell which task a line reports; a word of one
    action's own task does."""
    actions = [
        "deepen the AI agent programming",
        "push the edge AI agent forward",
        "write the AI agent essay",
    ]
    assert _closed(actions, "- ✅ AI agent patterns showcase") == []
    assert _closed(actions[:1], "- ✅ AI agent patterns showcase") == [
        "- deepen the AI agent programming (2026-11-01)"
    ]
    assert _closed(actions, "- [x] deepened the AI agent programming") == [
        "- deepen the AI agent programming (2026-11-01)"
    ]


@pytest.mark.parametrize(
    ("action", "done"),
    [
        # a lead-in and the tasks it lists: one line does not report them all done
        (
            "Next sprint:; write the migration guide; add a retry to the uploader",
            "- ✅ wrote the migration guide",
        ),
        # the shared words are only in the action's details, not in its own first line
        (
            "Fixed the flaky login test; added a retry to the uploader; green in CI",
            "- ✅ Retry added to the sync worker",
        ),
        # only the names both write as names: what the task does with them is not said done
        ("try the Storage Browser on real data", "- ✅ recent work: Storage Browser + new icons"),
        ("部署 Grafana Loki 到测试环境", "- ✅ 最近任务: Grafana Loki 升级"),
        # what is still to do is not what was done
        ("get the API key for the exchange", "✅ account created (pending: get the API key)"),
        ("获取交易所 API Key", "**状态**: ✅ 账户已创建 (待获取 API Key)"),
        # another function named as code
        (
            "add `rename()` to the store",
            "**Status:** ✅ Complete — moveKey() added to the store, 4 new tests",
        ),
        # a line led by code reports that code: a call, a test's name
        (
            "compact the search index: prune dropped rows from the cache file",
            "1. ✅ purge() saves the search index to the cache file",
        ),
        ("Freshness score (0-100); docs (30 points); tests (25 points)", "- ✅ test_loader_freshness"),
    ],
)
def test_a_line_without_structural_evidence_of_the_task_done_leaves_it_open(action: str, done: str) -> None:
    assert _closed([action], done) == []


@pytest.mark.parametrize(
    ("action", "done"),
    [
        ("部署 Grafana Loki 到测试环境", "- ✅ Grafana Loki 已部署到测试环境"),
        ("add `rename()` to the store", "✅ rename() added to the store"),
        ("try the Storage Browser on real data", "- [x] tried the Storage Browser on real data"),
        ("Fixed the flaky login test; added a retry to the uploader", "- ✅ flaky login test fixed"),
        ("check that `spawn_worker` works after the fork fix", "- ✅ `spawn_worker` — works (checked 3x)"),
    ],
)
def test_the_same_task_said_done_still_closes(action: str, done: str) -> None:
    assert _closed([action], done) == [f"- {action} (2026-11-01)"]


def test_a_session_note_leaves_its_next_steps_open(tmp_path: Path) -> None:
    """A run that reads a session's note with its next steps and its closing status line keeps the
    next steps open: the status reports the session's work, of which they are what is left."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n")
    (tmp_path / "memory" / "2026-11-18.md").write_text(
        "# Session 2026-11-18\n\n## Work\n- Persisted the BM25 index to disk (JSON sidecar)\n\n"
        "### Next steps\n1. BM25 index compaction: prune removed docs from the sidecar\n\n---\n\n"
        "**Status:** ✅ Complete — BM25 index now persists to disk, 635/635 tests passing\n"
    )
    run_offline(tmp_path, today=date(2026, 11, 19))
    assert "BM25 index compaction" in (tmp_path / "MEMORY.md").read_text()
    archive = tmp_path / "memory" / "archive.md"
    assert not archive.exists() or "BM25 index compaction" not in archive.read_text()


def _closed_by(actions: list[str], lines: list[tuple[str, tuple[str, ...]]]) -> dict[str, int]:
    """Which line of one note (1-based, with its headings) closes each action it closes."""
    bullets = "".join(f"- {action} (2026-11-01)\n" for action in actions)
    document = MemoryDocument.parse("# MEMORY.md\n\n## Action items\n" + bullets)
    file = f"memory/{TODAY.isoformat()}.md"
    completions = [
        KeptItem(
            item=NoteItem(
                id=f"i{number}",
                file=file,
                day=TODAY,
                line_start=number,
                line_end=number,
                kind="bullet",
                text=text,
                headings=headings,
            ),
            category="status",
            topic=None,
        )
        for number, (text, headings) in enumerate(lines, 1)
    ]
    edits, _ = close_done_actions(DocumentEditor(document, TODAY), completions, OfflineCloser(), {})
    return {edit.text or "": int(edit.item.removeprefix("i")) for edit in edits if edit.item}


def test_a_test_line_reports_the_function_its_note_adds_not_another() -> None:
    """A session note adding one function that an open action asks for tests that function in its
    numbered lines: a line without a name ("returns empty digest of tagged shelf") does not
    report another function's action done because it shares a word or two with it."""
    testing = ("Session 7", "Testing")
    lines = [
        ("1. ✅ Returns quality numbers for tagged shelves", testing),
        ("2. ✅ Returns empty digest of tagged shelf", testing),
        ("**Status:** ✅ Complete — shelfStats() added, 5 new tests", ()),
    ]
    actions = [
        "`shelfStats()` — quality numbers for each shelf",
        "`digestShelf(topic)` — write a digest of everything tagged on a shelf",
    ]
    assert _closed_by(actions, lines) == {actions[0]: 1}
    # a note whose work no open action names says nothing of its lines: they close by their words
    renamed = [*lines[:2], ("**Status:** ✅ Complete — shelfNumbers() added", ())]
    assert _closed_by(actions, renamed) == {actions[0]: 1, actions[1]: 2}


def test_a_line_naming_one_of_its_notes_functions_reports_that_one() -> None:
    """Under a heading naming the functions a session adds, a line naming one by its bare name tests
    that one: "prepend missing key returns None" is no report of `ttl(key)`; "ttl returns ..." is."""
    tests = ("Session 9", "Focus: `prepend()` + `ttl()` on the cache", "Tests")
    lines = [
        ("4. ✅ prepend missing key returns None", tests),
        ("8. ✅ ttl returns a positive number for a fresh key", tests),
    ]
    assert _closed_by(["`ttl(key)` — return the key's ttl in seconds"], lines) == {
        "`ttl(key)` — return the key's ttl in seconds": 2
    }


@pytest.mark.parametrize("heading", ["## Done", "## Tasks completed", "**Completed:**", "## 已完成"])
def test_a_line_of_work_filed_under_a_done_section_closes_its_task(tmp_path: Path, heading: str) -> None:
    """ "Sent the invoice to Contoso" under "## Done" is a line of the activity log, which said nothing
    of a task: the task stayed OVERDUE in a new user's trial, and the line (its invoice number and
    amount) was hidden from recall as routine. Under a section that reports work done, it is the report."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Facts\n- Contoso pays net 30 (2026-11-02)\n- Harbor runs on Render (2026-11-03)\n"
        "- Ledger API listens on 8443 (2026-11-04)\n\n"
        "## Action items\n- TODO: send invoice to Contoso by Fri (2026-11-16)\n"
    )
    (tmp_path / "memory" / "2026-11-20.md").write_text(
        f"# 2026-11-20\n\n{heading}\n- Sent the invoice to Contoso (INV-2026-031, EUR 4,800), Priya in cc.\n"
    )
    run_offline(tmp_path, today=date(2026, 11, 21))
    assert "send invoice to Contoso" not in (tmp_path / "MEMORY.md").read_text()
    assert "done (memory/2026-11-20.md:4)" in (tmp_path / "memory" / "archive.md").read_text()
