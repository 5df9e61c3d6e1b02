"""The real-model evaluation's nights (benchmarks/realmodel/) on the fixture, with a real model's recorded
answers served to every request whatever it asked: no run crashes, nothing is lost, no note changes."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import openai
import pytest

from memory_sleep.config import Config, EngineConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.openai_client import OpenAIClient

from .fake_api import FakeAPI, Reply, serve

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from realmodel.client import Exchanges, TimedClient  # noqa: E402
from realmodel.nights import lost_entries, run_window  # noqa: E402
from realmodel.server import recording_proxy  # noqa: E402

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "workspace"
CASSETTES = sorted((Path(__file__).parent / "cassettes" / "real").glob("*.json"))
api = pytest.fixture(serve)


def _config(api: FakeAPI) -> Config:
    config = Config(
        engine=EngineConfig(name="openai", model="SmolLM2", base_url=api.url + "/v1", cache=False)
    )
    config.sidecar.enabled = False
    return config


@pytest.mark.slow  # two nights over the fixture: a few seconds
def test_a_real_models_answers_to_the_wrong_questions_neither_crash_a_night_nor_lose_anything(
    api: FakeAPI, tmp_path: Path
) -> None:
    answers = [json.loads(path.read_text(encoding="utf-8")) for path in CASSETTES]
    for answer in itertools.islice(itertools.cycle(answers), 400):
        api.queue.append(Reply(status=answer["status"], body=answer["response"]))
    exchanges = Exchanges()
    config = _config(api)

    with recording_proxy(api.url + "/v1", exchanges) as proxy_url:

        def engine(folder: Path) -> Engine:
            sdk = openai.OpenAI(api_key="not-needed", base_url=proxy_url, max_retries=0, timeout=5.0)
            client = TimedClient(OpenAIClient(sdk, "SmolLM2", compatible_server=True), exchanges)
            return llm_engine(client, config.engine)

        run = run_window("fixture", FIXTURE, 2, engine, config, tmp_path / "fixture", lambda _: None)

    assert [night.name for night in run.nights] == ["night 1", "night 2", "second run"]
    assert [night.crash for night in run.nights] == [None] * 3
    assert all(night.record and night.record.status == "ok" for night in run.nights)
    assert [night.lost for night in run.nights] == [[]] * 3
    assert [night.notes_changed for night in run.nights] == [[]] * 3
    assert run.second.changed == ()
    assert run.nights[0].record and run.nights[0].record.llmCalls > 0
    assert sum(exchanges.failures.values()) > 0  # the answers did not fit: repaired or decided offline


def test_an_entry_gone_from_memory_and_not_archived_is_lost(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\n## Facts\n- Atlas listens on 9090 (2026-01-05)\n")
    (tmp_path / "memory" / "archive.md").write_text("- [Facts] Atlas listens on 8080 (2026-01-01)\n")

    held = ["Atlas listens on 9090", "Atlas listens on 8080", "Beacon ships on Friday"]
    assert lost_entries(held, tmp_path) == ["Beacon ships on Friday"]
