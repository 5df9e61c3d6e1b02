"""Building the SDK clients: the one place that reads API keys and imports an SDK.

Imported only when an LLM engine is chosen, so that an offline run never pays for the SDKs.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.calls import Progress
from memory_sleep.engines.model import ModelClient
from memory_sleep.errors import ConfigError

DEFAULT_MODELS = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4.1-mini"}
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
LOCAL_SERVER_KEY = "not-needed"  # Ollama, vLLM and llama.cpp accept any key


def model_client(provider: str, config: EngineConfig, state_dir: Path | None = None) -> ModelClient:
    """The ModelClient for `provider`, its SDK client built from config and the environment;
    `state_dir` (memory/.sleep) remembers which output mode each OpenAI-compatible server accepts."""
    model = config.model or DEFAULT_MODELS[provider]
    key = os.environ.get(KEY_VARIABLES[provider])
    if provider == "openai" and not key and config.base_url:
        key = LOCAL_SERVER_KEY
    if not key:
        raise ConfigError(
            f"No {KEY_VARIABLES[provider]}: set it, or run with --engine offline."
            + (" For a local OpenAI-compatible server set [engine] base_url." if provider == "openai" else "")
        )
    if provider == "anthropic":
        import anthropic

        from memory_sleep.engines.anthropic_client import AnthropicClient

        anthropic_sdk = anthropic.Anthropic(
            api_key=key,
            base_url=config.base_url,
            timeout=config.timeout_secs,
            max_retries=0,  # calls.py retries, counting and timing every request
        )
        return AnthropicClient(
            anthropic_sdk, model, "json_schema" if config.structured_output == "json_schema" else "tool"
        )
    import openai

    from memory_sleep.engines.openai_client import OpenAIClient
    from memory_sleep.engines.server_modes import ServerModes

    openai_sdk = openai.OpenAI(
        api_key=key,
        base_url=config.base_url,
        timeout=config.timeout_secs,
        max_retries=0,  # calls.py retries, counting and timing every request
    )
    return OpenAIClient(
        openai_sdk,
        model,
        "json_object" if config.structured_output == "json_object" else "json_schema",
        compatible_server=bool(config.base_url),
        server_modes=ServerModes(state_dir / "llm-servers.json" if state_dir else None),
    )


def provider_engine(
    provider: str, config: EngineConfig, workspace_root: Path | None, progress: Progress | None = None
) -> Engine:
    """An LLM engine for `provider`, caching answers under the workspace's memory/.sleep/llm-cache."""
    from memory_sleep.engines.llm import llm_engine

    state_dir = workspace_root / "memory" / ".sleep" if workspace_root else None
    cache_dir = state_dir / "llm-cache" if state_dir else None
    prompts_dir = config.prompts_dir
    if prompts_dir is not None and workspace_root is not None and not prompts_dir.is_absolute():
        prompts_dir = workspace_root / prompts_dir
    return llm_engine(model_client(provider, config, state_dir), config, cache_dir, prompts_dir, progress)
