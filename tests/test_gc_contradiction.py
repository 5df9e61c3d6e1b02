"""Contradiction resolution (issue 19, item 6): a newer entry ends an older one only on the same attribute."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.engines.base import PairJudgement
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.offline.gardening import OfflineGardener, judge_pair
from memory_sleep.gc.contradiction import Contradiction, candidate_pairs
from memory_sleep.models import EntryView

from .conftest import FIXTURE_WORKSPACE, REPO
from .gc_helpers import gc_context, texts, with_gardener
from .sidecar_helpers import make_workspace, open_at

MEMORY = """# MEMORY.md

## Facts
- [Atlas] Atlas DB port: 5432 (2026-11-01)
- [Atlas] Atlas billing gateway IP is 10.0.0.5 (2026-10-20)
- [Beacon] Beacon release 1.4 target date is 2026-11-19 (2026-10-29)
- [Cobalt] Cobalt cluster is 3 nodes, about $1,900/month (2026-10-27)
- Staging port: 8443
"""
NOTE = """# 2026-11-20

- Atlas DB port: 8000
- Atlas prod DB port: 6543
- Atlas billing gateway IP is 10.0.0.7
- Beacon release 1.4 target date is 2026-11-26
- Cobalt cluster costs $2,400/month on 5 nodes
- Staging port: 9443
"""


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("Atlas DB port: 8000", "Atlas DB port: 5432"),
        ("Fornax exporter listens on 8000", "Fornax exporter listens on 5432"),
        ("Billing VPN gateway IP is 10.0.0.7", "Billing VPN gateway IP is 10.0.0.5"),
        ("Billing DB host: db-02.internal", "Billing DB host: db-01.internal"),
        ("Billing uses Postgres 16", "Billing uses Postgres 15"),
        ("Release 1.4 target date is 2026-11-26", "Release 1.4 target date is 2026-11-19"),
        ("Support budget: $2,400/month", "Support budget: $1,900/month"),
        ("Raj's Slack handle: @rpatel", "Raj's Slack handle: @raj"),
        ("09:10 Atlas DB port: 8000", "Atlas DB port: 5432"),  # the time of day a note line starts with
        # the release's claim changed, the old one named after the new (REM's statements.demotes)
        (
            "Pavo v0.15.0 now ships the SSO login; audit log v2 slips",
            "22:12 Pavo v0.15.0 now ships audit log v2",
        ),
        (
            "Pavo v0.15.0 now ships the SSO login; audit log v2 slips",
            "Pavo v0.15.0 now ships audit log v2; quotas slip (previously: Pavo v0.15.0 will ship quotas)",
        ),
    ],
)
def test_a_new_typed_value_of_the_same_key_supersedes(newer: str, older: str) -> None:
    assert judge_pair(newer, older).verdict == "supersedes"


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("Atlas DB host: db-02.internal", "Atlas DB port: 5432"),  # another attribute
        ("Atlas prod DB port: 6543", "Atlas DB port: 5432"),  # another thing
        ("Borealis auth lives on do-fra1-01", "Borealis auth port: 9643"),
        ("18:00 HEARTBEAT_OK", "09:00 HEARTBEAT_OK"),  # two moments, not two values
        # a numbered part of a list is one of several, in whichever list it stands
        ("Phase 2: Optimized Chunking (SHORT-TERM)", "Phase 1: Hybrid Search (IMMEDIATE)"),
        ("Phase 1: Services ($5-20K/mo)", "**Phase 1: Hybrid Search (IMMEDIATE)**"),
        ("- Step 2: migrate the cache", "Step 1: freeze writes"),
        # under the lead-in their list hangs from, as MEMORY.md words them (a new user's real notes)
        (
            "3-phase business model › Phase 2: SaaS ($20-100K/mo)",
            "3-phase business model › Phase 1: Services ($5-20K/mo)",
        ),
        # the same line, once as an item of a numbered list
        (
            "2. If name drifting: make alias stub or update registry",
            "If name drifting: make alias stub or update registry",
        ),
        ("3. Deploy window: Friday evening", "Deploy window: Friday evening"),
        ("Maya prefers async updates", "Raj handles infra requests in #infra"),
        ("Pavo v1.10.2 will ship audit log v2", "Pavo v1.9.4 will ship audit log v2"),  # two releases
        (
            "Pavo v0.15.0 will ship quotas",
            "Pavo v0.15.0 now ships audit log v2; quotas slip",
        ),  # no claim named
        (  # the label says whose decision: the subject leaves it out
            "Decision for Pavo: bugs only until the 2026-10-29 release, because it removes a moving part",
            "Decision: Decision for Vela: bugs only until the 2026-10-08 release, because it removes a moving part",
        ),
        (
            "Tom: build 205 with the illustrations on Monday",
            "Tom: das schaffen wir nicht bis zum 19., lass uns auf den 26. gehen",
        ),
    ],
)
def test_a_related_topic_is_not_superseded(newer: str, older: str) -> None:
    assert judge_pair(newer, older).verdict in ("same_subject_different_fact", "unrelated")


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("Cobalt cluster costs $2,400/month on 5 nodes", "Cobalt cluster costs $1,900/month on 3 nodes"),
        ("Proseware contact: Jo", "Proseware contact: Dev"),  # a new contact, or a second one?
    ],
)
def test_what_structure_cannot_settle_is_uncertain(newer: str, older: str) -> None:
    assert judge_pair(newer, older).verdict == "uncertain"


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("Port: 9090", "Port: 8080"),
        ("**Uptime:** 4d 11h", "Uptime: 45d 0h"),  # the colon inside the bold key
        ("**访问地址**: http://localhost:5002", "访问地址: http://localhost:5001"),
        ("总行数: 9,579 行", "总行数: 558 行"),
        ("仓库: https://github.com/agno-agi/agno", "仓库：https://github.com/acme/memory-viz"),  # a CJK colon
        ("- **开始时间**: 2026-03-12 10:34", "开始时间: 2026-02-28"),
        ("问题: 工作空间需要与用户进行绑定管理", "问题: 工作空间创建时出现错误"),
    ],
)
def test_a_field_of_one_word_names_one_thing_only_in_one_place(newer: str, older: str) -> None:
    # "Port:" under "## Gateway" and under "## Grafana" are the ports of two services
    assert judge_pair(newer, older).verdict == "unrelated"
    assert judge_pair(newer, older, one_place=True).verdict in ("supersedes", "uncertain")


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("dependabot: merged 33 PRs for Nimbus", "dependabot: merged 8 PRs for Beacon"),
        ("[14:00] heartbeat: no new messages in #beacon-dev", "heartbeat: no new messages in #nimbus-dev"),
    ],
)
def test_a_field_whose_values_name_two_things_is_of_two(newer: str, older: str) -> None:
    assert judge_pair(newer, older, one_place=True).verdict == "same_subject_different_fact"


@pytest.mark.usefixtures("sidecar_store")
def test_on_the_sidecar_supersedes_on_typed_changes_and_lists_the_uncertain(tmp_path: Path) -> None:
    with open_at(make_workspace(tmp_path, {"2026-11-20.md": NOTE}, MEMORY)) as sidecar:
        sidecar.index()
        context = gc_context(sidecar)
        actions = Contradiction().plan(context)
        said = {
            (action.op, *texts(sidecar, action.ids), *texts(sidecar, [action.into or 0]))
            for action in actions
        }
        live = sidecar.store.db.execute("SELECT count(*) FROM entries WHERE valid_to IS NULL").fetchone()
    assert said == {
        ("supersede", "Atlas DB port: 5432", "- Atlas DB port: 8000"),
        ("supersede", "Atlas billing gateway IP is 10.0.0.5", "- Atlas billing gateway IP is 10.0.0.7"),
        (
            "supersede",
            "Beacon release 1.4 target date is 2026-11-19",
            "- Beacon release 1.4 target date is 2026-11-26",
        ),
        (
            "review",
            "Cobalt cluster is 3 nodes, about $1,900/month",
            "- Cobalt cluster costs $2,400/month on 5 nodes",
        ),
        ("review", "Staging port: 8443", "- Staging port: 9443"),  # undated: nothing says which is newer
    }
    assert all(action.day == date(2026, 11, 20) for action in actions)
    assert live[0] == len(context.entries)  # decided, not applied


GATEWAY_NOTE = """# 2026-11-20

