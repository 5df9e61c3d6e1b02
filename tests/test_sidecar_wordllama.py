"""The default embedder (wordllama): loaded offline from its package, the hashing fallback when it is
missing or broken, and a store built by another embedder re-embedded on recall instead of refused."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from memory_sleep.config import Config, SidecarConfig
from memory_sleep.errors import ConfigError, StoreError
from memory_sleep.sidecar import (
    OfflineEmbedder,
    Sidecar,
    Store,
    build_embedder,
    embed_wordllama,
    open_sidecar,
)
from memory_sleep.sidecar.store import DB_NAME

from .sidecar_helpers import NOW, make_workspace, open_at

NOTE = "# 2026-11-20\n\n- the automobile is parked in the garage\n- quarterly revenue grew by ten percent\n"


def test_the_default_embedder_is_wordllama_loaded_from_its_package_without_the_network() -> None:
    embedder = build_embedder(Config().sidecar)  # conftest refuses every socket to the outside
    assert (embedder.id, embedder.dimensions) == ("wordllama:l2_supercat/256", 256)
    vectors = embedder.embed(["the car is in the garage", "账单系统什么时候切换", ""])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 256)


def test_wordllama_places_a_paraphrase_without_shared_words_above_unrelated_text() -> None:
    embedder = build_embedder(SidecarConfig())
    query, paraphrase, unrelated = embedder.embed(
        ["where is my vehicle?", "the automobile is parked in the garage", "quarterly revenue grew"]
    )
    assert float(query @ paraphrase) > float(query @ unrelated)
    hashing = OfflineEmbedder()
    h_query, h_paraphrase, _ = hashing.embed(
        ["where is my vehicle?", "the automobile is parked in the garage", ""]
    )
    assert float(h_query @ h_paraphrase) == pytest.approx(0.0, abs=0.2)  # no word in common, no meaning


def test_wordllama_truncates_to_its_smaller_sizes_and_refuses_others() -> None:
    assert build_embedder(SidecarConfig(dimensions=128)).embed(["a line"]).shape == (1, 128)
    with pytest.raises(
        ConfigError, match=r"sidecar\.dimensions = 100: the wordllama embedder gives 64, 128, 256"
    ):
        build_embedder(SidecarConfig(dimensions=100))


def test_the_default_embedder_loads_without_importing_wordllama_or_touching_logging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing wordllama costs a recall about half a second (requests, its pydantic config) and
    calls logging.basicConfig(level=INFO), which sent every INFO record to stderr."""
    for name in [name for name in sys.modules if name.split(".")[0] in ("wordllama", "requests")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(embed_wordllama, "_loaded", {})
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])  # as in the CLI: basicConfig acts only on a bare root
    before = (list(root.handlers), root.level)
    build_embedder(SidecarConfig()).embed(["where is my car?"])
    assert "wordllama" not in sys.modules and "requests" not in sys.modules
    assert (list(root.handlers), root.level) == before


@pytest.mark.parametrize("size", [256, 64])
def test_its_vectors_are_the_wordllama_package_s_own(size: int) -> None:
    import wordllama  # type: ignore[import-untyped]

    texts = ["where is my car?", "", "会议周四下午 🚀 deploy v0.10.1", "x " * 700, NOTE]
    package = wordllama.WordLlama.load(
        config="l2_supercat",
        cache_dir=embed_wordllama.package_folder(),
        disable_download=True,
        trunc_dim=None if size == 256 else size,
    )
    expected = package.embed(texts)
    assert np.array_equal(embed_wordllama.load_model(size).embed(texts), expected)


def test_the_weights_are_mapped_as_stored_and_only_the_rows_a_text_uses_are_widened() -> None:
    """Copying the file's 16 MB cost every recall process ~11 ms and widening all 32,000 rows to
    float32 ~15 ms more; the vectors are the package's own either way (the test above)."""
    model = embed_wordllama.load_model(128)
    assert isinstance(model.matrix, np.memmap)
    assert model.matrix.dtype == np.float16 and model.matrix.shape == (32_000, 128)
    assert model.embed(["where is my car?"]).dtype == np.float32


