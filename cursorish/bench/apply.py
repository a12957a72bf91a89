"""Generated files and lazy sketches for timing the deterministic merge at several sizes."""

from __future__ import annotations

import random


def generate_file(lines: int, seed: int = 0) -> str:
    """Python source of about `lines` lines: classes with a few methods each."""
    rng = random.Random(seed)
    out = ['"""Generated module for benchmarks."""', "", "import math", "import os", "", ""]
    number = 0
    while len(out) < lines:
        out.append(f"class Service{number}:")
        out.append(f'    """Service number {number}."""')
        out.append("")
        out.append("    def __init__(self, size: int) -> None:")
        out.append("        self.size = size")
        out.append(f"        self.name = 'service-{number}'")
        out.append("")
        for method in range(rng.randint(2, 5)):
            out.append(f"    def method_{method}(self, value: int) -> int:")
            out.append(f"        total = value * {rng.randint(2, 99)}")
            for step in range(rng.randint(2, 6)):
                out.append(f"        if total > {rng.randint(10, 999)}:")
                out.append(f"            total -= {step + 1}")
            out.append("        return total")
            out.append("")
        out.append("")
        number += 1
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
