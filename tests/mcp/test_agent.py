"""An agent whose scripted planner calls real MCP servers through cursorish: the schemas reach
the planner's first request, the result reaches the transcript, a crash is a tool error the
planner reads and the agent goes on, and the servers are gone when the agent ends."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import call, finish, run_tasks, settings_for, wait_until

from .conftest import PY, SERVERS, spec, time_spec

MakeRepo = Callable[..., Path]


def test_planner_calls_mcp_tools_through_the_agent(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"app.py": "def main():\n    return 0\n"})
    marker = f"marker-{tmp_path.name}"
    flaky = spec("flaky", command=PY, args=[str(SERVERS / "flaky.py"), marker], timeout=5)
    script = [
        call("time__get_current_time", timezone="UTC"),
        call("flaky__crash"),
        call("flaky__echo", text="after the crash"),
        call("create_file", path="notes.txt", content="checked the time\n"),
        finish("noted the time"),
    ]
    with ScriptedServer(script) as server:
        settings = dataclasses.replace(
            settings_for(server, allow=("mcp:flaky__*",)),
            mcp_servers=(time_spec(autoApprove=["get_current_time"]), flaky),
        )
        reports, store = run_tasks(root, ["note the time"], settings)
        requests = server.requests
    [report] = reports
    assert report.status == "done", report.error
    offered = [t["function"]["name"] for t in requests[0]["tools"]]
    assert "time__get_current_time" in offered and "flaky__crash" in offered
    calls = {c["name"]: c for c in store.tool_calls(report.agent_id)}
    assert calls["time__get_current_time"]["ok"]
    assert json.loads(calls["time__get_current_time"]["result"])["timezone"] == "UTC"
    assert not calls["flaky__crash"]["ok"]
    assert "exited while asked to run crash" in calls["flaky__crash"]["result"]
    assert calls["flaky__echo"]["ok"] and calls["flaky__echo"]["result"] == "after the crash"
    # The transcript the planner saw holds each result.
    tool_messages = [m["content"] for m in store.messages(report.agent_id) if m["role"] == "tool"]
    assert any('"timezone": "UTC"' in m for m in tool_messages)
    assert any("exited while asked to run crash" in m for m in tool_messages)
    # The second request carried the time result back to the planner.
    last = requests[1]["messages"][-1]
    assert last["role"] == "tool" and '"timezone": "UTC"' in last["content"]
    # The restarted server was stopped with the agent.
    assert wait_until(lambda: not _running(marker), 15), "an MCP server outlived its agent"


def _running(marker: str) -> bool:
    for proc in Path("/proc").iterdir():
        try:
            if marker.encode() in (proc / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_headless_policy_refuses_unapproved_mcp_tools(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"app.py": "def main():\n    return 0\n"})
    script = [
        call("time__get_current_time", timezone="UTC"),
        call("create_file", path="notes.txt", content="x\n"),
        finish(),
    ]
    with ScriptedServer(script) as server:
        settings = dataclasses.replace(settings_for(server), mcp_servers=(time_spec(),))
        [report], store = run_tasks(root, ["t"], settings)
    assert report.status == "done"
    [mcp_call] = [c for c in store.tool_calls(report.agent_id) if c["name"].startswith("time__")]
    assert not mcp_call["ok"] and "not approved for headless runs" in mcp_call["result"]


def test_explain_profile_offers_no_mcp_tools(tmp_path: Path, make_repo: MakeRepo) -> None:
    from cursorish.core.profiles import load_profile

    root = make_repo(tmp_path, {"app.py": "x = 1\n"})
    with ScriptedServer([finish("x is 1")]) as server:
        settings = dataclasses.replace(
            settings_for(server),
            profile=load_profile("explain", None),
            mcp_servers=(time_spec(),),
        )
        run_tasks(root, ["what is x?"], settings)
        offered = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert not [n for n in offered if "__" in n]
