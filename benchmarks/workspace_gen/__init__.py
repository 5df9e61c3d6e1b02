"""Seeded generator of realistic AI-agent daily notes with ground truth, for benchmarks."""

from .generate import DEFAULT_END, generate_workspace
from .split import SplitItem, split_items
from .truth import GroundTruth

__all__ = ["DEFAULT_END", "GroundTruth", "SplitItem", "generate_workspace", "split_items"]
