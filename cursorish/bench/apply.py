"""`cursorish bench apply`: the deterministic merge timed on generated files of several sizes.

The generated files and their lazy sketches serve `bench spec` too.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from cursorish.apply.result import Merged
from cursorish.apply_cli import index_percentile


def generate_file(lines: int, seed: int = 0) -> str:
    """Valid Python source of exactly `lines` lines: classes with a few methods each, then
    module constants to fill up (a file cut inside a block would send every merge down the
    syntax check's slow path, which real files rarely take)."""
    rng = random.Random(seed)
    out = ['"""Generated module for benchmarks."""', "", "import math", "import os", "", ""]
    number = 0
    while True:
        block = [
            f"class Service{number}:",
            f'    """Service number {number}."""',
            "",
            "    def __init__(self, size: int) -> None:",
            "        self.size = size",
            f"        self.name = 'service-{number}'",
            "",
        ]
        for method in range(rng.randint(2, 5)):
            block.append(f"    def method_{method}(self, value: int) -> int:")
            block.append(f"        total = value * {rng.randint(2, 99)}")
            for step in range(rng.randint(2, 6)):
                block.append(f"        if total > {rng.randint(10, 999)}:")
                block.append(f"            total -= {step + 1}")
            block.append("        return total")
            block.append("")
        block.append("")
        if len(out) + len(block) > lines:
            break
        out.extend(block)
        number += 1
    out.extend(f"LIMIT_{n} = {n * 7}" for n in range(lines - len(out)))
    return "\n".join(out[:lines]) + "\n"


def make_sketch(original: str, edits: int = 3, seed: int = 0) -> str:
    """A lazy sketch changing `edits` method bodies, with markers for everything else."""
    rng = random.Random(seed)
    lines = original.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("    def method_")]
    by_class: dict[int, int] = {}
    for start in starts:  # one edited method per class, so no class header repeats
        cls = max(i for i in range(start) if lines[i].startswith("class "))
        by_class.setdefault(cls, start)
    picks = list(by_class.values())
    chosen = sorted(rng.sample(picks, min(edits, len(picks))))
    out: list[str] = []
    for start in chosen:
        cls = max(i for i in range(start) if lines[i].startswith("class "))
        out.append("# ... existing code ...")
        out.append(lines[cls])
        out.append("    # ... existing code ...")
        out.append(lines[start])
        out.append(lines[start + 1])
        out.append(f"        total += {rng.randint(1000, 9999)}  # changed")
        out.append("        # ... existing code ...")
    out.append("# ... existing code ...")
    return "\n".join(out) + "\n"


def cmd_bench_apply(args: argparse.Namespace) -> int:
    """Time the deterministic merge on generated files of several sizes."""
    from cursorish.apply.deterministic import merge

    as_json = bool(getattr(args, "json", False))
    repeat = int(getattr(args, "repeat", 30) or 30)
    sizes = [int(x) for x in getattr(args, "sizes", None) or (100, 500, 2500, 10000)]
    rows: list[dict[str, Any]] = []
    for size in sizes:
        original = generate_file(size, seed=size)
        sketch = make_sketch(original, edits=3, seed=size)
        times: list[float] = []
        cpu: list[float] = []  # this process's CPU time: what other load on the machine moves least
        merged_ok = True
        for _ in range(repeat):
            started = time.perf_counter()
            cpu_started = time.process_time()
            outcome = merge(original, sketch, path="bench.py")
            cpu.append((time.process_time() - cpu_started) * 1000)
            times.append((time.perf_counter() - started) * 1000)
            merged_ok = merged_ok and isinstance(outcome, Merged)
        median = statistics.median(times)
        row = {
            "lines": size,
            "chars": len(original),
            "median_ms": round(median, 2),
            "p95_ms": round(index_percentile(times, 0.95), 2),
            "cpu_median_ms": round(statistics.median(cpu), 2),
            "chars_per_s": round(len(original) / (median / 1000)) if median else 0,
            "merged": merged_ok,
        }
        rows.append(row)
        if as_json:
            print(json.dumps(row))
        else:
            print(
                f"{size:>6} lines  median {row['median_ms']:7.2f} ms  p95 {row['p95_ms']:7.2f} ms  "
                f"cpu {row['cpu_median_ms']:7.2f} ms  "
                f"{row['chars_per_s']:>12,} chars/s  {'merged' if merged_ok else 'REFUSED'}"
            )
    summary = {"repeat": repeat, "sizes": rows}
    if as_json:
        print(json.dumps(summary))
    return 0
