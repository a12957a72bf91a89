"""Command handlers behind `cursorish apply`, `cursorish eval-apply` and `cursorish bench-apply`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cursorish.apply.result import Merged


def normalise(text: str) -> list[str]:
    """Lines compared by the eval: trailing whitespace and surrounding blank lines stripped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def cmd_eval_apply(args: argparse.Namespace) -> int:
    """Run every case of a JSONL eval file through the router and print outcomes and a summary."""
    from cursorish.apply.router import apply_sketch

    as_json = bool(getattr(args, "json", False))
    engine = getattr(args, "engine", "deterministic") or "deterministic"
    counts = {"exact": 0, "refused": 0, "wrong": 0}
    times: list[float] = []
    with open(args.cases, encoding="utf-8") as handle:
        cases = [json.loads(line) for line in handle if line.strip()]
    for case in cases:
        started = time.perf_counter()
        outcome = apply_sketch(case["original"], case["sketch"], path=case["path"], engine=engine)
        ms = (time.perf_counter() - started) * 1000
        times.append(ms)
        reason = ""
        if isinstance(outcome, Merged):
            ok = normalise(outcome.text) == normalise(case["expected"])
            result = "exact" if ok else "wrong"
        else:
            result = "refused"
            reason = outcome.reason
        counts[result] += 1
        fmt = outcome.sketch_format
        if as_json:
            record: dict[str, Any] = {"id": case["id"], "outcome": result, "ms": round(ms, 2)}
            record["format"] = fmt
            if reason:
                record["reason"] = reason
            print(json.dumps(record))
        else:
            short = (reason[:100] + "…") if len(reason) > 100 else reason
            print(f"{case['id']:<48} {result:<8} {ms:7.1f} ms  {fmt:<14} {short}")
    total = len(cases) or 1
    summary = {
        "cases": len(cases),
        "exact": counts["exact"],
        "refused": counts["refused"],
        "wrong": counts["wrong"],
        "exact_rate": round(counts["exact"] / total, 4),
        "wrong_rate": round(counts["wrong"] / total, 4),
        "p50_ms": round(_percentile(times, 0.5), 2),
        "p95_ms": round(_percentile(times, 0.95), 2),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['cases']} cases: {summary['exact']} exact ({summary['exact_rate']:.1%}), "
            f"{summary['refused']} refused, {summary['wrong']} wrong ({summary['wrong_rate']:.1%}); "
            f"p50 {summary['p50_ms']} ms, p95 {summary['p95_ms']} ms"
        )
    sys.stdout.flush()
    return 0
