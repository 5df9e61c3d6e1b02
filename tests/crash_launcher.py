"""Test-only launcher for crash tests: the seam is the safe writer's write step, patched in this process.

`python -m tests.crash_launcher N ARGS...` (from the repository root) runs `memory-sleep ARGS` and dies
like a SIGKILL (exit 137, nothing flushed or cleaned up) just before the writer's write number N,
counted from 0: N = 0 dies before the first file is written. Production code knows nothing of it.
"""

from __future__ import annotations

import os
import sys

from memory_sleep.workspace.writer import SafeWriter

KILLED = 137


def crash_before_write(number: int) -> None:
    """Make this process die just before the safe writer's write `number` (counted from 0)."""
    real_put = SafeWriter._put
    written = 0

    def put(writer: SafeWriter, relative: str, content: bytes | None) -> None:
        nonlocal written
        if written == number:
            os._exit(KILLED)
        written += 1
        real_put(writer, relative, content)

    SafeWriter._put = put  # type: ignore[method-assign]


if __name__ == "__main__":
    crash_before_write(int(sys.argv[1]))
    from memory_sleep.cli.main import main

    sys.argv = ["memory-sleep", *sys.argv[2:]]
    main()
