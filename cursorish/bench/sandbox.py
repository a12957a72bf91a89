"""`cursorish bench sandbox`: what the OS sandbox costs a command.

Times `true`, `python -c pass` and a generated pytest suite (200 tests by default) run in an
agent worktree through `run_in_worktree`, once bare and once in the sandbox, alternating in
the same run so that both see the same machine. Prints the median and the fastest run of
each, the time the sandbox adds and the ratio (on a busy machine the medians swing with the
load; the fastest runs show the sandbox's own cost). Targets: at most 30 ms added per
command, at most 5% on the test run.

Everything runs in a temporary directory with its own CURSORISH_HOME.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode

TARGET_ADDED_MS = 30.0
TARGET_TEST_RATIO = 1.05


def generate_suite(root: Path, tests: int) -> None:
    """A small package and `tests` pytest tests over it, in files of up to 20 tests."""
    (root / "calc.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef fib(n):\n"
        "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
        encoding="utf-8",
    )
    files = (tests + 19) // 20
    for f in range(files):
        count = min(20, tests - f * 20)
        body = ["from calc import add, fib\n"]
        for t in range(count):
            n = f * 20 + t
            body.append(f"\ndef test_{n}():\n    assert add({n}, 1) == {n + 1}\n")
            body.append(f"    assert fib({n % 30}) >= 0\n")
        (root / f"test_gen_{f:02d}.py").write_text("".join(body), encoding="utf-8")


@contextlib.contextmanager
def _isolated_home(base: Path) -> Iterator[None]:
    old = os.environ.get("CURSORISH_HOME")
    os.environ["CURSORISH_HOME"] = str(base / "cursorish-home")
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("CURSORISH_HOME", None)
        else:
            os.environ["CURSORISH_HOME"] = old


def _time(argv: list[str], wt: Path, repo: Path, sandboxed: bool) -> float:
    from cursorish.core.command_runner import run_in_worktree
    from cursorish.core.sandbox import SandboxPolicy

    start = time.perf_counter()
    result = run_in_worktree(
        argv,
        wt,
        timeout_s=600,
        sandbox=SandboxPolicy() if sandboxed else None,
        repo_root=repo,
    )
    elapsed = time.perf_counter() - start
    if result.exit_code != 0:
        where = "in the sandbox" if sandboxed else "bare"
        raise CursorishError(
            f"bench sandbox: {' '.join(argv)} failed {where}: {result.render()[-800:]}"
        )
    return elapsed


def run_bench(repeat: int, tests: int) -> dict[str, Any]:
    from cursorish.core.sandbox import check_available, pids_limit_mechanism
    from cursorish.gitops.repo import init_committed_repo, open_repo
    from cursorish.gitops.worktrees import create_worktree
    from cursorish.store.paths import worktrees_dir

    check_available()
    base = Path(tempfile.mkdtemp(prefix="cursorish-bench-sandbox-"))
    try:
        with _isolated_home(base):
            root = base / "repo"
            root.mkdir()
            generate_suite(root, tests)
            init_committed_repo(root, "suite", author="bench", email="bench@cursorish.invalid")
            repo = open_repo(root)
            wt = worktrees_dir(repo.git_common_dir) / "bench"
            create_worktree(repo, agent_id="bench", base_commit=repo.head_commit, dest=wt)
            py = sys.executable
            commands = [
                ("true", ["true"], repeat),
                ("python -c pass", [py, "-c", "pass"], repeat),
                (
                    f"pytest ({tests} tests)",
                    [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                    max(1, repeat // 4),
                ),
            ]
            rows = []
            for name, argv, n in commands:
                _time(argv, wt, root, True)  # warm caches (and the sandbox's probe)
                bare: list[float] = []
                boxed: list[float] = []
                for i in range(n):
                    for sandboxed in (i % 2 == 1, i % 2 == 0):
                        (boxed if sandboxed else bare).append(_time(argv, wt, root, sandboxed))
                b, s = statistics.median(bare), statistics.median(boxed)
                bmin, smin = min(bare), min(boxed)
                rows.append(
                    {
                        "command": name,
                        "runs": n,
                        "bare_ms": round(b * 1000, 2),
                        "sandbox_ms": round(s * 1000, 2),
                        "added_ms": round((s - b) * 1000, 2),
                        "ratio": round(s / b, 3) if b > 0 else None,
                        # The fastest run of each: what the sandbox costs when nothing else
                        # competes for the CPU (medians swing with a busy machine's load).
                        "bare_min_ms": round(bmin * 1000, 2),
                        "sandbox_min_ms": round(smin * 1000, 2),
                        "added_min_ms": round((smin - bmin) * 1000, 2),
                        "ratio_min": round(smin / bmin, 3) if bmin > 0 else None,
                    }
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {
        "rows": rows,
        "pids_limit": pids_limit_mechanism(),
        "target_added_ms": TARGET_ADDED_MS,
        "target_test_ratio": TARGET_TEST_RATIO,
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0],
    }


def cmd_bench_sandbox(ns: argparse.Namespace) -> int:
    if not 1 <= ns.repeat <= 200:
        raise CursorishError("--repeat must be between 1 and 200", ExitCode.BAD_ARGS)
    if not 1 <= ns.tests <= 5000:
        raise CursorishError("--tests must be between 1 and 5000", ExitCode.BAD_ARGS)
    result = run_bench(ns.repeat, ns.tests)
    if ns.json:
        print(json.dumps(result))
        return 0
    print(
        f"median wall time per command, bare vs in the sandbox (alternating, same run); "
        f"process limit: {result['pids_limit']}; {result['cpus']} CPUs, "
        f"load {result['load']:.2f}"
    )
    print(
        f"{'':<27} {'---------------- median ----------------':>41}"
        f"   {'------------- fastest run -------------':>41}"
    )
    print(
        f"{'command':<22} {'runs':>4} {'bare':>10} {'sandbox':>10} {'added':>10} {'ratio':>7}"
        f"   {'bare':>10} {'sandbox':>10} {'added':>10} {'ratio':>7}"
    )
    for r in result["rows"]:
        print(
            f"{r['command']:<22} {r['runs']:>4} {r['bare_ms']:>8.1f}ms {r['sandbox_ms']:>8.1f}ms "
            f"{r['added_ms']:>8.1f}ms {r['ratio']:>6.2f}x   {r['bare_min_ms']:>8.1f}ms "
            f"{r['sandbox_min_ms']:>8.1f}ms {r['added_min_ms']:>8.1f}ms {r['ratio_min']:>6.2f}x"
        )
    print(
        f"targets: <= {TARGET_ADDED_MS:.0f} ms added per command, "
        f"<= {(TARGET_TEST_RATIO - 1) * 100:.0f}% on the test run"
    )
    return 0
