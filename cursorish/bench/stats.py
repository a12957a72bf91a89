"""Percentiles and spreads of timings, as the benchmarks report them."""

from __future__ import annotations

import math
import statistics


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def spread(values: list[float], scale: float = 1.0, digits: int = 1) -> dict[str, float]:
    """median, p95 and max of `values` times `scale`, rounded."""
    if not values:
        return {}
    return {
        "median": round(statistics.median(values) * scale, digits),
        "p95": round(percentile(values, 0.95) * scale, digits),
        "max": round(max(values) * scale, digits),
    }
