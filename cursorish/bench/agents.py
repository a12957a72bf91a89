"""`cursorish bench agents`: do parallel agents really run in parallel?

Runs N agents (default 1, 4 and 8) against the local scripted server (in a process of its
own, as a network model would be) with a fixed latency per response, on a generated
repository of many files, each agent doing the same fixed work:
list_files, grep, read_file, two edit_file calls and finish. Prints the wall time per N, the
ratio of the 8-agent to the 1-agent wall time (1.0 = perfectly parallel; the target is
<= 1.5), and the time cursorish takes to create and provision a worktree next to a bare
`git worktree add` on the same repository (target: within 1.5x).

Everything runs in a temporary directory with its own CURSORISH_HOME, so the user's store
and repositories are untouched.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode

TARGET_RATIO = 1.5
TARGET_WORKTREE = 1.5


def generate_repo(root: Path, files: int) -> Path:
    """A repository of `files` small Python modules in folders of 100, committed once."""
    root.mkdir(parents=True)
    for i in range(files):
        path = root / f"pkg{i // 100:03d}" / f"mod{i:05d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            f'"""Module {i}."""\n\n\ndef function_{i}(x):\n    return x + {i}\n\n\n'
            f"def helper_{i}(y):\n    return y * {i}\n",
            encoding="utf-8",
        )
    (root / ".gitignore").write_text("*.pyc\n.env\n", encoding="utf-8")
    from cursorish.gitops.repo import init_committed_repo

    init_committed_repo(root, "generated", author="bench", email="bench@cursorish.invalid")
    return root


def bench_script() -> list[dict[str, Any]]:
    """The fixed work of every agent (the server picks the turn by the number of replies)."""

    def turn(name: str, **args: Any) -> dict[str, Any]:
        return {"tool_calls": [{"name": name, "arguments": args}]}

    return [
        turn("list_files", glob="*.py"),
        turn("grep", pattern="def function_7\\b", fixed_string=False),
        turn("read_file", path="pkg000/mod00007.py"),
        turn(
            "edit_file",
            path="pkg000/mod00007.py",
            sketch="def function_7(x):\n    return x + 7 + 0\n",
        ),
        turn(
            "edit_file",
            path="pkg000/mod00008.py",
            sketch="def helper_8(y):\n    return y * 8 * 1\n",
        ),
        turn("finish", summary="two edits"),
    ]


def worktree_times(root: Path, where: Path, repeat: int = 5) -> tuple[float, float]:
    """Median (bare `git worktree add -b`, cursorish create + provision) on the repository.

    The two are measured alternately so that load from elsewhere hits both alike. Nothing is
    removed until all are measured: on a journal-less ext4 (this project's machines) the
    kernel skips inodes freed in the last minutes when it allocates new ones, so creating
    5,000 files right after removing 5,000 costs up to ten times more (`perf` shows the time
    in ext4's `recently_deleted`); removing each worktree before the next would measure that.
    """
    from cursorish.core.provision import load_spec, provision
    from cursorish.core.repo_store import open_repo_store
    from cursorish.core.worktree_prep import allocate_agent, create_agent_worktree

    bare: list[float] = []
    ours: list[float] = []
    with open_repo_store(root) as opened:
        repo, store = opened.repo, opened.store
        for i in range(repeat):
            dest = where / f"bare-{i}"
            started = time.perf_counter()
            subprocess.run(
                ["git", "worktree", "add", "-q", "-b", f"bench-bare-{i}", str(dest), "HEAD"],
                cwd=root,
                check=True,
                capture_output=True,
            )
            bare.append(time.perf_counter() - started)
            agent_id, dest, branch = allocate_agent(store, repo)
            started = time.perf_counter()
            create_agent_worktree(repo, agent_id, dest, branch, repo.head_commit)
            provision(repo.root, dest, load_spec(repo.root))
            ours.append(time.perf_counter() - started)
    return statistics.median(bare), statistics.median(ours)


def parallel_bare_adds(root: Path, where: Path, n: int) -> float:
    """Wall time of `n` bare `git worktree add` started at once: what the machine's cores and
    filesystem allow for the checkouts alone, which every n-agent run does first."""
    started = time.perf_counter()
    procs = []
    for i in range(n):
        # One at a time into git's worktree list (concurrent adds race there, see
        # gitops.worktrees._register); the checkouts, the costly part, run at once.
        dest, branch = where / f"par-{n}-{i}", f"bench-par-{n}-{i}"
        subprocess.run(
            ["git", "worktree", "add", "-q", "--no-checkout", "-b", branch, str(dest), "HEAD"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        procs.append(
            subprocess.Popen(["git", "reset", "-q", "--hard"], cwd=dest, stdout=subprocess.DEVNULL)
        )
    for proc in procs:
        if proc.wait() != 0:
            raise CursorishError("git reset --hard failed in a bench worktree", ExitCode.INTERNAL)
    return time.perf_counter() - started


def _cpu_s() -> float:
    """CPU seconds used so far by this process and its finished children (user + system)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_agents(root: Path, n: int, api_base: str) -> dict[str, Any]:
    from cursorish.core.events import null_sink
    from cursorish.core.orchestrator import Orchestrator, RunSettings
    from cursorish.core.profiles import Budgets, load_profile
    from cursorish.core.repo_store import open_repo_store
    from cursorish.planner.client import PlannerSettings

    settings = RunSettings(
        planner=PlannerSettings("scripted", api_base=api_base, max_retries=1),
        profile=load_profile("default", None),
        budgets=replace(Budgets(), max_steps=20),
        apply_engine="deterministic",
        concurrency=max(8, n),
    )
    with open_repo_store(root) as opened:
        orch = Orchestrator(opened.repo, opened.store, settings, null_sink, handle_signals=False)
        cpu = _cpu_s()
        started = time.perf_counter()
        reports = asyncio.run(orch.run([f"bench task {n}"] * n))
    wall = time.perf_counter() - started
    cpu = _cpu_s() - cpu
    statuses = sorted({r.status for r in reports})
    return {
        "agents": n,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "worktree_s": [round(r.worktree_s, 3) for r in reports],
        "statuses": statuses,
        "errors": sorted({r.error for r in reports if r.error}),
    }


@contextlib.contextmanager
def server_process(script: list[dict[str, Any]], latency: float, tmp: Path) -> Iterator[str]:
    """The scripted planner in a process of its own, yielding its base URL.

    A network model costs this process nothing while it "thinks"; a server thread in this
    process would take the GIL from the agents for every request it parses and answers.
    """
    path = tmp / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cursorish.replay.scripted_server",
            str(path),
            "--latency",
            str(latency),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise CursorishError("the scripted planner server did not start", ExitCode.INTERNAL)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_bench(
    agent_counts: list[int],
    files: int,
    latency: float,
    repeat: int = 3,
    where: Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark; `where`: the directory for the repository and its worktrees
    (default: the system's temporary directory)."""
    from cursorish.planner.litellm_loader import load_litellm

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    load_litellm()  # import cost is start-up, not agent time
    saved_home = os.environ.get("CURSORISH_HOME")
    tmp = Path(tempfile.mkdtemp(prefix="cursorish-bench-agents-", dir=where))
    os.environ["CURSORISH_HOME"] = str(tmp / "home")
    try:
        root = generate_repo(tmp / "repo", files)
        best: dict[int, dict[str, Any]] = {}
        with server_process(bench_script(), latency, tmp) as base_url:
            run_agents(root, 1, base_url)  # warm-up: litellm's client, caches
            # Rounds of 1, 4, 8 rather than 1, 1, 4, 4, ...: a change in the machine's load
            # then hits every count alike. Best of `repeat`: other load only ever adds time.
            for _ in range(repeat):
                for n in agent_counts:
                    run = run_agents(root, n, base_url)
                    if n not in best or run["wall_s"] < best[n]["wall_s"]:
                        best[n] = run
        runs = [best[n] for n in agent_counts]
        # After the agent runs, which it would otherwise slow down (see worktree_times).
        bare, ours = worktree_times(root, tmp)
        bare_parallel = {
            n: parallel_bare_adds(root, tmp, n) for n in sorted({1, max(agent_counts)})
        }
    finally:
        if saved_home is None:
            os.environ.pop("CURSORISH_HOME", None)
        else:
            os.environ["CURSORISH_HOME"] = saved_home
        shutil.rmtree(tmp, ignore_errors=True)
    walls = {r["agents"]: r["wall_s"] for r in runs}
    ratio = round(walls[8] / walls[1], 3) if 1 in walls and 8 in walls else None
    return {
        "files": files,
        "latency_s": latency,
        "turns_per_agent": len(bench_script()),
        "repeat": repeat,
        "cores": os.cpu_count(),
        "dir": str(tmp.parent),
        "runs": runs,
        "bare_worktree_add_s": round(bare, 4),
        "worktree_s": round(ours, 4),
        "worktree_vs_bare": round(ours / bare, 3) if bare > 0 else None,
        "bare_checkouts_at_once_s": {str(k): round(v, 3) for k, v in bare_parallel.items()},
        "ratio_8_to_1": ratio,
        "target_ratio": TARGET_RATIO,
        "target_worktree_vs_bare": TARGET_WORKTREE,
    }


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CursorishError(
            f"--agents must be like 1,4,8, not {text!r}", ExitCode.BAD_ARGS
        ) from None
    if not counts or any(c < 1 or c > 64 for c in counts):
        raise CursorishError("--agents counts must be between 1 and 64", ExitCode.BAD_ARGS)
    return list(dict.fromkeys(counts))


def cmd_bench_agents(ns: argparse.Namespace) -> int:
    counts = _counts(ns.agents)
    if ns.files < 10:
        raise CursorishError("--files must be at least 10", ExitCode.BAD_ARGS)
    if not 1 <= ns.repeat <= 20:
        raise CursorishError("--repeat must be between 1 and 20", ExitCode.BAD_ARGS)
    where = Path(ns.dir) if ns.dir else None
    if where is not None and not (where.is_dir() and os.access(where, os.W_OK | os.X_OK)):
        raise CursorishError(f"--dir {where}: not a writable directory", ExitCode.BAD_ARGS)
    result = run_bench(counts, ns.files, ns.latency, ns.repeat, where)
    bad = [r for r in result["runs"] if r["statuses"] != ["done"]]
    if ns.json:
        for run in result["runs"]:
            print(json.dumps({"event": "run", **run}))
        print(json.dumps({"event": "summary", **result}))
    else:
        print(
            f"{result['files']} files, planner latency {result['latency_s']}s per reply, "
            f"{result['turns_per_agent']} replies per agent, in {result['dir']}"
        )
        print(f"{'agents':>6} {'wall':>8} {'CPU':>8} {'worktree (mean)':>16}  status")
        for run in result["runs"]:
            mean = statistics.mean(run["worktree_s"]) if run["worktree_s"] else 0.0
            print(
                f"{run['agents']:>6} {run['wall_s']:>7.2f}s {run['cpu_s']:>7.2f}s "
                f"{mean:>15.3f}s  {','.join(run['statuses'])}"
            )
        if result["ratio_8_to_1"] is not None:
            print(
                f"8 agents / 1 agent wall time: {result['ratio_8_to_1']:.2f}x "
                f"(target <= {TARGET_RATIO})"
            )
        print(
            f"worktree: cursorish {result['worktree_s'] * 1000:.0f} ms vs bare git worktree add "
            f"{result['bare_worktree_add_s'] * 1000:.0f} ms = {result['worktree_vs_bare']:.2f}x "
            f"(target <= {TARGET_WORKTREE})"
        )
        at_once = result["bare_checkouts_at_once_s"]
        if len(at_once) == 2:
            (_, t1), (many, tn) = sorted(at_once.items(), key=lambda kv: int(kv[0]))
            print(
                f"checkouts alone (bare git, no agents): {many} at once {tn:.2f}s, "
                f"1 alone {t1:.2f}s ({tn / t1:.2f}x): what this machine allows for checkouts"
            )
        for run in bad:
            print(f"agents={run['agents']}: not all done: {run['statuses']} {run['errors']}")
    return int(ExitCode.INTERNAL) if bad else 0
