"""The workspace gate: which tool waits for which stage, failures, and abandoning a call."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.provision import ProvisionSpec
from cursorish.core.report import AgentReport
from cursorish.core.tools import REGISTRY
from cursorish.core.workspace import Stage, WorkspaceFailed, WorkspaceGate
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
    wait_until,
)


def stage(tool: str) -> Stage:
    """The stage of the worktree the built-in `tool` waits for (its `Tool.stage`)."""
    found = REGISTRY.get(tool)
    assert found is not None
    return found.stage


def test_reading_needs_the_checkout_and_writing_the_setup_too() -> None:
    async def scenario() -> None:
        gate = WorkspaceGate()
        assert not gate.ready_for(stage("read_file"))
        gate.mark_checked_out()
        assert gate.ready_for(stage("read_file")) and gate.ready_for(stage("grep"))
        assert gate.ready_for(stage("list_files"))
        assert not gate.ready_for(stage("edit_file")) and not gate.ready_for(stage("run_command"))
        assert not gate.ready_for(stage("finish"))
        gate.mark_provisioned()
        assert gate.ready_for(stage("edit_file")) and gate.ready_for(stage("finish"))
        assert gate.error is None

    asyncio.run(scenario())


def test_a_waiting_tool_goes_on_when_its_stage_is_reached() -> None:
    async def scenario() -> list[str]:
        gate = WorkspaceGate()
        order: list[str] = []

        async def tool(name: str) -> None:
            await gate.wait_for(stage(name))
            order.append(name)

        waiting = [asyncio.create_task(tool("edit_file")), asyncio.create_task(tool("read_file"))]
        await asyncio.sleep(0)
        assert order == []
        gate.mark_checked_out()
        await asyncio.sleep(0.01)
        assert order == ["read_file"]
        gate.mark_provisioned()
        await asyncio.gather(*waiting)
        return order

    assert asyncio.run(scenario()) == ["read_file", "edit_file"]


def test_a_failure_reaches_every_stage_not_reached() -> None:
    async def scenario() -> None:
        gate = WorkspaceGate()
        gate.mark_checked_out()
        gate.fail("setup exited with code 1")
        gate.fail("a second reason is ignored")
        assert gate.error == "setup exited with code 1"
        await gate.wait_for(stage("read_file"))  # the checkout was reached: reading is fine
        with pytest.raises(WorkspaceFailed, match="setup exited with code 1"):
            await gate.wait_for(stage("edit_file"))

    asyncio.run(scenario())


def test_a_cancelled_waiter_leaves_the_stage_to_the_others() -> None:
    async def scenario() -> None:
        gate = WorkspaceGate()
        first = asyncio.create_task(gate.wait_for(stage("edit_file")))
        second = asyncio.create_task(gate.wait_for(stage("edit_file")))
        await asyncio.sleep(0)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        gate.mark_provisioned()
        await second

    asyncio.run(scenario())


def test_alongside_abandons_the_call_when_preparing_fails() -> None:
    async def scenario() -> bool:
        gate = WorkspaceGate()
        call_cancelled = asyncio.Event()

        async def slow_planner_call() -> str:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                call_cancelled.set()
                raise
            return "reply"

        async def fail_soon() -> None:
            await asyncio.sleep(0.01)
            gate.fail("cannot create the worktree: disk full")

        failing = asyncio.create_task(fail_soon())
        with pytest.raises(WorkspaceFailed, match="disk full"):
            await gate.alongside(slow_planner_call())
        await failing
        return call_cancelled.is_set()

    assert asyncio.run(scenario()) is True


def test_alongside_returns_the_reply_that_comes_first() -> None:
    async def scenario() -> str:
        gate = WorkspaceGate()

        async def quick_call() -> str:
            return "reply"

        reply = await gate.alongside(quick_call())
        assert not gate.provisioned.done()  # nothing waited for the worktree
        return reply

    assert asyncio.run(scenario()) == "reply"


# -- through the orchestrator: real worktrees, setup commands and the scripted planner ------

MakeRepo = Callable[..., Path]
BASE = {"app.py": "def main():\n    return 0\n", "README.md": "demo\n"}


def _release_when(condition: Callable[[], bool], go: Path) -> threading.Thread:
    """Create `go` (which the setup command waits for) once `condition` holds (or in 20 s)."""

    def watch() -> None:
        wait_until(condition, 20)
        go.touch()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _kinds(sink: Recorder) -> list[tuple[str, object, object]]:
    return [(e.kind, e.data.get("tool"), e.data.get("state")) for e in list(sink.events)]


def test_the_planner_and_reading_start_while_the_setup_runs(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, BASE)
    go = tmp_path / "go"
    # The setup runs until the planner's second answer (create_file) waits for it: had the
    # planner or read_file waited for the setup instead, that would never happen.
    spec = ProvisionSpec((), f"while [ ! -e {go} ]; do sleep 0.02; done", 30)
    script = [
        call("read_file", path="app.py"),
        call("create_file", path="new.txt", content="x\n"),
        finish(),
    ]
    sink = Recorder()
    with ScriptedServer(script) as server:
        waiting = ("state", "create_file", "provisioning")
        watcher = _release_when(lambda: waiting in _kinds(sink), go)
        settings = settings_for(server, sandbox=UNSANDBOXED)
        (report,), store = run_tasks(root, ["t"], settings, sink, provision=spec)
        watcher.join()
    assert report.status == "done", report.error
    read, create, _finish = store.tool_calls(report.agent_id)
    assert read["name"] == "read_file" and "return 0" in read["result"]
    assert create["name"] == "create_file" and create["ok"]
    kinds = _kinds(sink)
    read_done = kinds.index(("tool_result", "read_file", None))
    provisioned = kinds.index(("provisioned", None, None))
    create_call = kinds.index(("tool_call", "create_file", None))
    assert read_done < kinds.index(waiting) < provisioned < create_call
    assert git(root, "show", f"{report.branch}:new.txt") == "x\n"
    row = store.agent(report.agent_id)
    assert row is not None and row["provisioned_at"] is not None


def test_cancel_during_setup_kills_it_and_resume_provisions_again(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, BASE)
    runs = tmp_path / "setup-runs"
    slow = ProvisionSpec((), f"echo $$ >> {runs}; sleep 60", 120)
    script = [
        call("create_file", path="new.txt", content="x\n"),
        call("create_file", path="new.txt", content="x\n"),  # after the interrupted one
        finish(),
    ]
    with ScriptedServer(script) as server:
        orch, store = orchestrator_for(
            root, settings_for(server, sandbox=UNSANDBOXED), provision=slow
        )

        async def cancelled_while_waiting() -> AgentReport:
            runner = asyncio.create_task(orch.run(["t"]))
            while not orch._tasks:
                await asyncio.sleep(0.01)
            (agent_id,) = list(orch._tasks)
            await wait_for_state(store, agent_id, "provisioning")  # create_file waits
            assert orch.cancel(agent_id)
            (report,) = await runner
            return report

        report = asyncio.run(cancelled_while_waiting())
        assert report.status == "cancelled" and report.error == "cancelled"
        assert gone_within(int(runs.read_text().split()[0])), "the setup survived the cancel"
        row = store.agent(report.agent_id)
        assert row is not None and row["state"] == "cancelled" and row["provisioned_at"] is None
        assert not (Path(report.worktree) / "new.txt").exists()  # the edit waited for setup

        quick = ProvisionSpec((), f"echo again >> {runs}", 30)
        again, _ = orchestrator_for(
            root, settings_for(server, sandbox=UNSANDBOXED), provision=quick
        )
        resumed = asyncio.run(again.resume(report.agent_id))
    assert resumed.status == "done", resumed.error
    assert runs.read_text().splitlines()[1] == "again"
    row = store.agent(report.agent_id)
    assert row is not None and row["provisioned_at"] is not None
    assert git(root, "show", f"{report.branch}:new.txt") == "x\n"


def test_a_worktree_that_cannot_be_created_fails_the_agent_with_the_reason(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, BASE)
    # A branch named "cursorish" leaves no room for the agent branches "cursorish/<id>".
    git(root, "branch", "cursorish")
    with ScriptedServer([{**finish(), "delay_s": 60}]) as server:
        (report,), store = run_tasks(root, ["t"], settings_for(server))
    assert report.status == "failed"
    assert report.error.startswith("cannot create the worktree")
    assert "refs/heads/cursorish" in report.error
    row = store.agent(report.agent_id)
    assert row is not None and row["state"] == "failed" and row["error"] == report.error
    assert store.planner_calls(report.agent_id) == []  # its slow reply was not waited for
    assert not Path(report.worktree).exists()
    assert git(root, "status", "--porcelain") == ""
