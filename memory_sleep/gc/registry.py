"""Every GC strategy by name: the GC run looks strategies up here (one line each)."""

from __future__ import annotations

from memory_sleep.gc.actions import Strategy, StrategyName
from memory_sleep.gc.capacity import Capacity
from memory_sleep.gc.compaction import Compaction
from memory_sleep.gc.contradiction import Contradiction
from memory_sleep.gc.decay import Decay
from memory_sleep.gc.importance import Importance
from memory_sleep.gc.summarization import Summarization
from memory_sleep.gc.ttl import Ttl
from memory_sleep.gc.usage import Usage

REGISTRY: dict[StrategyName, Strategy] = {
    "ttl": Ttl(),
    "importance": Importance(),
    "decay": Decay(),
    "usage": Usage(),
    "contradiction": Contradiction(),
    "compaction": Compaction(),
    "capacity": Capacity(),
    "summarization": Summarization(),
}
