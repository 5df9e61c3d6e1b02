"""Embeddings from OpenAI (text-embedding-3-small by default) or any OpenAI-compatible server
(Ollama, vLLM, llama.cpp) through `base_url`: batched, retried with backoff, tokens and cost counted."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import numpy as np

from memory_sleep.errors import ConfigError, ProviderError
from memory_sleep.sidecar.embed import EmbeddingUsage, Vectors, l2_normalise

if TYPE_CHECKING:
    from memory_sleep.config import SidecarConfig

DEFAULT_MODEL = "text-embedding-3-small"
# USD per million input tokens, list prices; sidecar.price_per_million_tokens overrides
PRICES = {"text-embedding-3-small": 0.02, "text-embedding-3-large": 0.13, "text-embedding-ada-002": 0.10}
MAX_INPUT_CHARS = 24_000  # well under the 8,191-token input limit


class OpenAIEmbedder:
    """Calls `client.embeddings.create`; the client (openai.OpenAI or a compatible object) is passed in."""

    def __init__(
        self,
        client: Any,
        model: str = DEFAULT_MODEL,
        dimensions: int = 384,
        server: str | None = None,
        price_per_million: float | None = None,
        max_retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.model = model
        self.dimensions = dimensions
        self.send_dimensions = model.startswith("text-embedding-3")
        self.server = server
        self.price = price_per_million if price_per_million is not None else PRICES.get(model)
        self.max_retries = max_retries
        self.sleep = sleep
        self.id = f"openai:{model}{'@' + server if server else ''}/{dimensions}"
        self.usage = EmbeddingUsage()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        inputs = [text[:MAX_INPUT_CHARS] if text.strip() else " " for text in texts]
        response = self._call(inputs)
        rows = sorted(response.data, key=lambda item: item.index)
        matrix = np.array([row.embedding for row in rows], dtype=np.float32)
        if matrix.shape != (len(texts), self.dimensions):
            got = matrix.shape[1] if matrix.ndim == 2 else "no"
            raise ProviderError(
                "openai",
                f"embeddings from {self.model} have {got} dimensions, not {self.dimensions}. "
                f"Set sidecar.dimensions = {got} in memory-sleep.toml to match the model.",
            )
        tokens = int(getattr(getattr(response, "usage", None), "prompt_tokens", 0) or 0)
        self.usage.calls += 1
        self.usage.input_tokens += tokens
        if self.price is not None:
            self.usage.cost_usd = round(self.usage.cost_usd + tokens * self.price / 1e6, 8)
        return l2_normalise(matrix)

    def _call(self, inputs: list[str]) -> Any:
        import openai

        options: dict[str, Any] = {"model": self.model, "input": inputs, "encoding_format": "float"}
        if self.send_dimensions:
            options["dimensions"] = self.dimensions
        for attempt in range(self.max_retries + 1):
            try:
                return self.client.embeddings.create(**options)
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as error:
                if attempt == self.max_retries:
                    raise ProviderError(
                        "openai",
                        f"embeddings call failed after {attempt + 1} attempts ({_describe(error)}). "
                        'Check the server, or set sidecar.embedder = "offline".',
                        getattr(error, "status_code", None),
                    ) from None
                self.usage.retries += 1
                self.sleep(min(30.0, 0.5 * 2**attempt))
            except openai.APIStatusError as error:
                raise ProviderError(
                    "openai",
                    f"embeddings call rejected with HTTP {error.status_code} ({_describe(error)}). "
                    "Check sidecar.model and the API key.",
                    error.status_code,
                ) from None
        raise AssertionError("unreachable")


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {getattr(error, 'message', None) or error}"


def openai_embedder(config: SidecarConfig) -> OpenAIEmbedder:
    """Build the embedder from `[sidecar]`, reading the key from the environment variable it names."""
    import openai

    key = os.environ.get(config.api_key_env)
    if not key and not config.base_url:
        raise ConfigError(
            f"No {config.api_key_env} for the openai embedder: set it, or set sidecar.embedder = "
            '"offline" in memory-sleep.toml.'
        )
    client = openai.OpenAI(
        api_key=key or "not-needed",
        base_url=config.base_url,
        timeout=config.timeout_secs,
        max_retries=0,
    )
    server = urlparse(config.base_url).netloc if config.base_url else None
    return OpenAIEmbedder(
        client,
        config.model or DEFAULT_MODEL,
        config.dimensions or 384,
        server,
        config.price_per_million_tokens,
        config.max_retries,
    )
