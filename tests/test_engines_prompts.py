"""Prompts that teach (examples, ids and dates shown, limits as checked, versions), doubles built
from values, and answers repaired or rejected the way real local servers need."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config, EngineConfig
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.llm import ENTRY_MAX_CHARS, llm_engine
from memory_sleep.engines.model import CallUsage, InvalidAnswer
from memory_sleep.engines.prompting import prompt_version
from memory_sleep.engines.schemas import (
    ClassifyAnswer,
    CloseAnswer,
    IntegrateAnswer,
    json_schema,
    parse_answer,
)
from memory_sleep.engines.testing import FunctionModel
from memory_sleep.engines.value_answers import values_answer
from memory_sleep.models import EntryView, KeptItem
from memory_sleep.workspace.layout import Workspace

from .conftest import FIXTURE_TODAY, REPO
from .test_engines_llm import MODEL_TEMPLATES, _entry, _integrate, _item, _kept

USAGE = CallUsage(10, 10)


@pytest.mark.parametrize("template", [*MODEL_TEMPLATES, "cron_prompt.md.j2"])
def test_every_template_declares_its_version(template: str) -> None:
    assert (
        prompt_version(template)
        == template.removesuffix(".md.j2") + "." + prompt_version(template).split(".")[-1]
    )
    assert not prompt_version(template).startswith("custom-")


def test_an_override_without_a_version_is_named_by_its_source(tmp_path: Path) -> None:
    (tmp_path / "nrem_classify.md.j2").write_text("mine {{ items }}")
    version = prompt_version("nrem_classify.md.j2", tmp_path)
    assert version.startswith("custom-") and version != prompt_version("nrem_classify.md.j2")


def test_prompt_versions_reach_the_sleep_log_and_the_cache_key(
    fixture_workspace: Path, tmp_path: Path
) -> None:
    config = Config(engine=EngineConfig())
    config.sidecar.enabled = False
    engine = llm_engine(FunctionModel(values_answer), config.engine, tmp_path / "cache")
    report = run_cycle(Workspace.open(fixture_workspace), config, engine, RunOptions(today=FIXTURE_TODAY))
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["promptVersions"] == {name: prompt_version(name) for name in MODEL_TEMPLATES}
    assert report.record.promptVersions["nrem_classify.md.j2"] == "nrem_classify.3"

    items, context = [_item(1, "Decided: billing uses Postgres 16")], ClassifyContext(projects=[], memory=[])
    first = FunctionModel(values_answer)
    llm_engine(first, EngineConfig(), tmp_path / "versions").classifier.classify(items, context)
    override = tmp_path / "prompts"
    override.mkdir()
    source = (REPO / "prompts" / "nrem_classify.md.j2").read_text()
    (override / "nrem_classify.md.j2").write_text(source.replace("nrem_classify.3", "nrem_classify.4"))
    again = FunctionModel(values_answer)
    llm_engine(again, EngineConfig(), tmp_path / "versions", override).classifier.classify(items, context)
    assert len(again.requests) == 1  # same text, new version: not answered from the cache


def test_nrem_shows_entry_ids_sections_dates_and_each_items_date() -> None:
    model = FunctionModel(values_answer)
    memory = [
        EntryView(ref="E4", section="Facts", topic="Atlas", text="Atlas is on :8443", day=date(2026, 11, 2))
    ]
    llm_engine(model, EngineConfig()).classifier.classify(
        [_item(1, "Atlas moved to :9443", day=date(2026, 11, 23))],
        ClassifyContext(projects=["Atlas"], memory=memory),
    )
    data = model.requests[0].prompt.data
    assert (
        '<entry id="E4" section="Facts" project="Atlas" date="2026-11-02">Atlas is on :8443</entry>' in data
    )
    assert '<item id="I1" date="2026-11-23" source=' in data


def test_both_decisions_see_the_lead_in_an_items_list_hangs_from() -> None:
    """An item under "Follow-ups:" ("ask Pim about the quota") is an action only read with its lead: the
    offline engine writes "Follow-ups › ..." (tests/test_lead_ins.py), a model is shown the lead."""
    item = dataclasses.replace(_item(1, "ask Pim about the quota"), lead="Follow-ups")
    plain = _item(2, "Atlas moved to :9443")
    model = FunctionModel(values_answer)
    engine = llm_engine(model, EngineConfig())
    engine.classifier.classify([item, plain], ClassifyContext(projects=[], memory=[]))
    _integrate(model, [KeptItem(item=item, category="action", topic=None), _kept(2, plain.text)], [])
    for request in model.requests:
        data = request.prompt.data
        assert '<item id="I1" ' in data and 'lead="Follow-ups">\nask Pim about the quota' in data
        assert data.count("lead=") == 1  # an item under no lead-in shows none
    assert [request.prompt.template for request in model.requests] == [
        "nrem_classify.md.j2",
        "rem_integrate.md.j2",
    ]


def test_rem_states_the_length_limit_its_check_enforces() -> None:
    model = FunctionModel(values_answer)
    _integrate(model, [_kept(1, "Atlas staging moved to :9443")], [_entry(1, "Atlas staging is on :8443")])
    instructions = model.requests[0].prompt.instructions
    assert f"at most {ENTRY_MAX_CHARS} characters" in instructions and "200 characters" not in instructions


@pytest.mark.parametrize(
    ("template", "cases"),
    [
        ("nrem_classify.md.j2", ["in other words", "looks like a fact", "closes_action true", "narrating"]),
        ("rem_integrate.md.j2", ["supersede E1", "update E3", "noop E1", "add, text", "(due 2026-11-27)"]),
        ("rem_close.md.j2", ["I1 closes E1", "I2 closes E3", "leave I3 out", "leave I4 out"]),
    ],
)
def test_decision_prompts_work_an_example_of_each_operation_and_hard_case(
    template: str, cases: list[str]
) -> None:
    text = (REPO / "prompts" / template).read_text()
    assert "Worked examples" in text
    assert all(case in text for case in cases)


@pytest.mark.parametrize("schema", [ClassifyAnswer, IntegrateAnswer, CloseAnswer])
def test_reason_comes_before_the_verdict(
    schema: type[ClassifyAnswer | IntegrateAnswer | CloseAnswer],
) -> None:
    answer = json_schema(schema)
    (listed,) = answer["properties"].values()
    fields = list(answer["$defs"][listed["items"]["$ref"].split("/")[-1]]["properties"])
    assert fields[0] == "reason"


def test_the_double_answers_from_values_so_rewording_a_prompt_changes_nothing(tmp_path: Path) -> None:
    items = [_item(1, "Decided: billing uses Postgres 16"), _item(2, "- [x] sent Dana the numbers")]
    context = ClassifyContext(projects=["Billing"], memory=[])
    plain = FunctionModel(values_answer)
    verdicts = llm_engine(plain, EngineConfig()).classifier.classify(items, context)
    (tmp_path / "nrem_classify.md.j2").write_text(
        "Sort these.{% for item in items %} [{{ item.text }}]{% endfor %}"
    )
    reworded = FunctionModel(values_answer)
    again = llm_engine(reworded, EngineConfig(), prompts_dir=tmp_path).classifier.classify(items, context)
    assert reworded.requests[0].prompt.data != plain.requests[0].prompt.data
    assert again == verdicts
    assert [v.topic for v in verdicts] == ["Billing", None] and [v.closes_action for v in verdicts] == [
        False,
        True,
    ]


def test_no_double_reads_prompt_text() -> None:
    assert not (REPO / "memory_sleep" / "engines" / "fake_brain.py").exists()
    source = (REPO / "memory_sleep" / "engines" / "value_answers.py").read_text()
    assert "prompt.values" in source
    assert "prompt.text" not in source and "prompt.data" not in source and "import re\n" not in source


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"closures": [{"reason": "done,\nsent", "item_id": "I1", "target": "E2"}]}', "done,\nsent"),
        (
            'Here is the JSON:\n{"closures": [{"reason": "r", "item_id": "I1", "target": "E2"}]}\nHope it helps!',
            "r",
        ),
        ('```json\n{"closures": [{"reason": "r", "item_id": "I1", "target": "E2"}]}\n```', "r"),
    ],
    ids=["raw newline in a string", "prose around the object", "fenced"],
)
def test_json_a_local_server_gets_slightly_wrong_is_repaired(raw: str, reason: str) -> None:
    assert parse_answer(raw, CloseAnswer, USAGE).closures[0].reason == reason


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"closures": [{"reason": "r", "item_id": "I1", "tar', "(the object is cut off)"),
        ("I cannot help with that.", "not valid JSON"),
        ('["I1", "E2"]', "does not match the schema"),
        ('{"closures": [{"item_id": "I1"}]}', "closures.0.reason: Field required"),
    ],
)
def test_json_beyond_repair_is_rejected_with_the_problem(raw: str, problem: str) -> None:
    with pytest.raises(InvalidAnswer, match=r".") as caught:
        parse_answer(raw, CloseAnswer, USAGE)
    assert problem in caught.value.problem