## Gateway
- Port: 8080
- Port: 9090

## Grafana
- Port: 3000
"""


@pytest.mark.usefixtures("sidecar_store")
def test_on_the_sidecar_a_field_is_compared_only_within_the_section_its_entry_was_written_in(
    tmp_path: Path,
) -> None:
    memory = "# MEMORY.md\n\n## Facts\n- Port: 8080 (2026-11-20)\n"
    with open_at(make_workspace(tmp_path, {"2026-11-20.md": GATEWAY_NOTE}, memory)) as sidecar:
        sidecar.index()
        actions = Contradiction().plan(gc_context(sidecar))
        said = {(action.op, *texts(sidecar, [*action.ids, action.into or 0])) for action in actions}
    # the entry was written from the Gateway section: Grafana's port is another thing's; of one day
    # and two files, nothing says which of the Gateway ports is newer
    assert said == {("review", "Port: 8080", "- Port: 9090")}


@pytest.mark.usefixtures("sidecar_store")
def test_on_the_fixture_workspace_after_a_run_nothing_is_superseded_offline(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, workspace)
    shutil.copytree(REPO / "fixtures" / "expected", workspace, dirs_exist_ok=True)
    with open_at(workspace) as sidecar:
        sidecar.index()
        context = gc_context(sidecar)
        pairs = candidate_pairs(context)
        actions = Contradiction().plan(context)
    assert len(pairs) > 100 and all(older.kind == "memory" for _, older in pairs)
    # REM already archived what changed; what is left are related topics, which stay
    assert Counter(action.op for action in actions) == Counter()


class CountingJudge(OfflineGardener):
    """The offline gardener, counting the pairs it is asked to judge."""

    def __init__(self) -> None:
        self.asked = 0

    def judge(self, pairs: Sequence[tuple[EntryView, EntryView]]) -> list[PairJudgement]:
        self.asked += len(pairs)
        return super().judge(pairs)


def test_a_pair_judged_to_change_nothing_last_pass_is_not_asked_again(tmp_path: Path) -> None:
    """A steady night at 365 days asked 342 pairs, each answered as the night before (97 with it)."""
    with open_at(make_workspace(tmp_path, {"2026-11-20.md": NOTE}, MEMORY)) as sidecar:
        sidecar.index()
        first, again = CountingJudge(), CountingJudge()
        context = with_gardener(gc_context(sidecar), first, "judged")
        expected = Contradiction().plan(context)
        later = with_gardener(context, again, "judged")
        assert Contradiction().plan(later) == expected
        other = CountingJudge()
        another = dataclasses.replace(
            later, engine=dataclasses.replace(offline_engine(), name="another", gardener=other)
        )
        assert Contradiction().plan(another) == expected
    changing = len(expected)  # the supersedes and the uncertain, listed for review
    assert first.asked > changing  # some pairs change nothing
    assert again.asked == changing  # only those that changed something are asked again
    assert other.asked == first.asked  # another engine's answers are its own
