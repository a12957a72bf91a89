"""The orchestrator end to end: parallel agents on their own branches, limits, budgets, cancel.

Real litellm over HTTP to a ScriptedServer, real git worktrees, real SQLite.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.agent import is_test_command
from cursorish.headless import compare_reports
from cursorish.replay.scripted_server import ScriptedServer
from tests.conftest import git
from tests.core.agent_helpers import (
    UNSANDBOXED,
    Recorder,
    call,
    finish,
    gone_within,
    orchestrator_for,
    run_tasks,
    settings_for,
    wait_for_state,
)

MakeRepo = Callable[..., Path]
BASE = {"app.py": "def main():\n    return 0\n", "README.md": "demo\n"}


def _edit_turns(n: int) -> list[dict[str, object]]:
    return [
        call("read_file", path="app.py"),
        call(
            "edit_file",
            path="app.py",
            sketch=f"def main():\n    return 0\n\n\nAGENT = {n}\n",
        ),
        finish(f"agent {n} edited app.py"),
    ]


def test_eight_agents_edit_the_same_file_on_their_own_branches(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, BASE)
    head = git(root, "rev-parse", "HEAD").strip()
    script = {f"task number {i}": _edit_turns(i) for i in range(8)}
    with ScriptedServer(script, latency_s=0.05) as server:
        reports, store = run_tasks(
            root, [f"task number {i}" for i in range(8)], settings_for(server)
        )
    assert [r.status for r in reports] == ["done"] * 8
    assert len({r.branch for r in reports}) == 8 and len({r.worktree for r in reports}) == 8
    for i, report in enumerate(reports):
        text = git(root, "show", f"{report.branch}:app.py")
        assert f"AGENT = {i}\n" in text
        assert sum(f"AGENT = {j}" in text for j in range(8)) == 1  # no other agent's edit
        # One commit per agent: the checkpoints were squashed into the final commit.
        assert git(root, "rev-list", "--count", f"{head}..{report.branch}").strip() == "1"
        assert store.agent(report.agent_id)["state"] == "done"  # type: ignore[index]
    # The user's checkout and branch never moved.
    assert git(root, "rev-parse", "HEAD").strip() == head
    assert git(root, "status", "--porcelain") == ""
    assert (root / "app.py").read_text() == BASE["app.py"]


def test_concurrency_limit_queues_the_rest(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    active: set[str] = set()
    peak = [0]
    sink = Recorder()

    def track(event: object) -> None:
        sink(event)  # type: ignore[arg-type]
        kind, agent = event.kind, event.agent_id  # type: ignore[attr-defined]
        if kind == "worktree_ready":
            active.add(agent)
            peak[0] = max(peak[0], len(active))
        elif kind == "agent_finished":
            active.discard(agent)

    with ScriptedServer([finish()], latency_s=0.1) as server:
        orch, _store = orchestrator_for(root, settings_for(server, concurrency=2))
        orch.emit = track
        reports = asyncio.run(orch.run(["same task"] * 5))
    assert len(reports) == 5
    assert peak[0] == 2


def test_tests_run_and_passed_are_counted(tmp_path: Path, make_repo: MakeRepo) -> None:
    files = {
        **BASE,
        "test_app.py": "import unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_ok(self):\n        self.assertTrue(True)\n",
    }
    root = make_repo(tmp_path, files)
    script = [
        call("edit_file", path="app.py", sketch="def main():\n    return 1\n"),
        call("run_command", command="python3 -m unittest"),
        call("run_command", command="python3 -m unittest nosuchmodule"),
        finish(),
    ]
    with ScriptedServer(script) as server:
        reports, store = run_tasks(root, ["t", "t"], settings_for(server))
    for report in reports:
        assert (report.tests_run, report.tests_passed) == (2, 1)
        row = store.agent(report.agent_id)
        assert row is not None and (row["tests_run"], row["tests_passed"]) == (2, 1)
    table = compare_reports(reports)
    assert "tests" in table.splitlines()[0] and "1/2" in table


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest -q", True),
        ("python -m pytest tests", True),
        ("npm test", True),
        ("go test ./...", True),
        ("cargo test", True),
        ("ls -la", False),
        ("git status", False),
    ],
)
def test_is_test_command(command: str, expected: bool) -> None:
    assert is_test_command(command) is expected


def _never_finishes(n: int = 6) -> list[dict[str, object]]:
    return [call("read_file", path="README.md") for _ in range(n)]


def test_step_budget_ends_as_budget_exhausted(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    with ScriptedServer(_never_finishes()) as server:
        (report,), store = run_tasks(root, ["t"], settings_for(server, max_steps=2))
    assert (report.status, report.budget, report.steps) == ("budget_exhausted", "steps", 2)
    row = store.agent(report.agent_id)
    assert row is not None and (row["state"], row["exit_reason"]) == ("budget_exhausted", "steps")
    assert report.exit_code == 6


def test_token_budget_ends_as_budget_exhausted(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    turns = [
        {**t, "usage": {"prompt_tokens": 400, "completion_tokens": 10}} for t in _never_finishes()
    ]
    with ScriptedServer(turns) as server:
        (report,), _ = run_tasks(root, ["t"], settings_for(server, max_tokens=1000))
    assert (report.status, report.budget) == ("budget_exhausted", "tokens")
    assert report.prompt_tokens + report.completion_tokens >= 1000
    assert report.steps == 3  # 410, 820, 1230: stops before the fourth request


def test_cost_budget_ends_as_budget_exhausted(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    # gpt-4o has a price in litellm's bundled table: 100k prompt tokens cost well over $0.10.
    turns = [
        {**t, "usage": {"prompt_tokens": 100_000, "completion_tokens": 10}}
        for t in _never_finishes()
    ]
    with ScriptedServer(turns, model="gpt-4o") as server:
        settings = settings_for(server, model="gpt-4o", max_cost_usd=0.1, max_tokens=10**9)
        (report,), _ = run_tasks(root, ["t"], settings)
    assert (report.status, report.budget) == ("budget_exhausted", "cost")
    assert report.cost_usd >= 0.1 and report.steps == 1


def test_time_budget_ends_a_slow_planner_call(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    with ScriptedServer([{**finish(), "delay_s": 20}]) as server:
        started = time.monotonic()
        (report,), _ = run_tasks(root, ["t"], settings_for(server, max_wall_s=0.5))
    assert (report.status, report.budget) == ("budget_exhausted", "time")
    assert time.monotonic() - started < 10


def test_cancel_mid_step_commits_the_work_done(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    script = [
        call("create_file", path="new.txt", content="made before the cancel\n"),
        {**finish(), "delay_s": 30},  # the planner "thinks" until cancelled
    ]
    sink = Recorder()
    with ScriptedServer(script) as server:
        orch, store = orchestrator_for(root, settings_for(server), sink)

        async def scenario() -> list[object]:
            runner = asyncio.create_task(orch.run(["t"]))
            while "checkpoint" not in sink.kinds():
                await asyncio.sleep(0.02)
            (agent_id,) = list(orch._tasks)
            await wait_for_state(store, agent_id, "planning")
            started = time.monotonic()
            assert orch.cancel(agent_id)
            reports = await runner
            assert time.monotonic() - started < 15  # not the planner's 30 s
            return list(reports)

        (report,) = asyncio.run(scenario())
    assert report.status == "cancelled"  # type: ignore[attr-defined]
    branch = report.branch  # type: ignore[attr-defined]
    assert git(root, "show", f"{branch}:new.txt") == "made before the cancel\n"
    log = git(root, "log", "-1", "--format=%B", branch)
    assert "Cursorish-Status: cancelled" in log
    row = store.agent(report.agent_id)  # type: ignore[attr-defined]
    assert row is not None and row["state"] == "cancelled"


def test_cancel_request_in_the_store_stops_the_agent(tmp_path: Path, make_repo: MakeRepo) -> None:
    """What `cursorish agents cancel` does, seen from the running orchestrator."""
    from cursorish.core.lifecycle import request_cancel

    root = make_repo(tmp_path, BASE)
    with ScriptedServer([{**finish(), "delay_s": 30}]) as server:
        orch, store = orchestrator_for(root, settings_for(server))

        async def scenario() -> str:
            runner = asyncio.create_task(orch.run(["t"]))
            while not orch._tasks:
                await asyncio.sleep(0.01)
            (agent_id,) = list(orch._tasks)
            await wait_for_state(store, agent_id, "planning")
            assert request_cancel(store, agent_id).how == "signalled"
            (report,) = await asyncio.wait_for(runner, 10)
            return report.status

        assert asyncio.run(scenario()) == "cancelled"


def test_cancel_kills_a_running_command(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    script = [call("run_command", command="sleep 60"), finish()]
    with ScriptedServer(script) as server:
        orch, store = orchestrator_for(root, settings_for(server, allow=("sleep",)))

        async def scenario() -> float:
            runner = asyncio.create_task(orch.run(["t"]))
            while not orch._tasks:
                await asyncio.sleep(0.01)
            (agent_id,) = list(orch._tasks)
            await wait_for_state(store, agent_id, "running_command")
            await asyncio.sleep(0.2)
            started = time.monotonic()
            orch.cancel(agent_id)
            (report,) = await runner
            assert report.status == "cancelled"
            return time.monotonic() - started

        assert asyncio.run(scenario()) < 5


def test_command_timeout_kills_grandchildren(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    pidfile = tmp_path / "grandchild.pid"
    command = f"bash -c 'sleep 60 & echo $! > {pidfile}; wait'"
    script = [call("run_command", command=command), finish()]
    with ScriptedServer(script) as server:
        settings = settings_for(
            server, command_policy="allow", command_timeout_s=1.0, sandbox=UNSANDBOXED
        )
        (report,), store = run_tasks(root, ["t"], settings)
    (tool,) = [t for t in store.tool_calls(report.agent_id) if t["name"] == "run_command"]
    assert "timed out" in tool["result"]
    assert gone_within(int(pidfile.read_text()))


def test_project_instructions_reach_the_planner(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(
        tmp_path,
        {**BASE, "AGENTS.md": "Always indent with tabs.\n", ".cursorrules": "No emoji.\n"},
    )
    with ScriptedServer([finish()]) as server:
        run_tasks(root, ["t"], settings_for(server))
        (request,) = server.requests
    system = request["messages"][0]
    assert system["role"] == "system"
    assert "Always indent with tabs." in system["content"]
    assert "No emoji." in system["content"]


def test_detached_head_works(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, BASE)
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "--detach", head)
    with ScriptedServer([call("create_file", path="x.txt", content="x\n"), finish()]) as server:
        (report,), _ = run_tasks(root, ["t"], settings_for(server))
    assert report.status == "done" and report.base_commit == head
    assert git(root, "show", f"{report.branch}:x.txt") == "x\n"


def test_repo_with_submodule_works_and_says_so(tmp_path: Path, make_repo: MakeRepo) -> None:
    sub = make_repo(tmp_path, {"lib.txt": "lib\n"}, name="sub")
    root = make_repo(tmp_path, BASE)
    subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    git(root, "commit", "-q", "-m", "add submodule")
    sink = Recorder()
    with ScriptedServer([call("create_file", path="x.txt", content="x\n"), finish()]) as server:
        (report,), _ = run_tasks(root, ["t"], settings_for(server), sink)
    assert report.status == "done"
    notices = [e.data["message"] for e in sink.events if e.kind == "notice"]
    assert any("submodules" in n for n in notices)


def test_planner_failure_ends_as_failed_with_the_reason(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, BASE)
    turns = [{"error": {"status": 401, "message": "bad key", "times": -1}}]
    with ScriptedServer(turns) as server:
        (report,), store = run_tasks(root, ["t"], settings_for(server))
    assert report.status == "failed" and report.error
    row = store.agent(report.agent_id)
    assert row is not None and row["state"] == "failed"


def test_time_budget_ends_a_long_command(tmp_path: Path, make_repo: MakeRepo) -> None:
    from cursorish.planner.litellm_loader import load_litellm

    load_litellm()  # its import (seconds on a busy machine) must not eat the budget
    root = make_repo(tmp_path, BASE)
    script = [call("run_command", command="sleep 60", timeout_s=600), finish()]
    sink = Recorder()
    with ScriptedServer(script) as server:
        settings = settings_for(server, allow=("sleep",), command_timeout_s=600, max_wall_s=5)
        started = time.monotonic()
        (report,), _ = run_tasks(root, ["t"], settings, sink)
    assert (report.status, report.budget) == ("budget_exhausted", "time")
    assert "running_command" in sink.kinds() and "(in a tool)" in report.error
    assert time.monotonic() - started < 30  # not the command's 60 s
