"""`memory-sleep init`: the workspace layout, and a memory-sleep.toml that lists every key commented out.

The file is generated from the Config model, so a key added there shows up here with its default;
KEY_NOTES says what each key means (a `Field(description=...)` in config.py wins over it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from memory_sleep.config import Config
from memory_sleep.errors import WorkspaceError
from memory_sleep.workspace.atomic import atomic_write
from memory_sleep.workspace.memory_doc import HEADER

NOTE_COLUMN = 33
KEY_NOTES: dict[str, str] = {
    "lookback_days": "NREM re-reads notes of the last N days every run",
    "stale_after_days": "entries with no reference for this long (pauses not counted) go to the archive",
    "archive_after_days": "notes older than this are folded into weekly summaries",
    "briefing_max_bytes": "hard limit of memory/briefing.md (at most 2048)",
    "memory_max_bytes": "the tool's entries in MEMORY.md stay under this; text you wrote never counts",
    "max_removal_share": "a run may shrink MEMORY.md by at most this share of its entries",
    "max_rewrite_share": "a run's notes may rewrite or archive at most this share of its entries (50 always)",
    "move_folded_notes": "true: move folded notes to memory/archive/daily/",
    "max_note_bytes": "larger notes are skipped with a message",
    "history_runs": "earlier runs kept in sleep-log.json",
    "keep_snapshots": "runs that can be undone",
    "lock_timeout_secs": "how long `run` waits for another run's lock",
    "engine.name": "auto | offline | anthropic | openai | agent (auto: a provider whose key is set, else "
    "offline; agent: the host agent answers the requests, see SKILL.md)",
    "engine.model": "default: the provider's (claude-haiku-4-5, gpt-4.1-mini)",
    "engine.base_url": "an OpenAI-compatible server (Ollama, vLLM, llama.cpp)",
    "engine.timeout_secs": "per model call",
    "engine.deadline_secs": "model calls end this long after a run's first one; the rest is decided offline",
    "engine.max_tokens_per_run": "token budget of one run; past it the rest is decided offline",
    "engine.batch_size": "items per model call",
    "engine.prompts_dir": "a folder of your own prompt templates (same names as prompts/)",
    "engine.max_retries": "retries of a call that failed in a way a retry may fix",
    "engine.max_output_tokens": "per model answer",
    "engine.repair_attempts": "re-asks after an answer that does not validate",
    "engine.breaker_failures": "failed calls or unusable answers in a row before the run stops calling the model",
    "engine.context_bytes": "MEMORY.md entries shown to the model with each batch",
    "engine.candidates_per_item": "MEMORY.md entries the sidecar's hybrid search finds for each item (NREM, REM)",
    "engine.structured_output": "auto | tool | json_schema | json_object",
    "engine.require_llm": "true: fail instead of deciding offline when no provider can be used",
    "engine.cache": "reuse answers to identical calls (memory/.sleep/llm-cache)",
    "engine.agent.expire_hours": "--engine agent: requests (and answers) older than this are dropped and asked afresh",
    "engine.agent.request_max_tokens": "--engine agent: a batch whose request would be larger is split",
    "engine.prices": 'USD per million tokens for cost estimates: [engine.prices."MODEL"] input = 0.8, output = 4.0',
    "memory.forgetting.enabled": "SleepGate, the sidecar's forgetting pass",
    "memory.forgetting.interval_secs": "run the forgetting pass at most this often",
    "memory.forgetting.retention_threshold": "composite score below which entries are forgotten (soft-deleted)",
    "memory.forgetting.weights.recency": "weight of recency in the retention score",
    "memory.forgetting.weights.frequency": "weight of access frequency in the retention score",
    "memory.forgetting.weights.density": "weight of uniqueness (1 - density) in the retention score",
    "memory.forgetting.half_life_days": "recency halves after this many days without a write or recall",
    "memory.forgetting.frequency_saturation": "recalls that give full access frequency",
    "memory.forgetting.density_threshold": "cosine similarity at which two entries are near-duplicates",
    "memory.forgetting.replay_queries": "logged recalls the compression predictor replays",
    "memory.forgetting.tolerance": "recall@k a replayed query may lose when entries are forgotten",
    "memory.forgetting.min_entries": "below this many live entries the pass is skipped",
    "memory.forgetting.rebuild_budget_secs": "time a pass may spend counting density from scratch",
    "memory.gc.enabled": "run the enabled GC strategies after SleepGate in each run",
    "memory.gc.ttl.enabled": "soft-delete and archive entries past their expiry",
    "memory.gc.ttl.category_days": "days an entry of each category lives",
    "memory.gc.decay.enabled": "confidence = importance x 0.5^(age / half_life_days)",
    "memory.gc.decay.half_life_days": "confidence halves after this many days",
    "memory.gc.decay.recall_threshold": "recall leaves out results below this confidence (e.g. 0.3)",
    "memory.gc.usage.enabled": "entries neither recalled nor referenced become candidates",
    "memory.gc.usage.unused_days": "days without a recall or a note's reference",
    "memory.gc.capacity.enabled": "cap live entries per scope",
    "memory.gc.capacity.max_entries": "live entries per scope (0: unlimited)",
    "memory.gc.compaction.enabled": "merge clusters of near-identical entries into one",
    "memory.gc.compaction.similarity": "cosine similarity at which entries join a cluster",
    "memory.gc.contradiction.enabled": "mark entries a newer one supersedes",
    "memory.gc.contradiction.neighbours": "most similar live entries each new entry is judged against",
    "memory.gc.importance.enabled": "the engine rates each entry's future usefulness",
    "memory.gc.importance.batch_size": "entries per rating call",
    "memory.gc.summarization.enabled": "summarize the oldest archived entries of a full archive",
    "memory.gc.summarization.archive_limit": "archived entries per scope before summarizing",
    "memory.gc.summarization.batch": "oldest archived entries summarized into one",
    "sidecar.enabled": "index during `memory-sleep run`",
    "sidecar.store": "sqlite (a file in the workspace) | postgres (one database for many agents)",
    "sidecar.dsn": "store = postgres: the connection string (MEMORY_SLEEP_DSN wins)",
    "sidecar.embedder": "wordllama | offline | openai | local",
    "sidecar.model": "openai: text-embedding-3-small; local: a folder or package name",
    "sidecar.base_url": "an OpenAI-compatible embeddings server",
    "sidecar.api_key_env": "environment variable holding the embedder's key",
    "sidecar.dimensions": "embedding size; unset: the embedder's own (wordllama 256, others 384)",
    "sidecar.batch_size": "texts per embedding call",
    "sidecar.timeout_secs": "per embedding call",
    "sidecar.max_retries": "retries of a failed embedding call",
    "sidecar.price_per_million_tokens": "default: the list price of known OpenAI models",
    "sidecar.scope": "scope of MEMORY.md and weekly entries, and of notes without one",
    "sidecar.half_life_days": "age at which decay has taken half of what it can (0: no decay)",
    "sidecar.decay_floor": "the least an old entry's score is multiplied by",
    "sidecar.candidates": "entries taken from each ranked list before fusion",
    "sidecar.rrf_k": "the run's candidate step: reciprocal-rank fusion constant",
    "schedule.interval_secs": "`run --if-due` waits this long after a successful run (23.5 h: hourly cron is safe)",
}
# what to show for keys whose default is "not set"
EXAMPLES: dict[str, str] = {
    "engine.model": '"claude-haiku-4-5"',
    "engine.base_url": '"http://localhost:11434/v1"',
    "engine.prompts_dir": '"prompts"',
    "sidecar.model": '"text-embedding-3-small"',
    "sidecar.dsn": '"postgresql://memory@db.internal/memory"',
    "sidecar.base_url": '"http://localhost:11434/v1"',
    "sidecar.dimensions": "128",
    "sidecar.price_per_million_tokens": "0.02",
    "memory.gc.decay.recall_threshold": "0.3",
}


@dataclass(frozen=True)
class ConfigKey:
    path: str  # dotted, e.g. "engine.name"
    default: Any
    note: str | None


def config_keys(model: type[BaseModel] = Config, prefix: str = "") -> Iterator[ConfigKey | str]:
    """Every key of the model with its default, depth first; a `str` marks the start of a [table]."""
    nested: list[tuple[str, type[BaseModel]]] = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        annotation = info.annotation
        if _is_section(annotation):
            assert isinstance(annotation, type)
            nested.append((path, annotation))
            continue
        default = info.get_default(call_default_factory=True)
        yield ConfigKey(path, default, info.description or KEY_NOTES.get(path))
    for path, section in nested:
        if not all(_is_section(info.annotation) for info in section.model_fields.values()):
            yield path
        yield from config_keys(section, f"{path}.")


def _is_section(annotation: object) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def commented_config() -> str:
    """memory-sleep.toml with every key commented out at its default: uncomment a line to change it."""
    lines = [
        "# memory-sleep.toml: every key is optional and shown at its default. Uncomment a line to change it.",
        "# Unknown keys are an error that names them. Check the file with `memory-sleep doctor`.",
        "# A key belongs to the [section] above it: uncomment keys where they stand, not at the end.",
        "",
    ]
    for key in config_keys():
        if isinstance(key, str):
            lines.extend(["", f"[{key}]"])  # an empty table is valid: uncommenting a key below just works
            continue
        name = key.path.rsplit(".", 1)[-1]
        if key.default is None:
            value = EXAMPLES.get(key.path)
            setting = f"# {name} = {value}" if value else f"# {name} ="
            note = f"example, unset by default; {key.note}" if key.note else "unset by default"
        else:
            setting, note = f"# {name} = {_toml_value(key.default)}", key.note or ""
        lines.append(f"{setting:<{NOTE_COLUMN}} # {note}" if note else setting)
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value, ensure_ascii=False)


@dataclass
class InitReport:
    """What `init` created, and what it found already there and left alone."""

    root: Path
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def init_workspace(folder: Path, dry_run: bool = False) -> InitReport:
    """Create the folder, MEMORY.md, memory/ and a commented memory-sleep.toml; never overwrite anything."""
    root = folder.expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise WorkspaceError(f"{folder}: a file, not a folder. Pass the folder that should hold MEMORY.md.")
    report = InitReport(root)
    plan: list[tuple[str, bytes | None]] = [
        ("memory/", None),
        ("MEMORY.md", HEADER.encode()),
        ("memory-sleep.toml", commented_config().encode()),
    ]
    for name, content in plan:
        path = root / name
        if path.exists() or path.is_symlink():
            report.kept.append(name)
            continue
        report.created.append(name)
        if dry_run:
            continue
        try:
            if content is None:
                path.mkdir(parents=True)
            else:
                atomic_write(path, content)
        except OSError as error:
            raise WorkspaceError(f"{path}: cannot create ({error.strerror}). Is {root} writable?") from None
    return report


def skill_text() -> str:
    """SKILL.md as shipped in the package (prompts/SKILL.md links to the one at the repository root)."""
    from memory_sleep.engines.prompting import template_folders

    return (template_folders(None)[-1] / "SKILL.md").read_text(encoding="utf-8")
