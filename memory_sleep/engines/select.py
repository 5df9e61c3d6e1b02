"""Choosing the engine for a run from --engine, config and the environment."""

from __future__ import annotations

import os

from ..config import EngineConfig
from ..errors import ConfigError
from .base import Engine
from .offline import offline_engine


def choose_engine_name(requested: str) -> str:
    """`auto` means anthropic with ANTHROPIC_API_KEY, else openai with OPENAI_API_KEY, else offline."""
    if requested != "auto":
        return requested
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if os.environ.get("OPENAI_API_KEY"):
        return "openai"
    return "offline"


def build_engine(config: EngineConfig) -> Engine:
    name = choose_engine_name(config.name)
    if name == "offline":
        return offline_engine()
    raise ConfigError(f"The {name} engine is not available in this version yet. Run with --engine offline.")
