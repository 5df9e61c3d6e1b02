"""Pasted command output, stack traces, log lines and tables: DISCARD noise, mostly."""

from __future__ import annotations

import json
from collections.abc import Callable

from .filler import Filler
from .spec import STAMPED, ItemSpec, discard


def _fenced(lang: str, lines: list[str]) -> tuple[str, ...]:
    return (f"```{lang}", *lines, "```")


def kubectl(f: Filler, topic: str) -> tuple[str, ...]:
    lines = [f"$ kubectl get pods -n {topic.lower()}", "NAME" + " " * 34 + "READY   STATUS    RESTARTS   AGE"]
    for svc in f.world.project(topic).services:
        for _ in range(f.rng.randint(1, 3)):
            name = f"{topic.lower()}-{svc}-{f.hex(9)}-{f.token(5).lower()}"
            state = f.rng.choice(("Running", "Running", "Running", "CrashLoopBackOff", "Pending"))
            ready = "1/1" if state == "Running" else "0/1"
            restarts = f.rng.randint(0, 3) if state == "Running" else f.rng.randint(4, 40)
            lines.append(f"{name:<38}{ready}     {state:<9} {restarts:<10} {f.rng.randint(1, 30)}d")
    return _fenced("bash", lines)


def git_log(f: Filler, topic: str) -> tuple[str, ...]:
    lines = ["$ git log --oneline -n 8"]
    for _ in range(f.rng.randint(5, 9)):
        lines.append(f"{f.hex(7)} " + f.fill("{pr_title} (#{pr})", {"P": topic}))
    return _fenced("", lines)


def pytest_run(f: Filler, topic: str) -> tuple[str, ...]:
    passed = f.rng.randint(40, 900)
    lines = [
        "$ python -m pytest -q",
        "." * f.rng.randint(30, 70) + "F" + "." * f.rng.randint(5, 40),
        "=" * 20 + " FAILURES " + "=" * 20,
        f.fill("___ test_{fn} ___", {"P": topic}),
        "    def test_it(client):",
        f">       assert resp.status_code == 200\nE       assert {f.rng.choice((500, 502, 404, 422))} == 200",
        f"tests/test_{f.choice(('api', 'jobs', 'billing', 'sync'))}.py:{f.rng.randint(10, 400)}: AssertionError",
        f"1 failed, {passed} passed in {f.rng.randint(2, 90)}.{f.rng.randint(10, 99)}s",
    ]
    return _fenced("", "\n".join(lines).split("\n"))


def docker_ps(f: Filler, topic: str) -> tuple[str, ...]:
    lines = ["$ docker ps --format 'table {{.Names}}\\t{{.Status}}\\t{{.Ports}}'", "NAMES\tSTATUS\tPORTS"]
    for svc in f.world.project(topic).services:
        lines.append(
            f"{topic.lower()}-{svc}-1\tUp {f.rng.randint(1, 60)} minutes\t0.0.0.0:{f.port()}->{f.port()}/tcp"
        )
    return _fenced("", lines)


def curl(f: Filler, topic: str) -> tuple[str, ...]:
    status = f.rng.choice((200, 200, 201, 401, 429, 500, 503))
    lines = [
        f"$ curl -si https://{f.choice(('staging', 'api', 'preview'))}.{topic.lower()}.example.dev/v1/health",
        f"HTTP/2 {status}",
        "content-type: application/json",
        f"x-request-id: {f.hex(8)}-{f.hex(4)}-{f.hex(4)}-{f.hex(12)}",
        "",
        json.dumps(
            {
                "status": "ok" if status < 300 else "error",
                "db": f.choice(("ok", "degraded")),
                "latency_ms": f.rng.randint(3, 900),
                "version": f.version(),
            }
        ),
    ]
    return _fenced("console", lines)


def psql(f: Filler, topic: str) -> tuple[str, ...]:
    lines = [
        f"{topic.lower()}=> select state, count(*) from pg_stat_activity group by 1;",
        "        state        | count",
        "---------------------+-------",
    ]
    for state in ("active", "idle", "idle in transaction"):
        lines.append(f" {state:<19} | {f.rng.randint(0, 120):>5}")
    lines.append("(3 rows)")
    return _fenced("sql", lines)


def df_h(f: Filler, topic: str) -> tuple[str, ...]:
    lines = ["$ df -h", "Filesystem      Size  Used Avail Use% Mounted on"]
    for mount in ("/", "/var/lib/docker", "/data", "/boot"):
        size = f.rng.choice((20, 40, 80, 160, 320))
        used = f.rng.randint(1, size)
        lines.append(
            f"/dev/sd{f.choice(('a1', 'b1', 'c1'))}       {size}G  {used}G  {size - used}G  {used * 100 // size}% {mount}"
        )
    return _fenced("", lines)


def terraform_plan(f: Filler, topic: str) -> tuple[str, ...]:
    lines = ["$ terraform plan -out plan.bin", "Refreshing state..."]
    for _ in range(f.rng.randint(2, 5)):
        lines.append(
            f"  # {f.choice(('aws_instance', 'hcloud_server', 'aws_s3_bucket', 'aws_db_instance'))}.{topic.lower()}_{f.choice(f.world.project(topic).services)} will be updated in-place"
        )
    lines.append(
        f"Plan: {f.rng.randint(0, 3)} to add, {f.rng.randint(1, 6)} to change, {f.rng.randint(0, 2)} to destroy."
    )
    return _fenced("hcl", lines)