@pytest.mark.parametrize("failure", ["missing", "damaged weights", "damaged tokenizer"])
def test_without_a_loadable_wordllama_the_hashing_embedder_takes_over_with_one_notice(
    failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(embed_wordllama, "_loaded", {})
    if failure == "missing":
        monkeypatch.setitem(sys.modules, "wordllama", None)  # find_spec then says it is not there
    else:
        for folder in ("weights", "tokenizers"):
            shutil.copytree(embed_wordllama.package_folder() / folder, tmp_path / folder)
        damaged = "weights/l2_supercat_256.safetensors" if failure == "damaged weights" else None
        damaged = damaged or "tokenizers/l2_supercat_tokenizer_config.json"
        (tmp_path / damaged).write_bytes(b"neither safetensors nor JSON")
        monkeypatch.setattr(embed_wordllama, "package_folder", lambda: tmp_path)
    with caplog.at_level(logging.WARNING, logger="memory_sleep"):
        embedder = build_embedder(SidecarConfig())
    assert isinstance(embedder, OfflineEmbedder) and embedder.id == "offline-hash-v3/384"
    [notice] = caplog.messages
    assert notice.startswith("memory-sleep: the wordllama embedder did not load (")
    assert "using offline-hash-v3/384" in notice and "pip install wordllama" in notice and "\n" not in notice


def test_recall_on_a_store_built_by_another_embedder_re_embeds_it_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    with open_at(folder, OfflineEmbedder()) as sidecar:
        sidecar.index()
    with open_sidecar(folder, Config(), clock=lambda: NOW) as sidecar, caplog.at_level(logging.WARNING):
        hits = sidecar.recall("where is my vehicle?", k=1)
        assert sidecar.store.meta("embedder") == "wordllama:l2_supercat/256"
        assert {row[0] for row in sidecar.store.db.execute("SELECT DISTINCT dim FROM entries")} == {256}
        sidecar.recall("where is my vehicle?", k=1)
    assert "automobile" in hits[0].text
    assert caplog.messages == [
        "memory-sleep: the sidecar's vectors come from offline-hash-v3/384; re-embedding them with "
        "wordllama:l2_supercat/256 (once)."
    ]


def test_a_read_only_store_built_by_another_embedder_says_what_to_run(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    with open_at(folder, OfflineEmbedder()) as sidecar:
        sidecar.index()
    store = Store.open(folder / "memory" / ".sleep" / DB_NAME, read_only="a test opened it read-only")
    sidecar = Sidecar(store, build_embedder(SidecarConfig()), SidecarConfig(), clock=lambda: NOW)
    with (
        sidecar,
        pytest.raises(
            StoreError, match=r"run `memory-sleep index` to re-embed it, or recall with --mode text"
        ),
    ):
        sidecar.search("where is my vehicle?")


def test_a_long_text_costs_its_own_tokens_not_its_batch_s_and_only_its_start_is_read() -> None:
    """Each text is pooled over its own tokens: padding a batch of 64 to its longest text made one
    pasted line of a megabyte cost gigabytes; the vectors are the same, bit for bit. Past EMBED_CHARS
    a text is read from its start (the rest of a pasted megabyte line adds seconds, not meaning)."""
    import tracemalloc

    model = embed_wordllama.load_model(256)
    long = " ".join(f"item{n} ok" for n in range(4_000))[: embed_wordllama.EMBED_CHARS]
    texts = [long, *(f"short line {n}" for n in range(63))]
    alone = np.vstack([model.embed([text]) for text in texts])
    tracemalloc.start()
    together = model.embed(texts)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.array_equal(together, alone)
    assert peak < 40_000_000, peak  # padded to the long text: 64 x its ~12,000 tokens x 256 floats
    assert np.array_equal(model.embed([long + " and then a megabyte more"]), model.embed([long]))
