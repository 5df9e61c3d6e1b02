"""Doctor's checks that a run can start: the folder's layout, the engine and its key, the cron line."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator

from memory_sleep.cli.doctor.report import Check
from memory_sleep.config import Config
from memory_sleep.workspace.layout import Workspace, unwritable

KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def layout(workspace: Workspace) -> Iterator[Check]:
    problem = workspace.layout_problem()
    if problem:
        yield Check("layout", "fail", problem)
        return
    missing = [
        name
        for name, path in (("MEMORY.md", workspace.memory_md), ("memory/", workspace.notes_dir))
        if not path.exists()
    ]
    if missing:
        yield Check(
            "layout",
            "warn",
            f"missing: {', '.join(missing)}",
            f"`memory-sleep init {workspace.root}` creates them (a run does too)",
        )
    else:
        yield Check("layout", "ok", "MEMORY.md and memory/ present")
    for problem in workspace.links():  # every run refuses them
        yield Check("layout", "fail", problem)
    read_only = unwritable(workspace.state_dir)
    if read_only:
        yield Check(
            "layout",
            "fail",
            f"read-only: {read_only}; run, index, forget and undo cannot write, and recall is not logged",
            "mount it read-write or run as the user who owns it; nothing needs moving or rebuilding "
            "(`memory-sleep recall` still searches, unlogged)",
        )
        return
    # a run replaces MEMORY.md and the files of memory/ by renaming a new file into their folder
    for folder, written in ((workspace.root, "MEMORY.md"), (workspace.notes_dir, "the briefing and the log")):
        read_only = unwritable(folder)
        if read_only:
            yield Check(
                "layout",
                "fail",
                f"read-only: {read_only}; a run fails when it comes to write {written}",
                f"make {folder} writable by you (`chmod u+w {folder}`, or run as its owner)",
            )
            return


def engine(config: Config) -> Iterator[Check]:
    from memory_sleep.engines.select import choose_engine_name

    requested = config.engine.name
    chosen = choose_engine_name(requested)
    if chosen == "agent":
        yield Check("engine", "ok", "agent: the host agent answers the requests of each run, no key needed")
    elif chosen == "offline":
        if config.engine.require_llm:
            yield Check(
                "engine",
                "fail",
                "require_llm is set but no provider key is set",
                "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or set [engine] require_llm = false",
            )
        else:
            why = "" if requested == "offline" else " (auto: no ANTHROPIC_API_KEY or OPENAI_API_KEY set)"
            yield Check("engine", "ok", f"offline{why}: deterministic rules, no key needed")
    else:
        variable = KEY_VARIABLES[chosen]
        if os.environ.get(variable) or (chosen == "openai" and config.engine.base_url):
            source = config.engine.base_url or f"{variable} set"
            yield Check("engine", "ok", f"{chosen}{' (auto)' if requested == 'auto' else ''}: {source}")
        else:
            yield Check(
                "engine",
                "fail",
                f"[engine] name = {chosen!r} but {variable} is not set",
                f'export {variable}=..., or set [engine] name = "offline"',
            )
    sidecar = config.sidecar
    if sidecar.enabled and sidecar.embedder == "wordllama" and importlib.util.find_spec("wordllama") is None:
        yield Check(
            "engine",
            "warn",
            "sidecar embedder wordllama is not installed: recall falls back to the hashing embedder",
            'pip install wordllama, or set [sidecar] embedder = "offline"',
        )
    if sidecar.enabled and sidecar.embedder == "openai" and not sidecar.base_url:
        if os.environ.get(sidecar.api_key_env):
            yield Check("engine", "ok", f"sidecar embedder openai: {sidecar.api_key_env} set")
        else:
            yield Check(
                "engine",
                "fail",
                f'[sidecar] embedder = "openai" but {sidecar.api_key_env} is not set',
                f'export {sidecar.api_key_env}=..., or set [sidecar] embedder = "offline"',
            )


def cron(workspace: Workspace, config: Config, crontab: object | None) -> Iterator[Check]:
    from memory_sleep.cli.cron import Crontab, ScheduleError, default_crontab, find_line, line_executable

    table_source: Crontab = crontab if crontab is not None else default_crontab()  # type: ignore[assignment]
    try:
        table = table_source.read()
    except ScheduleError as error:
        yield Check("cron", "warn", str(error))
        return
    line = find_line(table, workspace)
    if line is None:
        yield Check(
            "cron",
            "warn",
            "no cron line for this workspace: nothing runs it nightly",
            f"`memory-sleep cron install {workspace.root}` (or schedule `memory-sleep cron prompt`)",
        )
        return
    program = line_executable(line)
    if program and not (os.path.isfile(program) or shutil.which(program)):
        yield Check(
            "cron",
            "fail",
            f"the cron line runs {program}, which no longer exists",
            f"`memory-sleep cron install {workspace.root}` from the installation you use now",
        )
        return
    yield Check("cron", "ok", f"scheduled: {line.split(' mkdir ', 1)[0]}")
    from memory_sleep.engines.select import choose_engine_name

    chosen = choose_engine_name(config.engine.name)
    variable = KEY_VARIABLES.get(chosen)
    if variable and f"{variable}=" not in table and not config.engine.base_url:
        yield Check(
            "cron",
            "warn",
            f"cron does not see your shell's {variable}: the nightly run will decide offline"
            + (" or fail (require_llm)" if config.engine.require_llm else ""),
            f"add a line `{variable}=...` above it with `crontab -e`",
        )
