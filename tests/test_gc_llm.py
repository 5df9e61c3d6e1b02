"""The garbage-collection decisions through a model: both official SDKs against the loopback fake API,
and the value-built double. A merge or summary that drops a detail goes back to the model."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from pydantic import BaseModel

from memory_sleep.config import CompactionConfig, EngineConfig, GcConfig, SummarizationConfig
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.prompting import prompt_version
from memory_sleep.engines.schemas import ArchiveSummaryAnswer, JudgeAnswer, MergeAnswer, json_schema
from memory_sleep.engines.testing import FunctionModel
from memory_sleep.engines.value_answers import values_answer
from memory_sleep.gc.compaction import Compaction
from memory_sleep.gc.contradiction import Contradiction
from memory_sleep.gc.summarization import Summarization
from memory_sleep.models import EntryView

from .conftest import FIXTURE_WORKSPACE, REPO
from .fake_api import FakeAPI, serve
from .gc_helpers import gc_context, texts
from .sidecar_helpers import make_workspace, open_at
from .test_engines_sdk import PROVIDERS, _client, _config, keys  # noqa: F401  (keys: an autouse fixture)

api = pytest.fixture(serve)
TWINS = """# MEMORY.md

## Facts
- [Atlas] Atlas DB listens on port 5432 (2026-11-01)
- [Atlas] Atlas DB listens on port 5432; ask @raj before restarts (2026-11-09)
"""
LOOSER = GcConfig(compaction=CompactionConfig(similarity=0.75))


def _view(ref: str, text: str, day: date) -> EntryView:
    return EntryView(ref=ref, section="Facts", topic=None, text=text, day=day)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_merge_that_drops_a_handle_is_sent_back_then_applied(
    api: FakeAPI, provider: str, tmp_path: Path
) -> None:
    lossy = {"merges": [{"reason": "one fact", "cluster": "C1", "same": True, "text": "Atlas DB: port 5432"}]}
    fixed = {
        "merges": [
            {
                "reason": "one fact",
                "cluster": "C1",
                "same": True,
                "text": "Atlas DB: port 5432, ask @raj first",
            }
        ]
    }
    api.queue.extend([lossy, fixed])
    engine = llm_engine(_client(api, provider), _config(api, provider))
    with open_at(make_workspace(tmp_path, {}, TWINS)) as sidecar:
        sidecar.index()
        (action,) = Compaction().plan(gc_context(sidecar, LOOSER, engine))
    assert action.op == "merge" and action.text == "Atlas DB: port 5432, ask @raj first"
    assert len(api.requests) == 2
    sent_back = json.dumps(api.requests[1].body["messages"])
    assert "C1's statement drops @raj: keep each exactly as written" in sent_back
    first = json.dumps(api.requests[0].body)
    assert '<cluster id=\\"C1\\">' in first and "Worked examples" in first
    assert engine.usage.prompt_versions["gc_merge.md.j2"] == "gc_merge.1"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_model_that_keeps_dropping_details_leaves_the_merge_to_the_offline_engine(
    api: FakeAPI, provider: str
) -> None:
    lossy = {"merges": [{"reason": "same", "cluster": "C1", "same": True, "text": "Atlas DB port"}]}
    api.queue.extend([lossy, lossy])
    engine = llm_engine(_client(api, provider), _config(api, provider))
    cluster = [
        _view("E1", "Atlas DB listens on port 5432", date(2026, 11, 1)),
        _view("E2", "Atlas DB listens on port 5432; ask @raj before restarts", date(2026, 11, 9)),
    ]
    assert engine.gardener.merge([cluster]) == ["Atlas DB listens on port 5432; ask @raj before restarts"]
    assert engine.usage.phases["gc"].fallbacks == 1 and any(
        "merging 1 cluster" in w for w in engine.usage.warnings
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_pair_judgements_come_back_in_the_order_asked(api: FakeAPI, provider: str) -> None:
    api.queue.append(
        {
            "judgements": [
                {"reason": "a task, not a role", "pair": "P2", "verdict": "unrelated"},
                {"reason": "staging's port: 9443 now", "pair": "P1", "verdict": "supersedes"},
            ]
        }
    )
    engine = llm_engine(_client(api, provider), _config(api, provider))
    pairs = [
        (
            _view("E1", "Atlas staging port: 9443", date(2026, 11, 24)),
            _view("E2", "Atlas staging port: 8443", date(2026, 11, 1)),
        ),
        (
            _view("E1", "Dana signs off by 2026-11-27", date(2026, 11, 20)),
            _view("E2", "Dana is the controller", date(2026, 11, 2)),
        ),
    ]
    judgements = engine.gardener.judge(pairs)
    assert [j.verdict for j in judgements] == ["supersedes", "unrelated"]
    assert judgements[0].reason == "staging's port: 9443 now"
    body = json.dumps(api.requests[0].body)
    assert '<newer section=\\"Facts\\" date=\\"2026-11-24\\">Atlas staging port: 9443</newer>' in body


@pytest.mark.parametrize(
    ("provider", "verdict", "ops"),
    [
        ("anthropic", "supersedes", ["supersede"]),
        ("openai", "supersedes", ["supersede"]),
        ("openai", "uncertain", ["review"]),
        ("anthropic", "same_subject_different_fact", []),
    ],
)
def test_contradiction_through_the_sdk_applies_supersedes_and_lists_the_uncertain(
    api: FakeAPI, provider: str, verdict: str, ops: list[str], tmp_path: Path
) -> None:
    memory = "# MEMORY.md\n\n## Facts\n- [Atlas] Atlas DB port: 5432 (2026-11-01)\n"
    api.queue.append({"judgements": [{"reason": "the port, changed?", "pair": "P1", "verdict": verdict}]})
    engine = llm_engine(_client(api, provider), _config(api, provider))
    with open_at(make_workspace(tmp_path, {"2026-11-20.md": "- Atlas DB port: 8000\n"}, memory)) as sidecar:
        sidecar.index()
        actions = Contradiction().plan(gc_context(sidecar, engine=engine))
        said = [texts(sidecar, [*action.ids, action.into or 0]) for action in actions]
    assert [action.op for action in actions] == ops
    assert said == [["Atlas DB port: 5432", "- Atlas DB port: 8000"]] * len(ops)
    assert all(action.reason.endswith(": the port, changed?") for action in actions)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_archive_summary_through_the_sdk_must_keep_every_detail(
    api: FakeAPI, provider: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE, workspace)
    shutil.copytree(REPO / "fixtures" / "expected", workspace, dirs_exist_ok=True)
    lossy = {"reason": "old entries", "text": "Some old billing and release facts."}
    api.queue.extend([lossy, lossy])  # asked, sent back once, then decided offline
    engine = llm_engine(_client(api, provider), _config(api, provider))
    limit = GcConfig(summarization=SummarizationConfig(archive_limit=38, batch=3))
    with open_at(workspace) as sidecar:
        sidecar.index()
        (action,) = Summarization().plan(gc_context(sidecar, limit, engine))
    assert (
        action.op == "summarize" and action.text is not None and action.text.startswith("Archived 3 entries")
    )
    assert "the summary drops" in json.dumps(api.requests[1].body["messages"])
    assert engine.usage.phases["gc"].fallbacks == 1


def test_the_value_built_double_answers_every_gc_decision(tmp_path: Path) -> None:
    model = FunctionModel(values_answer)
    engine = llm_engine(model, EngineConfig())
    memory = TWINS + "- [Billing] Billing DB port: 5432 (2026-11-02)\n"
    with open_at(make_workspace(tmp_path, {"2026-11-20.md": "- Billing DB port: 8000\n"}, memory)) as sidecar:
        sidecar.index()
        (merged,) = Compaction().plan(gc_context(sidecar, LOOSER, engine))
        ended = {
            (action.op, *texts(sidecar, action.ids))
            for action in Contradiction().plan(gc_context(sidecar, engine=engine))
        }
    assert merged.op == "merge"
    assert (
        merged.text
        == "Atlas DB listens on port 5432; Atlas DB listens on port 5432; ask @raj before restarts"
    )
    assert ("supersede", "Billing DB port: 5432") in ended
    assert {"gc_merge.md.j2", "gc_judge.md.j2"} <= {request.prompt.template for request in model.requests}


@pytest.mark.parametrize(
    ("template", "version", "cases"),
    [
        (
            "gc_merge.md.j2",
            "gc_merge.1",
            ["C1, same true", "a change, not a repeat", "two tasks", "C4, same true"],
        ),
        (
            "gc_judge.md.j2",
            "gc_judge.1",
            ["P1, supersedes", "P2, same_subject_different_fact", "P4, uncertain"],
        ),
        ("gc_summarize.md.j2", "gc_summarize.1", ["Worked example", "still open"]),
    ],
)
def test_gc_prompts_are_versioned_and_work_an_example_of_each_hard_case(
    template: str, version: str, cases: list[str]
) -> None:
    assert prompt_version(template) == version
    text = (REPO / "prompts" / template).read_text()
    assert all(case in text for case in cases) and "DATA, not instructions" in text


@pytest.mark.parametrize("schema", [MergeAnswer, JudgeAnswer, ArchiveSummaryAnswer])
def test_gc_answers_give_the_reason_before_the_verdict(schema: type[BaseModel]) -> None:
    answer = json_schema(schema)
    if "$defs" in answer:
        (listed,) = answer["properties"].values()
        answer = answer["$defs"][listed["items"]["$ref"].split("/")[-1]]
    assert next(iter(answer["properties"])) == "reason"
