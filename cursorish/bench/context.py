"""`cursorish bench context`: cold index, re-index after one change, query p95, repo map time.

Runs on the generated repository of `bench agents` and on a real project (the httpx bundle of
the shared eval data by default), each checked out in a temp dir with its own fresh index.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode

TARGETS = {"cold_index_s": 15.0, "reindex_ms": 100.0, "query_p95_ms": 50.0, "repo_map_ms": 200.0}
DEFAULT_BUNDLE = Path("/work/shared/eval/repos/encode+httpx.bundle")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def measure(root: Path, db: Path, queries: list[str], change: str) -> dict[str, Any]:
    """Time the engine on a checkout: `change` is the file edited for the re-index figures."""
    from cursorish.context.engine import ContextEngine, view_name
    from cursorish.context.repomap import repo_map

    engine = ContextEngine(db)
    started = time.perf_counter()
    stats = engine.sync_worktree(root)
    cold = time.perf_counter() - started
    view = view_name(root)
    target = root / change
    target.write_text(target.read_text(encoding="utf-8") + "\n\ndef added_by_bench():\n    pass\n")
    started = time.perf_counter()
    engine.update_paths(root, [change])
    watcher_ms = (time.perf_counter() - started) * 1000
    target.write_text(target.read_text(encoding="utf-8") + "\n# again\n")
    started = time.perf_counter()
    engine.sync_worktree(root)
    full_ms = (time.perf_counter() - started) * 1000
    query_ms: list[float] = []
    map_ms: list[float] = []
    for q in queries:
        started = time.perf_counter()
        engine.search(view, q, 10)
        query_ms.append((time.perf_counter() - started) * 1000)
    for q in queries[:10]:
        started = time.perf_counter()
        repo_map(engine, view, q)
        map_ms.append((time.perf_counter() - started) * 1000)
    return {
        "files": stats.files,
        "cold_index_s": round(cold, 2),
        "reindex_ms": round(watcher_ms, 1),
        "resync_ms": round(full_ms, 1),
        "query_p95_ms": round(_p95(query_ms), 1),
        "repo_map_ms": round(_p95(map_ms), 1),
    }


def _generated(tmp: Path, files: int) -> tuple[Path, list[str], str]:
    from cursorish.bench.agents import generate_repo

    root = generate_repo(tmp / "generated", files)
    rng = random.Random(7)
    queries = []
    for _ in range(40):
        i, j = rng.randrange(files), rng.randrange(files)
        queries.append(f"make function_{i} call helper_{j} for module {rng.randrange(files)}")
    return root, queries, "pkg000/mod00000.py"


def _bundle(tmp: Path, bundle: Path) -> tuple[Path, list[str], str]:
    root = tmp / "bundle"
    proc = subprocess.run(
        ["git", "clone", "--quiet", str(bundle), str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise CursorishError(f"cannot clone {bundle}: {proc.stderr.strip()}", ExitCode.BAD_ARGS)
    queries: list[str] = []
    cases = bundle.parent.parent / "locate-dev.jsonl"
    if cases.exists():
        for line in cases.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if Path(case["bundle"]).name == bundle.name:
                queries.append(case["task"])
    queries = queries or ["timeout configuration for the connection pool", "redirect handling"]
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    return root, queries, sorted(tracked, key=len)[0] if tracked else "README.md"


def cmd_bench_context(args: argparse.Namespace) -> int:
    results: dict[str, dict[str, Any]] = {}
    bundle = Path(args.bundle).expanduser() if args.bundle else DEFAULT_BUNDLE
    with tempfile.TemporaryDirectory(prefix="cursorish-bench-context-") as name:
        tmp = Path(name)
        root, queries, change = _generated(tmp, args.files)
        results[f"generated-{args.files}"] = measure(
            root, tmp / "gen.db", queries[: args.queries], change
        )
        if bundle.exists():
            root, queries, change = _bundle(tmp, bundle)
            results[bundle.stem] = measure(root, tmp / "bundle.db", queries[: args.queries], change)
    if args.json:
        print(json.dumps({"results": results, "targets": TARGETS}))
        return 0
    for repo, figures in results.items():
        print(f"{repo}: {figures['files']} files")
        for key, target in TARGETS.items():
            value = figures[key]
            ratio = value / target if target else 0.0
            print(f"  {key:<14} {value:>9}  target <= {target:g}  ({ratio:.2f}x of target)")
        print(f"  {'resync_ms':<14} {figures['resync_ms']:>9}  (full worktree re-scan)")
    return 0
