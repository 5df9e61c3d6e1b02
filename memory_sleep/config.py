"""memory-sleep.toml: every key, its default, and a message naming the key when a value is wrong."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_sleep.errors import ConfigError

# where a user finds every key, installed from a wheel (no README.md at hand) or not
KEYS_HINT = (
    "Every key is in the memory-sleep.toml `memory-sleep init` writes, commented at its default "
    "(`memory-sleep init /tmp/fresh` for a fresh one); README.md's Configuration explains them."
)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelPrice(_Section):
    """USD per million tokens; `cached_input` for prompt-cache reads (default: the input price)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


class AgentConfig(_Section):
    """`[engine.agent]`: the host agent as the engine (`--engine agent`), answering requests through files."""

    expire_hours: float = Field(default=72.0, gt=0)
    request_max_tokens: int = Field(default=8_000, ge=500)


class EngineConfig(_Section):
    name: Literal["auto", "offline", "anthropic", "openai", "agent"] = "auto"
    model: str | None = None
    base_url: str | None = None
    timeout_secs: float = Field(default=60.0, gt=0)
    deadline_secs: float = Field(default=600.0, gt=0)
    max_tokens_per_run: int = Field(default=200_000, ge=0)
    batch_size: int = Field(default=20, ge=1)
    prompts_dir: Path | None = None
    max_retries: int = Field(default=2, ge=0, le=10)
    max_output_tokens: int = Field(default=4096, ge=256)
    repair_attempts: int = Field(default=1, ge=0, le=3)
    breaker_failures: int = Field(default=3, ge=1)
    context_bytes: int = Field(default=6_000, ge=0)
    candidates_per_item: int = Field(default=8, ge=1, le=1_000)
    structured_output: Literal["auto", "tool", "json_schema", "json_object"] = "auto"
    require_llm: bool = False
    cache: bool = True
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    agent: AgentConfig = AgentConfig()


class RetentionWeights(_Section):
    """How much each signal counts in the composite retention score (normalised by their sum)."""

    recency: float = Field(default=0.35, ge=0)
    frequency: float = Field(default=0.30, ge=0)
    density: float = Field(default=0.35, ge=0)


class ForgettingConfig(_Section):
    """`[memory.forgetting]`: SleepGate, the pass that soft-deletes entries recall no longer needs."""

    enabled: bool = True
    interval_secs: int = Field(default=86_400, ge=0)
    retention_threshold: float = Field(default=0.30, ge=0, le=1)
    weights: RetentionWeights = RetentionWeights()
    half_life_days: float = Field(default=30.0, gt=0)
    frequency_saturation: int = Field(default=20, ge=1)
    density_threshold: float = Field(default=0.90, gt=0, le=1)
    replay_queries: int = Field(default=200, ge=0)
    tolerance: float = Field(default=0.0, ge=0, le=1)
    min_entries: int = Field(default=1000, ge=0)
    rebuild_budget_secs: float = Field(default=120.0, gt=0)


class TtlConfig(_Section):
    """`[memory.gc.ttl]`: entries past their expiry (front matter `expires:`, an inline `expires: DATE`
    or `ttl: 7d` on the item, or a default per category) are soft-deleted and archived."""

    enabled: bool = True
    category_days: dict[str, int] = Field(default_factory=lambda: {"debug": 7})


class DecayConfig(_Section):
    """`[memory.gc.decay]`: confidence = importance x 0.5^(age / half_life_days); recall drops results
    under `recall_threshold` when it is set (off by default, 0.3 is the suggested value)."""

    enabled: bool = True
    half_life_days: float = Field(default=30.0, gt=0)
    recall_threshold: float | None = Field(default=None, ge=0, le=1)


class UsageConfig(_Section):
    """`[memory.gc.usage]`: entries neither recalled nor referenced by a note for `unused_days`."""

    enabled: bool = True
    unused_days: int = Field(default=90, ge=1)


class CapacityConfig(_Section):
    """`[memory.gc.capacity]`: at most `max_entries` live entries per scope (0: unlimited). Off
    unless enabled: a limit for a fleet's per-user scopes; on one agent's notes it forgot most facts
    older than a month, current values included, so recall had nothing to answer with."""

    enabled: bool = False
    max_entries: int = Field(default=500, ge=0)


class CompactionConfig(_Section):
    """`[memory.gc.compaction]`: clusters of live entries at least `similarity` alike become one."""

    enabled: bool = True
    similarity: float = Field(default=0.85, gt=0, le=1)


class ContradictionConfig(_Section):
    """`[memory.gc.contradiction]`: each new entry against its `neighbours` most similar live ones."""

    enabled: bool = True
    neighbours: int = Field(default=5, ge=1, le=50)


