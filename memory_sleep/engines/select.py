"""Choosing the engine for a run from --engine, config and the environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.offline import offline_engine
from memory_sleep.errors import ConfigError


def choose_engine_name(requested: str) -> str:
    """`auto` means anthropic with ANTHROPIC_API_KEY, else openai with OPENAI_API_KEY, else offline."""
    if requested != "auto":
        return requested
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if os.environ.get("OPENAI_API_KEY"):
        return "openai"
    return "offline"


def build_engine(
    config: EngineConfig,
    workspace_root: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> Engine:
    """The engine for a run; LLM engines cache answers under WORKSPACE/memory/.sleep/llm-cache and
    tell `progress` what they wait on."""
    name = choose_engine_name(config.name)
    if name == "offline":
        if config.require_llm:
            raise ConfigError(
                "--require-llm, but no provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or [engine] name and "
                "base_url for a local server). Nothing was changed."
            )
        return offline_engine()
    if name == "agent":
        from memory_sleep.engines.agent import agent_engine

        return agent_engine(config, workspace_root)
    from memory_sleep.engines.providers import (
        provider_engine,  # the SDKs load only here, never for an offline run
    )

    return provider_engine(name, config, workspace_root, progress)
