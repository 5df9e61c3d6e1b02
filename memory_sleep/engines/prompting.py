"""Rendering the Jinja prompt templates shipped in prompts/ (or a user's override folder)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from memory_sleep.errors import ConfigError


def template_folders(override: Path | None) -> list[Path]:
    """Where templates are looked up, first match wins: the user's prompts_dir, then the packaged ones."""
    folders = [Path(str(resources.files("memory_sleep.prompts")))]
    return [override, *folders] if override else folders


def render_prompt(name: str, override: Path | None = None, **values: Any) -> str:
    """Render prompts/NAME with StrictUndefined: a missing value is an error, never an empty string."""
    return "".join(render_prompt_parts(name, override, **values))


def render_prompt_parts(name: str, override: Path | None = None, **values: Any) -> tuple[str, str]:
    """The template's `instructions` block (a stable prefix a provider can cache) and the rest.

    A template without an `instructions` block renders whole into the second part.
    """
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(folder) for folder in template_folders(override)]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )
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
