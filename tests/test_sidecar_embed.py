"""Embedders: the offline hashing embedder (deterministic, CJK-aware), OpenAI over a loopback server, local models."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import openai
import pytest

from memory_sleep.config import SidecarConfig
from memory_sleep.errors import ConfigError, ProviderError
from memory_sleep.sidecar import OfflineEmbedder
from memory_sleep.sidecar.embed_local import local_embedder, resolve_model_path
from memory_sleep.sidecar.embed_openai import OpenAIEmbedder
from memory_sleep.text import terms

from .sidecar_helpers import make_workspace, open_at


def _cosine(embedder: OfflineEmbedder, a: str, b: str) -> float:
    vectors = embedder.embed([a, b])
    return float(vectors[0] @ vectors[1])


def test_offline_vectors_are_deterministic_unit_rows() -> None:
    texts = ["Atlas cutover on 2026-12-01", "", "会议改到周四下午"]
    first, second = OfflineEmbedder().embed(texts), OfflineEmbedder().embed(texts)
    assert first.dtype == np.float32 and first.shape == (3, 384)
    assert np.array_equal(first, second)
    assert np.allclose(np.linalg.norm(first[[0, 2]], axis=1), 1.0) and not first[1].any()


def test_offline_embedder_places_paraphrases_closer_than_unrelated_text() -> None:
    embedder = OfflineEmbedder()
    anchor = "Cobalt is cancelled; shut down the Spark cluster on Monday"
    assert _cosine(embedder, anchor, "why was the cobalt experiment called off?") > _cosine(
        embedder, anchor, "Maya prefers async updates in Slack"
    )
    assert _cosine(embedder, "migrations", "migration") > 0.5


def test_cjk_is_split_into_bigrams_not_one_token_per_line() -> None:
    assert terms("会议改到周四") == ["会议", "议改", "改到", "到周", "周四"]
    assert terms("Wei 在 Linear 里写道") == ["wei", "在", "linear", "里写", "写道"]
    assert terms("会議は木曜日に変更") == ["会議", "議は", "は木", "木曜", "曜日", "日に", "に変", "変更"]
    assert len(terms("회의를 목요일로 옮겼다")) > 3


def test_cjk_text_embeds_and_dedupes_sensibly(tmp_path: Path) -> None:
    embedder = OfflineEmbedder()
    same = _cosine(embedder, "会议改到周四下午三点", "会议 改到 周四 下午 三点")
    near = _cosine(embedder, "会议改到周四下午三点", "周四下午三点开会")
    far = _cosine(embedder, "会议改到周四下午三点", "服务器证书明年二月过期")
    assert same == pytest.approx(1.0, abs=1e-6) and near > 0.3 > far
    note = "- 会议改到周四下午三点\n- 会议 改到 周四 下午 三点\n- 服务器证书明年二月过期\n"
    folder = make_workspace(tmp_path, {"2026-11-20.md": note})
    with open_at(folder, embedder) as sidecar:
        assert sidecar.index().added == 2
        hits = sidecar.search("周四的会议几点开始？", k=1)
    assert "会议" in hits[0].text


class _FakeEmbeddings(BaseHTTPRequestHandler):
    """POST /v1/embeddings like OpenAI: deterministic vectors; scripted failures first."""

    failures: ClassVar[list[int]] = []
    requests: ClassVar[list[dict[str, Any]]] = []
    dimensions = 8

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if type(self).failures:
            status = type(self).failures.pop(0)
            self._reply(status, {"error": {"message": "scripted failure", "type": "server_error"}})
            return
        size = body.get("dimensions", self.dimensions)
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(text) + j) for j in range(size)]}
            for i, text in enumerate(body["input"])
        ]
        tokens = sum(len(text.split()) for text in body["input"])
        self._reply(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_server() -> Iterator[str]:
    _FakeEmbeddings.failures = []
    _FakeEmbeddings.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeEmbeddings)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def _client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="test", base_url=base_url, max_retries=0, timeout=5)


def test_openai_embedder_sends_batches_and_counts_tokens_and_cost(fake_server: str) -> None:
    embedder = OpenAIEmbedder(_client(fake_server), dimensions=8, sleep=lambda _: None)
    vectors = embedder.embed(["one two", "three"])
    assert vectors.shape == (2, 8) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    request = _FakeEmbeddings.requests[0]
    assert (request["model"], request["dimensions"], request["input"]) == (
        "text-embedding-3-small",
        8,
        ["one two", "three"],
    )
    assert (embedder.usage.calls, embedder.usage.input_tokens) == (1, 3)
    assert embedder.usage.cost_usd == pytest.approx(3 * 0.02 / 1e6)
    assert embedder.id == "openai:text-embedding-3-small/8"


def test_openai_embedder_retries_server_errors_then_gives_a_clear_error(fake_server: str) -> None:
    embedder = OpenAIEmbedder(_client(fake_server), dimensions=8, max_retries=2, sleep=lambda _: None)
    _FakeEmbeddings.failures = [500, 429]
    assert embedder.embed(["x"]).shape == (1, 8)
    assert embedder.usage.retries == 2
    _FakeEmbeddings.failures = [500, 500, 500]
    with pytest.raises(ProviderError, match="after 3 attempts"):
        embedder.embed(["x"])
    _FakeEmbeddings.failures = [401]
    with pytest.raises(ProviderError, match=r"HTTP 401.*API key"):
        embedder.embed(["x"])


def test_an_openai_compatible_server_with_other_dimensions_is_reported(fake_server: str) -> None:
    embedder = OpenAIEmbedder(_client(fake_server), model="nomic-embed-text", dimensions=384, server="ollama")
    with pytest.raises(ProviderError, match=r"sidecar\.dimensions = 8"):
        embedder.embed(["x"])
    assert "dimensions" not in _FakeEmbeddings.requests[0]


def test_openai_embedder_indexes_a_workspace_in_batches(fake_server: str, tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": "".join(f"- item number {i}\n" for i in range(5))})
    embedder = OpenAIEmbedder(_client(fake_server), dimensions=16)
    config_sidecar = SidecarConfig(batch_size=2, dimensions=16)
    from memory_sleep.config import Config

    with open_at(folder, embedder, Config(sidecar=config_sidecar)) as sidecar:
        assert sidecar.index().added == 5
    assert [len(r["input"]) for r in _FakeEmbeddings.requests] == [2, 2, 1]


def test_the_local_embedder_loads_only_from_a_folder_or_an_installed_package(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="never downloads models"):
        resolve_model_path("sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(ConfigError, match=r"needs sidecar\.model"):
        resolve_model_path(None)
    assert resolve_model_path("memory_sleep").name == "memory_sleep"
    model_dir = tmp_path / "minilm"
    model_dir.mkdir()

    class Model:
        def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
            return np.ones((len(texts), 16))

    loaded: list[Path] = []
    embedder = local_embedder(
        SidecarConfig(embedder="local", model=str(model_dir), dimensions=16),
        loader=lambda path: loaded.append(path) or Model(),
    )
    assert loaded == [model_dir] and embedder.id == "local:minilm/16"
    assert embedder.embed(["a", "b"]).shape == (2, 16)
