"""`cursorish bench mcp`: what an MCP server costs an agent, on the reference `mcp-server-time`.

Measured in one run: starting the server and listing its tools (what an agent without a cached
listing waits for before its first planner request) bare and inside the sandbox, one tool call
(median and p95) on a started server, and stopping it. An agent with a cached listing starts
nothing before its first request; it pays the start at its first call of that server's tools.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode
from cursorish.mcp.config import parse_entry
from cursorish.mcp.hub import McpHub, Wrap


def _server_command() -> str:
    beside = Path(sys.executable).parent / "mcp-server-time"
    found = str(beside) if beside.exists() else shutil.which("mcp-server-time")
    if not found:
        raise CursorishError(
            "mcp-server-time is not installed (pip install mcp-server-time)", ExitCode.CONFIG
        )
    return found


def _sandbox(scratch: Path) -> Wrap:
    from cursorish.core.sandbox import SandboxPolicy, sandbox_argv

    def wrap(argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        return sandbox_argv(
            argv,
            worktree=scratch,
            repo_root=None,
            policy=SandboxPolicy(),
            cache_dir=scratch / ".cache",
        )

    return wrap


def _one(sandboxed: bool, calls: int) -> dict[str, float]:
    spec = parse_entry("time", {"command": _server_command()}, "bench", {})
    with tempfile.TemporaryDirectory(prefix="cursorish-bench-mcp-") as tmp:
        scratch = Path(tmp)
        hub = McpHub(cwd=scratch, wrap=_sandbox(scratch) if sandboxed else None)
        t0 = time.perf_counter()
        hub.list_tools(spec)
        start = time.perf_counter() - t0
        times = []
        for _ in range(calls):
            t1 = time.perf_counter()
            hub.call_tool(spec, "get_current_time", {"timezone": "UTC"})
            times.append(time.perf_counter() - t1)
        t2 = time.perf_counter()
        hub.close(wait=15)
        stop = time.perf_counter() - t2
    times.sort()
    return {
        "start_list_ms": start * 1000,
        "call_p50_ms": statistics.median(times) * 1000,
        "call_p95_ms": times[max(0, round(0.95 * len(times)) - 1)] * 1000,
        "stop_ms": stop * 1000,
    }


def cmd_bench_mcp(ns: argparse.Namespace) -> int:
    rows: dict[str, list[dict[str, float]]] = {"bare": [], "sandboxed": []}
    for _ in range(ns.repeat):  # alternating, so both see the same machine load
        rows["bare"].append(_one(False, ns.calls))
        rows["sandboxed"].append(_one(True, ns.calls))
    result: dict[str, Any] = {
        mode: {key: round(statistics.median(r[key] for r in runs), 1) for key in runs[0]}
        for mode, runs in rows.items()
    }
    bare, boxed = result["bare"], result["sandboxed"]
    result["ratio_start"] = round(boxed["start_list_ms"] / bare["start_list_ms"], 2)
    result["ratio_call_p50"] = round(boxed["call_p50_ms"] / bare["call_p50_ms"], 2)
    result["calls"], result["repeat"] = ns.calls, ns.repeat
    if ns.json:
        print(json.dumps(result))
        return 0
    print(f"mcp-server-time over stdio, {ns.calls} calls, median of {ns.repeat} runs")
    print(f"{'':<10} {'start+list':>11} {'call p50':>9} {'call p95':>9} {'stop':>8}")
    for mode in ("bare", "sandboxed"):
        r = result[mode]
        print(
            f"{mode:<10} {r['start_list_ms']:>9.0f}ms {r['call_p50_ms']:>7.1f}ms "
            f"{r['call_p95_ms']:>7.1f}ms {r['stop_ms']:>6.0f}ms"
        )
    print(f"sandboxed/bare: start {result['ratio_start']}x, call p50 {result['ratio_call_p50']}x")
    return 0
