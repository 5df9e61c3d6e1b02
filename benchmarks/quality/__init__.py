"""Scoring memory-sleep's consolidation against a generated workspace's ground truth, night by night."""
