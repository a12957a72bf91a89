"""The store recorder: events in, rows out, in the order the events came; and the agent loop
and the orchestrator write nothing of a run themselves (they only emit).

Real SQLite; the last test runs a real agent (real litellm over HTTP to a ScriptedServer, real
git worktrees) on a store that notes which module each write came from."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cursorish.core import events as ev
from cursorish.core.orchestrator import Orchestrator
from cursorish.core.provision import ProvisionSpec
from cursorish.core.recorder import recorded
from cursorish.core.states import AgentState
from cursorish.gitops.repo import open_repo
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.store.db import Store
from cursorish.store.paths import store_path
from tests.core.agent_helpers import Recorder, call, finish, settings_for

MakeRepo = Callable[..., Path]

SYSTEM = {"role": "system", "content": "be useful"}
USER = {"role": "user", "content": "Task: add a flag"}
ASSISTANT = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "edit_file", "arguments": '{"path": "a.py"}'},
        }
    ],
}
TOOL = {"role": "tool", "tool_call_id": "c1", "content": "applied to a.py (+1 -0)"}
NUDGE = {"role": "user", "content": "Use the tools to make the change; call finish when done."}


def _store(tmp_path: Path, *agent_ids: str) -> Store:
    store = Store.open(tmp_path / "store.db")
    task = store.create_task("add a flag", str(tmp_path))
    for agent_id in agent_ids:
        store.create_agent(
            agent_id=agent_id,
            task_id=task,
            profile="default",
            branch=f"cursorish/{agent_id}",
            worktree=str(tmp_path / agent_id),
            base_commit="0" * 40,
            planner_model="scripted",
            apply_engine="deterministic",
        )
    return store


def _run_events(agent: str) -> list[ev.Event]:
    attempt = ev.ApplyAttempt("a.py", "deterministic", "lazy", "merged", "", "x = 1\n", 1.5)
    return [
        ev.AgentStarted(agent, "add a flag", False, messages=(SYSTEM, USER)),
        ev.StateChanged(agent, AgentState.PLANNING, step=1),
        ev.PlannerReply(
            agent,
            1,
            "",
            ["edit_file"],
            100,
            20,
            0.5,
            call=ev.PlannerCall(1, "scripted", '{"messages": 2}', '{"content": ""}', 12.0),
            message=ASSISTANT,
        ),
        ev.StateChanged(agent, AgentState.APPLYING, tool="edit_file"),
        ev.ToolCalled(agent, "edit_file", "c1", '{"path": "a.py"}', "a.py"),
        ev.Applying(agent, "a.py"),
        ev.FileChanged(agent, "a.py", 1, 0, "deterministic"),
        ev.ApplyDone(agent, "a.py", "merged", "deterministic", 2.0, attempt=attempt),
        ev.ToolReturned(
            agent,
            "edit_file",
            "c1",
            True,
            TOOL["content"],
            3.0,
            step=1,
            arguments='{"path": "a.py"}',
            full_result=TOOL["content"],
            message=TOOL,
            tests=(1, 1),
        ),
        ev.MessagesAdded(agent, (NUDGE,)),
        ev.AgentFinished(
            agent, AgentState.DONE, summary="added it", error="", steps=1, tests=(1, 1), budget=""
        ),
    ]


def test_events_in_rows_out_in_order(tmp_path: Path) -> None:
    store = _store(tmp_path, "a1")
    seen: list[ev.Event] = []

    def front_end(event: ev.Event) -> None:
        # The store has the event's rows before any front end sees it.
        if isinstance(event, ev.PlannerReply):
            assert store.messages("a1")[-1]["role"] == "assistant"
        seen.append(event)

    emit = recorded(store, front_end)
    events = _run_events("a1")
    for event in events:
        emit(event)
    # Internal events are for the store only.
    assert [e.kind for e in seen] == [e.kind for e in events if not e.internal]
    assert "messages_added" not in [e.kind for e in seen]

    assert store.messages("a1") == [SYSTEM, USER, ASSISTANT, TOOL, NUDGE]
    order = [
        (e["kind"], e.get("role") or e.get("outcome") or e.get("name") or e.get("model"))
        for e in store.transcript("a1")
    ]
    assert order == [
        ("message", "system"),
        ("message", "user"),
        ("planner_call", "scripted"),
        ("message", "assistant"),
        ("apply_attempt", "merged"),
        ("tool_call", "edit_file"),
        ("message", "tool"),
        ("message", "user"),
    ]
    (planner_call,) = store.planner_calls("a1")
    assert (planner_call["step"], planner_call["elapsed_ms"], planner_call["error"]) == (
        1,
        12.0,
        "",
    )
    (tool_call,) = store.tool_calls("a1")
    assert tool_call["call_id"] == "c1" and tool_call["result"] == TOOL["content"]
    (attempt,) = store.apply_attempts("a1")
    assert (attempt["engine"], attempt["sketch_format"], attempt["sketch"]) == (
        "deterministic",
        "lazy",
        "x = 1\n",
    )
    row = store.agent("a1")
    assert row is not None
    assert (row["state"], row["steps"], row["summary"], row["error"], row["exit_reason"]) == (
        "done",
        1,
        "added it",
        "",
        "done",
    )
    assert (row["prompt_tokens"], row["completion_tokens"], row["cost_usd"]) == (100, 20, 0.5)
    assert (row["tests_run"], row["tests_passed"]) == (1, 1)
    assert row["finished_at"]


def test_every_end_is_written_by_one_method(tmp_path: Path) -> None:
    store = _store(tmp_path, "q1", "c1", "b1")
    emit = recorded(store, Recorder())
    emit(ev.AgentFinished("q1", AgentState.CANCELLED))  # cancelled while queued
    emit(ev.AgentFinished("c1", AgentState.FAILED, error="internal error: boom"))  # a crash
    emit(
        ev.AgentFinished(
            "b1", AgentState.BUDGET_EXHAUSTED, error="step budget", steps=3, budget="steps"
        )
    )
    failed = ev.PlannerCall(3, "scripted", '{"messages": 5}', "", 9.0, error="rate limited")
    emit(ev.PlannerFailed("b1", failed))
    (row,) = store.planner_calls("b1")  # a failed request has no usage
    assert (row["error"], row["prompt_tokens"], row["cost_usd"]) == ("rate limited", None, None)
    rows = {a: store.agent(a) for a in ("q1", "c1", "b1")}
    assert {a: (r["state"], r["error"], r["exit_reason"]) for a, r in rows.items() if r} == {
        "q1": ("cancelled", "cancelled", "cancelled"),
        "c1": ("failed", "internal error: boom", "failed"),
        "b1": ("budget_exhausted", "step budget", "steps"),
    }
    assert all(r and r["finished_at"] for r in rows.values())
    # The JSON of each end is the one the front ends always printed.
    assert ev.AgentFinished("q1", AgentState.CANCELLED).data == {"status": "cancelled"}
    assert ev.AgentFinished("c1", AgentState.FAILED, error="x").data == {
        "status": "failed",
        "error": "x",
    }


def test_the_json_lines_keep_their_shape() -> None:
    deleted = ev.FileChanged("a1", "old.py", deleted=True, ts=1.0)
    assert deleted.to_json() == {
        "event": "file_changed",
        "agent": "a1",
        "ts": 1.0,
        "path": "old.py",
        "deleted": True,
    }
    state = ev.StateChanged("a1", AgentState.PLANNING, step=2, ts=1.0)
    assert json.dumps(state.to_json()) == (
        '{"event": "state", "agent": "a1", "ts": 1.0, "state": "planning", "step": 2}'
    )
    queued = ev.Queued("a1", "t", "cursorish/a1", "abc", None, ts=1.0)
    assert queued.to_json()["base_ref"] is None  # a required field is printed even when None
    # What only the store needs never reaches the JSON output.
    returned = _run_events("a1")[8]
    assert set(returned.to_json()) == {
        "event",
        "agent",
        "ts",
        "tool",
        "call_id",
        "ok",
        "result",
        "ms",
    }


class _WhoWrites(Store):
    """A store that notes the module (and function) each write of a run came from."""

    writes: list[tuple[str, str, str]]

    def _note(self, method: str) -> None:
        frame = sys._getframe(2)
        self.writes.append((method, Path(frame.f_code.co_filename).name, frame.f_code.co_name))

    def update_agent(self, agent_id: str, **fields: Any) -> None:
        self._note("update_agent")
        super().update_agent(agent_id, **fields)

    def add_message(self, agent_id: str, message: Any) -> None:
        self._note("add_message")
        super().add_message(agent_id, message)

    def add_usage(self, agent_id: str, *args: Any, **kwargs: Any) -> None:
        self._note("add_usage")
        super().add_usage(agent_id, *args, **kwargs)

    def add_planner_call(self, agent_id: str, **fields: Any) -> int:
        self._note("add_planner_call")
        return super().add_planner_call(agent_id, **fields)

    def add_tool_call(self, agent_id: str, **fields: Any) -> int:
        self._note("add_tool_call")
        return super().add_tool_call(agent_id, **fields)

    def add_apply_attempt(self, agent_id: str, **fields: Any) -> int:
        self._note("add_apply_attempt")
        return super().add_apply_attempt(agent_id, **fields)


def test_the_agent_and_the_orchestrator_only_emit(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"app.py": "def main():\n    return 0\n"})
    repo = open_repo(root)
    store = _WhoWrites.open(store_path(repo.git_common_dir))
    store.writes = []
    turns = [
        call("read_file", path="app.py"),
        call("edit_file", path="app.py", sketch="def main():\n    return 1\n"),
        {"content": "thinking it over"},  # text only: the agent is nudged
        finish("returns 1"),
    ]
    with ScriptedServer(turns) as server:
        orch = Orchestrator(
            repo,
            store,
            settings_for(server),
            Recorder(),
            provision_spec=ProvisionSpec(),
            handle_signals=False,
        )
        (report,) = asyncio.run(orch.run(["make main return 1"]))
    assert report.status == "done", report.error
    # The agent row's owner is set where the row is created; every other write of the run
    # (transcript, usage, planner and tool calls, apply attempts, states, the end) is the
    # recorder's.
    others = [w for w in store.writes if w[1] != "recorder.py"]
    assert others == [("update_agent", "orchestrator.py", "run")]
    written = {method for method, _, _ in store.writes}
    assert {"add_message", "add_usage", "add_planner_call", "add_tool_call"} <= written
    assert "add_apply_attempt" in written
    roles = [m["role"] for m in store.messages(report.agent_id)]
    assert roles == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    row = store.agent(report.agent_id)
    assert row is not None and row["state"] == "done" and row["provisioned_at"]
    store.close()
