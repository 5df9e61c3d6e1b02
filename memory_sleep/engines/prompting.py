"""Rendering the Jinja prompt templates shipped in prompts/ (or a user's override folder)."""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from memory_sleep.errors import ConfigError

_VERSION = re.compile(r"\{#-?\s*prompt-version:\s*(\S+)\s*-?#\}")


def template_folders(override: Path | None) -> list[Path]:
    """Where templates are looked up, first match wins: the user's prompts_dir, then the packaged ones."""
    folders = [Path(str(resources.files("memory_sleep.prompts")))]
    return [override, *folders] if override else folders


def _environment(override: Path | None) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(folder) for folder in template_folders(override)]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )


def prompt_version(name: str, override: Path | None = None) -> str:
    """The version a template declares in its `{# prompt-version: X #}` comment; an override that
    declares none is named by a hash of its source, so that its answers are never taken for another's."""
    environment = _environment(override)
    try:
        source, _, _ = environment.loader.get_source(environment, name)  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        raise ConfigError(
            f"Prompt template {name} not found in {', '.join(map(str, template_folders(override)))}."
        ) from None
    declared = _VERSION.search(source)
    return declared.group(1) if declared else "custom-" + hashlib.sha256(source.encode()).hexdigest()[:12]


def render_prompt(name: str, override: Path | None = None, **values: Any) -> str:
    """Render prompts/NAME with StrictUndefined: a missing value is an error, never an empty string."""
    return "".join(render_prompt_parts(name, override, **values))


def render_prompt_parts(name: str, override: Path | None = None, **values: Any) -> tuple[str, str]:
    """The template's `instructions` block (a stable prefix a provider can cache) and the rest.

    A template without an `instructions` block renders whole into the second part.
    """
    environment = _environment(override)
    try:
        template = environment.get_template(name)
        whole = template.render(**values)
        if "instructions" not in template.blocks:
            return "", whole
        context = template.new_context(dict(values))
        instructions = "".join(template.blocks["instructions"](context))
        if not whole.startswith(instructions):
            return "", whole
        return instructions, whole[len(instructions) :]
    except jinja2.TemplateNotFound:
        raise ConfigError(
            f"Prompt template {name} not found in {', '.join(map(str, template_folders(override)))}."
        ) from None
    except jinja2.UndefinedError as error:
        raise ConfigError(
            f"Prompt template {name}: {error.message}. An override in prompts_dir may be outdated."
        ) from None
