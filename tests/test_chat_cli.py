"""`cursorish chat AGENT "message"` and `--continue`: follow-ups to done, gave-up, failed,
cancelled, interrupted (kill -9) and gone-worktree agents, and to a running agent in another
process; mentions; `--plan` then `chat --approve`. Real CLI, real litellm over HTTP to the
scripted server, real git and store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from cursorish.core.tools import REGISTRY
from cursorish.replay.scripted_server import ScriptedServer
from tests.conftest import ServerFactory, git
from tests.scripted_turns import APP, SKETCH, call, finish
from tests.test_headless import json_lines, store_of

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
HELLO = APP.replace('"hi "', '"hello "')
SKETCH_BYE = '# ... existing code ...\n\n\ndef bye(name):\n    return "goodbye " + name\n'
BOTH = HELLO.replace('"bye "', '"goodbye "')
EDIT = {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]}
EDIT_BYE = {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH_BYE)]}

pytestmark = pytest.mark.usefixtures("one_retry")


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    return make_repo(tmp_path, {"app.py": APP, "README.md": "# demo\n"})


def planner_args(server: ScriptedServer) -> list[str]:
    return ["--planner", "openai/scripted", "--api-base", server.base_url]


def task(repo: Path, server: ScriptedServer, *extra: str, text: str = "say hello") -> int:
    return main(["--task", text, "--repo", str(repo), *planner_args(server), *extra])


def chat(repo: Path, server: ScriptedServer | None, agent: str, *extra: str) -> int:
    args = planner_args(server) if server is not None else []
    return main(["chat", agent, *extra, "--repo", str(repo), *args])


def last_summary(out: str) -> dict[str, Any]:
    summary = json_lines(out)[-1]
    assert summary["event"] == "summary", out
    return summary


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


def review_listing(capsys: pytest.CaptureFixture[str], repo: Path, branch: str) -> Any:
    capsys.readouterr()
    assert main(["review", branch, "--list", "--json", "--repo", str(repo)]) == 0
    return json.loads(capsys.readouterr().out)


def states(listing: dict[str, Any]) -> list[str]:
    return [h["state"] for f in listing["files"] for h in f["hunks"]]


def test_chat_continues_a_done_agent_and_new_changes_are_new_pending_chunks(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([EDIT, finish(), EDIT_BYE, finish("changed bye too")])
    assert task(repo, server, "--json") == 0
    first = last_summary(capsys.readouterr().out)
    agent, branch = first["agent"], first["branch"]
    # The user accepts the first change before talking to the agent again.
    assert main(["review", branch, "--accept-all", "--repo", str(repo)]) == 0
    capsys.readouterr()

    code = chat(repo, server, agent, "also say goodbye in bye()", "--json")
    out = capsys.readouterr().out
    assert code == 0, out
    summary = last_summary(out)
    assert (summary["agent"], summary["status"], summary["branch"]) == (agent, "done", branch)
    assert summary["worktree"] == first["worktree"]
    # The planner got the whole stored transcript plus the new message.
    request = server.requests[-2]
    assert user_texts(request)[-1] == "also say goodbye in bye()"
    assert [m["role"] for m in request["messages"]][:4] == ["system", "user", "assistant", "tool"]
    assert git(repo, "show", f"{branch}:app.py") == BOTH
    listing = review_listing(capsys, repo, branch)
    assert sorted(states(listing)) == ["accepted", "pending"]  # the decided one stayed so
    (pending,) = [h for f in listing["files"] for h in f["hunks"] if h["state"] == "pending"]
    assert "goodbye" in "\n".join(pending["lines"])


def test_continue_flag_is_chat(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([EDIT, finish(), EDIT_BYE, finish()])
    assert task(repo, server, "--json") == 0
    agent = last_summary(capsys.readouterr().out)["agent"]
    code = main(
        ["--continue", agent[:4], "--task", "bye too", "--repo", str(repo), *planner_args(server)]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"agent {agent}: done" in out
    assert git(repo, "show", f"cursorish/{agent}:app.py") == BOTH


def test_chat_to_a_gave_up_agent_and_exit_codes_follow_the_task(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(
        [
            finish("cannot find it", status="gave_up"),
            EDIT,
            finish("found it"),
            finish(status="gave_up"),
        ]
    )
    assert task(repo, server, "--quiet") == 7
    agent = store_agent_id(repo)
    assert chat(repo, server, agent, "it is in app.py", "--quiet") == 0
    assert git(repo, "show", f"cursorish/{agent}:app.py") == HELLO
    capsys.readouterr()
    assert chat(repo, server, agent, "anything else?", "--quiet") == 7


def store_agent_id(repo: Path) -> str:
    with store_of(repo) as store:
        row = store.last_agent()
        assert row is not None
        return str(row["id"])


def test_chat_to_a_failed_agent(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = {**EDIT, "error": {"status": 500, "times": 2}}
    server = scripted_server([failing, finish()])
    assert task(repo, server, "--quiet") == 5
    agent = store_agent_id(repo)
    assert chat(repo, server, agent, "try again", "--quiet") == 0
    assert git(repo, "show", f"cursorish/{agent}:app.py") == HELLO


def test_chat_to_an_agent_whose_worktree_is_gone_uses_the_review_worktree(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([EDIT, finish(), EDIT_BYE, finish()])
    assert task(repo, server, "--json") == 0
    first = last_summary(capsys.readouterr().out)
    git(repo, "worktree", "remove", "--force", first["worktree"])
    listing = review_listing(capsys, repo, first["branch"])  # review makes its own worktree
    assert states(listing) == ["pending"]
    with store_of(repo) as store:
        review_wt = store.review(first["branch"])["worktree"]  # type: ignore[index]
    assert chat(repo, server, first["agent"], "bye too", "--json") == 0
    summary = last_summary(capsys.readouterr().out)
    assert summary["worktree"] == review_wt
    assert not Path(first["worktree"]).exists()
    assert (Path(review_wt) / "app.py").read_text() == BOTH
    assert git(repo, "show", f"{first['branch']}:app.py") == BOTH
    assert len(states(review_listing(capsys, repo, first["branch"]))) == 2


def test_chat_refuses_bad_input_with_exit_2(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([EDIT, finish()])
    assert task(repo, server, "--quiet") == 0
    agent = store_agent_id(repo)
    capsys.readouterr()
    assert chat(repo, server, agent, "   ") == 2
    assert "give a message" in capsys.readouterr().err
    assert chat(repo, server, "ffffff", "hello") == 2
    assert "no agent 'ffffff'" in capsys.readouterr().err
    assert chat(repo, server, agent, "--approve") == 2
    assert "no plan to approve" in capsys.readouterr().err


# -- mentions ----------------------------------------------------------------------------------


def test_mentions_attach_a_file_and_another_agents_diff(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(
        {
            "first": [EDIT, finish()],
            "second": [EDIT_BYE, finish(), finish("looked")],
        }
    )
    assert task(repo, server, "--json", text="first") == 0
    one = last_summary(capsys.readouterr().out)["agent"]
    assert task(repo, server, "--json", text="second") == 0
    two = last_summary(capsys.readouterr().out)["agent"]
    message = f"compare @app.py with what @{one} did; mail me@example.com about @nothing/here"
    assert chat(repo, server, two, message, "--quiet") == 0
    sent = user_texts(server.requests[-1])[-1]
    assert sent.startswith(message)
    # @app.py: the file as it is in agent two's worktree (its own change, not the base's).
    assert "# @app.py (its current content in your worktree)" in sent
    assert 'return "goodbye " + name' in sent
    # @<agent one>: its branch diff.
    assert f"# @{one}: what agent {one} changed on cursorish/{one} (task: first)" in sent
    assert '+    return "hello " + name' in sent
    assert sent.count("# @") == 2  # no attachment for the address nor the unknown path


# -- plan first --------------------------------------------------------------------------------

PLAN_TEXT = "1. Change greet() in app.py to say hello.\n2. Leave bye() alone."


def test_plan_then_approve_executes_it_with_the_plan_in_context(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(
        [
            {"tool_calls": [call("read_file", path="app.py")]},
            # A write tried during planning is refused, and nothing changes.
            EDIT,
            {"tool_calls": [call("finish", summary="Here is my plan:\n" + PLAN_TEXT)]},
            EDIT,
            finish("did it"),
        ]
    )
    assert task(repo, server, "--plan") == 0
    out = capsys.readouterr().out
    assert "  plan\n    1. Change greet() in app.py to say hello.\n" in out
    agent = store_agent_id(repo)
    assert f"approve   cursorish chat {agent} --approve" in out
    tools = {t["function"]["name"] for t in server.requests[0]["tools"]}
    plan_tools = {t.name for t in REGISTRY.tools() if t.read_only}
    assert {"read_file", "grep", "finish"} <= tools <= plan_tools
    assert "PLAN MODE" in user_texts(server.requests[0])[0]
    assert git(repo, "show", f"cursorish/{agent}:app.py") == APP  # nothing was changed
    with store_of(repo) as store:
        row = store.agent(agent)
        assert row is not None and row["plan"] == PLAN_TEXT and row["state"] == "done"
        refused = [t for t in store.tool_calls(agent) if t["name"] == "edit_file"]
        assert refused and "not available in plan mode" in refused[0]["result"]

    assert chat(repo, server, agent, "--approve", "--json") == 0
    summary = last_summary(capsys.readouterr().out)
    assert summary["status"] == "done" and summary["plan"] is None
    approve_request = server.requests[3]
    assert PLAN_TEXT in user_texts(approve_request)[-1]
    assert "edit_file" in [t["function"]["name"] for t in approve_request["tools"]]
    assert git(repo, "show", f"cursorish/{agent}:app.py") == HELLO


def test_plan_follow_up_revises_the_plan_and_an_edited_plan_is_approved(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(
        [
            {"content": PLAN_TEXT},  # a plan given as text counts too
            {"content": "1. Change bye() only."},
            EDIT_BYE,
            finish(),
        ]
    )
    assert task(repo, server, "--plan", "--json") == 0
    summary = last_summary(capsys.readouterr().out)
    assert summary["plan"] == PLAN_TEXT and summary["exit_code"] == 0
    agent = summary["agent"]
    assert chat(repo, server, agent, "no: change bye() instead", "--json") == 0
    assert last_summary(capsys.readouterr().out)["plan"] == "1. Change bye() only."
    edited = "1. Change bye() to say goodbye."
    assert chat(repo, server, agent, edited, "--approve", "--quiet") == 0
    assert edited in user_texts(server.requests[2])[-1]
    assert git(repo, "show", f"cursorish/{agent}:app.py") == APP.replace('"bye "', '"goodbye "')


def test_plan_is_a_profile_option(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from cursorish.core.trust import trust_repo

    profiles = repo / ".cursorish" / "agents"
    profiles.mkdir(parents=True)
    default = (PACKAGE_ROOT / "agents" / "default.toml").read_text()
    named = default.replace('"default"', '"planner"', 1)
    (profiles / "planner.toml").write_text("plan = true\n" + named)
    git(repo, "add", ".cursorish")
    git(repo, "commit", "-qm", "profile")
    trust_repo(repo)
    server = scripted_server([{"content": PLAN_TEXT}])
    assert task(repo, server, "--profile", "planner", "--json") == 0
    assert last_summary(capsys.readouterr().out)["plan"] == PLAN_TEXT


# -- other processes -------------------------------------------------------------------------


def _start(repo: Path, server: ScriptedServer, text: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    argv = [sys.executable, "-m", "cursorish", "--task", text, "--repo", str(repo)]
    argv += [*planner_args(server), "--quiet"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_state(repo: Path, proc: subprocess.Popen[bytes], want: Callable[[Any, Any], bool]) -> str:
    deadline = time.monotonic() + 60
    with store_of(repo) as store:
        while time.monotonic() < deadline:
            row = store.last_agent()
            if row is not None and want(store, row):
                return str(row["id"])
            if proc.poll() is not None:
                raise AssertionError(f"cursorish exited early: {proc.communicate()[1]!r}")
            time.sleep(0.05)
    raise AssertionError("the agent never got there")


def _planning(_store: Any, row: Any) -> bool:
    return bool(row["state"] == "planning")


def _edited_then_planning(store: Any, row: Any) -> bool:
    edited = any(t["name"] == "edit_file" for t in store.tool_calls(row["id"]))
    return edited and row["state"] == "planning"


def test_message_to_a_running_agent_is_queued_then_delivered_at_its_next_turn(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([{**EDIT, "delay_s": 1.5}, EDIT_BYE, finish("both")], latency_s=0.0)
    proc = _start(repo, server, "say hello")
    try:
        agent = _wait_state(repo, proc, _planning)
        assert chat(repo, None, agent, "and say goodbye in bye()", "--json") == 0
        events = json_lines(capsys.readouterr().out)
        assert [e["event"] for e in events] == ["message_queued", "message_delivered"]
        assert proc.wait(60) == 0
    finally:
        proc.kill()
    # Delivered at the turn after the one that was running: as a user message after the
    # tool result, before the planner's next request.
    roles = [m["role"] for m in server.requests[1]["messages"]]
    assert roles[-2:] == ["tool", "user"]
    assert user_texts(server.requests[1])[-1] == "and say goodbye in bye()"
    assert git(repo, "show", f"cursorish/{agent}:app.py") == BOTH
    with store_of(repo) as store:
        assert store.queued_messages(agent) == []


def test_message_to_an_agent_finishing_meanwhile_continues_it_here(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent calls finish while the message waits: it does not end, it takes the message.
    server = scripted_server([{**finish("done early"), "delay_s": 1.5}, EDIT, finish()])
    proc = _start(repo, server, "say hello")
    try:
        agent = _wait_state(repo, proc, _planning)
        assert chat(repo, None, agent, "you forgot greet()", "--json") == 0
        assert proc.wait(60) == 0
    finally:
        proc.kill()
    assert user_texts(server.requests[1])[-1] == "you forgot greet()"
    assert git(repo, "show", f"cursorish/{agent}:app.py") == HELLO


def test_chat_after_kill_9_and_after_cancel(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = scripted_server([EDIT, {**finish(), "delay_s": 60}])
    proc = _start(repo, slow, "say hello")
    try:
        agent = _wait_state(repo, proc, _edited_then_planning)
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    # Killed: the agent is interrupted (its owner is gone); chat continues it here.
    fast = scripted_server([EDIT, EDIT_BYE, finish()])
    assert chat(repo, fast, agent, "go on, and say goodbye too", "--json") == 0
    summary = last_summary(capsys.readouterr().out)
    assert summary["status"] == "done"
    assert git(repo, "show", f"cursorish/{agent}:app.py") == BOTH

    # Cancelled (SIGINT to its process): chat continues that one too.
    slow2 = scripted_server([{**finish(), "delay_s": 60}])
    proc = _start(repo, slow2, "second")
    try:
        other = _wait_state(repo, proc, _planning)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 130
    finally:
        proc.kill()
    with store_of(repo) as store:
        assert store.agent(other)["state"] == "cancelled"  # type: ignore[index]
    again = scripted_server([EDIT, finish()])
    assert chat(repo, again, other, "do the greeting", "--quiet") == 0
    assert git(repo, "show", f"cursorish/{other}:app.py") == HELLO
