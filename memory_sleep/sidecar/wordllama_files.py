"""wordllama's files, found without importing its package, and its tokenizer read ahead on a thread.

Reading the tokenizer (32,000 tokens, 61,249 merges) takes a recall process ~40 ms of CPU, and
`tokenizers` releases the GIL meanwhile: `memory-sleep recall` starts it before importing numpy
and opening the sidecar, so that on two cores both are done at once. Nothing here imports numpy.
"""

from __future__ import annotations

import importlib.util
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

MODEL = "l2_supercat"

_ahead: dict[Path, Future[Any]] = {}


def package_folder() -> Path:
    """Where the wordllama package is installed, found without importing it; ImportError if missing."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'wordllama'")
    return Path(next(iter(spec.submodule_search_locations)))


def tokenizer_file(folder: Path) -> Path:
    return folder / "tokenizers" / f"{MODEL}_tokenizer_config.json"


def read_ahead() -> None:
    """Start reading the installed package's tokenizer on a thread of its own; nothing if the
    package is missing. The thread is joined at exit, so an unused read only costs its CPU."""
    try:
        path = tokenizer_file(package_folder())
    except ImportError:
        return
    from tokenizers import Tokenizer

    reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wordllama-tokenizer")
    _ahead[path] = reader.submit(Tokenizer.from_file, str(path))
    reader.shutdown(wait=False)


def tokenizer(path: Path) -> Any:
    """The tokenizer in the file at `path`: the one read ahead (once), else read now; a file that
    does not load raises here either way."""
    ahead = _ahead.pop(path, None)
    if ahead is not None:
        return ahead.result()
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))
