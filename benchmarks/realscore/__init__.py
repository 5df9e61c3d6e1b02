"""The real-notes benchmark: hand labels, runs of the CLI on fresh copies, and the figures of issue 15."""
