"""Importance is an engine operation: the offline rules, the model's prompt (versioned, with worked
examples, answered from values by the double) and the fallback when the model's answer is unusable."""

from __future__ import annotations

from datetime import date

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import RatedEntry
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.prompting import prompt_version
from memory_sleep.engines.testing import FunctionModel, ScriptedModel
from memory_sleep.engines.value_answers import values_answer

ENTRIES = [
    RatedEntry(1, "Job queue moves to Postgres 16", "decision", "memory", date(2026, 11, 2)),
    RatedEntry(2, "CI green again", "status", "note", date(2026, 11, 3)),
    RatedEntry(3, "heartbeat ok 04:10", "heartbeat", "note", date(2026, 11, 3)),
    RatedEntry(4, "Dana's on-call handle is @dana-ops", "fact", "note", date(2026, 11, 3), days_written=3),
    RatedEntry(5, "Dana's on-call handle is @dana-ops", "fact", "note", date(2026, 11, 3)),
]


def test_offline_rates_by_category_structure_and_recurrence() -> None:
    rated = offline_engine().rater.rate(ENTRIES)
    assert rated[1] > rated[4] > rated[2] > rated[3]
    assert rated[4] > rated[5]  # written on three days
    assert all(0 <= value <= 1 for value in rated.values())


def test_the_model_rates_through_a_versioned_prompt_with_examples() -> None:
    model = FunctionModel(values_answer)
    rated = llm_engine(model, EngineConfig()).rater.rate(ENTRIES)
    assert rated == {1: 0.9, 2: 0.5, 3: 0.1, 4: 0.5, 5: 0.5}
    [request] = model.requests
    assert request.prompt.template == "gc_importance.md.j2"
    assert 'id="E4" kind="note" category="fact" date="2026-11-03" days_written="3"' in request.prompt.text
    assert (
        "Worked examples" in request.prompt.text
        and prompt_version("gc_importance.md.j2") == "gc_importance.1"
    )


def test_an_unusable_answer_is_sent_back_then_rated_offline() -> None:
    wrong = {"ratings": [{"reason": "x", "id": "E9", "importance": 0.5}]}
    model = ScriptedModel([wrong, wrong])
    rated = llm_engine(model, EngineConfig()).rater.rate(ENTRIES)
    assert len(model.requests) == 2 and "E9 does not exist" in model.requests[1].history[0].problem
    assert rated == offline_engine().rater.rate(ENTRIES)
