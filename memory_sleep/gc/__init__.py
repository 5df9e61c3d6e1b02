"""Garbage collection: strategies that keep the sidecar and MEMORY.md from growing without end."""