class ImportanceConfig(_Section):
    """`[memory.gc.importance]`: the engine rates each entry 0-1 for future usefulness."""

    enabled: bool = True
    batch_size: int = Field(default=50, ge=1)


class SummarizationConfig(_Section):
    """`[memory.gc.summarization]`: past `archive_limit` archived entries in a scope, its oldest
    `batch` are summarized into one entry."""

    enabled: bool = True
    archive_limit: int = Field(default=500, ge=1)
    batch: int = Field(default=50, ge=2)


class GcConfig(_Section):
    """`[memory.gc]`: the garbage-collection strategies the run applies after SleepGate."""

    enabled: bool = True
    ttl: TtlConfig = TtlConfig()
    decay: DecayConfig = DecayConfig()
    usage: UsageConfig = UsageConfig()
    capacity: CapacityConfig = CapacityConfig()
    compaction: CompactionConfig = CompactionConfig()
    contradiction: ContradictionConfig = ContradictionConfig()
    importance: ImportanceConfig = ImportanceConfig()
    summarization: SummarizationConfig = SummarizationConfig()


class MemoryConfig(_Section):
    forgetting: ForgettingConfig = ForgettingConfig()
    gc: GcConfig = GcConfig()


class SidecarConfig(_Section):
    """`[sidecar]`: the vector index of entries and note items, and how recall ranks them."""

    enabled: bool = True
    store: Literal["sqlite", "postgres"] = "sqlite"  # postgres: one database shared by many agents
    dsn: str | None = None  # the postgres connection string (MEMORY_SLEEP_DSN wins)
    embedder: Literal["wordllama", "offline", "openai", "local"] = "wordllama"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int | None = Field(
        default=None, ge=16, le=4096
    )  # None: the embedder's own (wordllama 256, others 384)
    batch_size: int = Field(default=256, ge=1, le=2048)
    timeout_secs: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    price_per_million_tokens: float | None = Field(default=None, ge=0)
    scope: str = Field(default="default", min_length=1)
    half_life_days: float = Field(default=90.0, ge=0)
    decay_floor: float = Field(default=0.5, ge=0, le=1)
    candidates: int = Field(default=50, ge=1, le=10_000)
    rrf_k: int = Field(default=60, ge=1)


class ScheduleConfig(_Section):
    """`[schedule]`: when `run --if-due` runs. Under a day by more than a run takes, so a daily 4 AM
    cron line never skips a day; over 23 h, so an hourly schedule runs once a day at a steady hour."""

    interval_secs: int = Field(default=84_600, ge=0)


class Config(_Section):
    """All settings; a missing file means all defaults."""

    lookback_days: int = Field(default=3, ge=1)
    stale_after_days: int = Field(default=30, ge=1)
    archive_after_days: int = Field(default=7, ge=1)
    briefing_max_bytes: int = Field(default=2048, ge=256, le=2048)
    memory_max_bytes: int = Field(default=16_384, ge=1024)
    max_removal_share: float = Field(default=0.25, ge=0, le=1)
    max_rewrite_share: float = Field(default=0.25, ge=0)
    move_folded_notes: bool = False
    max_note_bytes: int = Field(default=2_000_000, ge=1024)
    history_runs: int = Field(default=30, ge=1)
    keep_snapshots: int = Field(default=30, ge=1)
    lock_timeout_secs: float = Field(default=0.0, ge=0)
    engine: EngineConfig = EngineConfig()
    memory: MemoryConfig = MemoryConfig()
    sidecar: SidecarConfig = SidecarConfig()
    schedule: ScheduleConfig = ScheduleConfig()


def load_config(path: Path, required: bool = False) -> Config:
    """Read a config file; a missing optional file gives the defaults."""
    if not path.exists():
        if required:
            raise ConfigError(f"{path}: no such config file. Check the --config path.")
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML ({error}). Fix the file or remove it.") from None
    try:
        return Config.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(_describe(issue["loc"], issue["msg"], issue["type"]) for issue in error.errors())
        raise ConfigError(f"{path}: {problems}. {KEYS_HINT}") from None


def _describe(location: tuple[int | str, ...], message: str, kind: str) -> str:
    """One problem, with the likely intended key for a misspelt one."""
    key = ".".join(str(part) for part in location)
    if kind != "extra_forbidden":
        return f"{key}: {message}"
    model: type[BaseModel] = Config
    for part in location[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return f"{key}: unknown key"
        model = annotation
    name = str(location[-1])
    if len(location) > 1 and name in Config.model_fields:
        section = ".".join(str(part) for part in location[:-1])
        return (
            f"{key}: unknown key; {name} is a top-level key, and in TOML every key below [{section}] "
            f"belongs to that section: move {name} above the first [section] header"
        )
    close = difflib.get_close_matches(name, list(model.model_fields), n=1)
    return f"{key}: unknown key" + (f" (did you mean {close[0]}?)" if close else "")