def traceback_lines(f: Filler, topic: str, with_source: bool = True) -> list[str]:
    """A Python traceback; without source lines, as logs from a .pyc-only deploy print it."""
    lines = ["Traceback (most recent call last):"]
    for _ in range(f.rng.randint(2, 5)):
        lines.append(
            f'  File "/app/{f.choice(("src", "lib", "app"))}/{f.choice(("jobs", "api", "db", "sync"))}.py", line {f.rng.randint(10, 600)}, in {f.fill("{fn}")}'
        )
        if with_source:
            lines.append(
                f"    {f.choice(('result = client.post(url, json=payload)', 'row = cur.fetchone()', 'return self._send(req)', 'data = json.loads(raw)'))}"
            )
    lines.append(
        f.choice(("ConnectionError", "psycopg.OperationalError", "KeyError", "TimeoutError"))
        + f": {f.fill('{err}')}"
    )
    return lines


def traceback_fenced(f: Filler, topic: str) -> tuple[str, ...]:
    return _fenced("pytb", traceback_lines(f, topic))


def json_logs(f: Filler, topic: str) -> tuple[str, ...]:
    lines = []
    for _ in range(f.rng.randint(3, 7)):
        stamp = f"{f.today.isoformat()}T{f.fill('{hhmm}')}:{f.rng.randint(0, 59):02d}.{f.rng.randint(0, 999):03d}Z"
        record = {
            "ts": stamp,
            "level": f.choice(("info", "warn", "error")),
            "svc": f.choice(f.world.project(topic).services),
            "msg": f.fill("{err}"),
            "trace": f.hex(16),
        }
        lines.append(json.dumps(record, separators=(",", ":")))
    return _fenced("json", lines)


FENCED: tuple[Callable[[Filler, str], tuple[str, ...]], ...] = (
    kubectl,
    git_log,
    pytest_run,
    docker_ps,
    curl,
    psql,
    df_h,
    terraform_plan,
    traceback_fenced,
    json_logs,
)


def unfenced_trace(f: Filler, topic: str) -> tuple[str, ...]:
    kind = f.rng.randrange(4)
    if kind == 0:
        return tuple(traceback_lines(f, topic, with_source=False))
    if kind == 1:
        return (
            f"TypeError: Cannot read properties of undefined (reading '{f.choice(('id', 'user', 'items', 'length'))}')",
            f"    at {f.fill('{fn}')} (/app/src/{f.choice(('handlers', 'routes', 'jobs'))}/index.js:{f.rng.randint(10, 300)}:{f.rng.randint(2, 40)})",
            f"    at processTicksAndRejections (node:internal/process/task_queues:{f.rng.randint(60, 99)}:5)",
            f"    at async Promise.all (index {f.rng.randint(0, 9)})",
        )
    if kind == 2:
        return (
            f'Exception in thread "main" java.lang.IllegalStateException: {f.fill("{err}")}',
            f"\tat com.{topic.lower()}.{f.choice(('billing', 'sync', 'api'))}.Worker.run(Worker.java:{f.rng.randint(20, 400)})",
            f"\tat java.base/java.lang.Thread.run(Thread.java:{f.rng.randint(800, 1600)})",
        )
    return tuple(
        f"npm ERR! {line}"
        for line in (
            "code ERESOLVE",
            f"ERESOLVE unable to resolve dependency tree for {topic.lower()}-web@{f.version()[1:]}",
            f'Could not resolve dependency: peer react@"^{f.rng.randint(16, 19)}" from some-lib@{f.version()[1:]}',
        )
    )


def debug_block(f: Filler, topic: str) -> ItemSpec:
    """A pasted block of output: fenced (one item) or an unfenced trace (one paragraph)."""
    unfenced = f.rng.random() < 0.3
    raw = unfenced_trace(f, topic) if unfenced else FENCED[f.rng.randrange(len(FENCED))](f, topic)
    return discard("debug", topic, raw[0], raw=raw)


def log_lines(f: Filler, topic: str, minute: int) -> list[ItemSpec]:
    """Log lines pasted unfenced, each starting with a clock time: one item per line."""
    specs = []
    for offset in range(f.rng.randint(2, 5)):
        level = f.choice(("ERROR", "WARN", "INFO", "ERROR"))
        if level == "INFO":
            message = f.fill(
                "{retrying in {n}s|reconnected to db|job {job} finished in {dur}|"
                "worker started, pid {big}|cache hit ratio {pct}%}"
            )
        else:
            message = f.fill("{err}") + f" (attempt {offset + 1})"
        body = f"{level} {f.choice(f.world.project(topic).services)}: {message}"
        spec = discard("debug", topic, body, shapes=(STAMPED,))
        spec.minute = minute + offset
        spec.clock_style = "seconds"
        specs.append(spec)
    return specs


def bench_table(f: Filler, topic: str) -> ItemSpec:
    rows = [
        "| endpoint | p50 (ms) | p95 (ms) | rps |",
        "|---|---:|---:|---:|",
    ]
    for path in f.rng.sample(
        ("/v1/items", "/v1/search", "/v1/users/me", "/v1/export", "/health", "/v1/orders"), 4
    ):
        p50 = f.rng.randint(3, 200)
        rows.append(f"| {path} | {p50} | {p50 * f.rng.randint(2, 6)} | {f.rng.randint(20, 3000)} |")
    return discard("debug", topic, rows[0], raw=tuple(rows))


def ci_table(f: Filler, topic: str) -> ItemSpec:
    rows = ["| job | status | duration |", "| --- | --- | --- |"]
    for job in ("lint", "unit", "integration", "build", "e2e"):
        rows.append(f"| {job} | {f.choice(('✅', '✅', '✅', '❌', '⏭️'))} | {f.fill('{dur}')} |")
    return discard("routine", topic, rows[0], raw=tuple(rows))
