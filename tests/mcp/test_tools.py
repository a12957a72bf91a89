"""MCP tools through the ToolBox, against real servers: names, approval, the listing cache,
and each failure case (slow, crashing, malformed, huge, a failing tool) as a tool error, over
stdio (in the agent's sandbox) and streamable HTTP."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from cursorish.core.tools import ToolBox
from cursorish.mcp import cache
from cursorish.mcp.config import ServerSpec
from cursorish.mcp.tools import OUTPUT_CAP, McpTools, exposed_name

from .conftest import context, flaky_stdio, malformed_stdio, spec, time_spec


def toolbox(root: Path, *servers: ServerSpec, **kw: object) -> tuple[ToolBox, McpTools]:
    allow = kw.pop("allow", ("*",))
    deny = kw.pop("deny", ())
    ctx = context(root, **kw)
    tools = McpTools(list(servers), ctx, allow=allow, deny=deny)  # type: ignore[arg-type]
    box = ToolBox(ctx, ("read_file", "finish"), (tools,))
    if box.needs_prepare():
        box.prepare()
    return box, tools


def call(box: ToolBox, name: str, **args: object) -> tuple[bool, str]:
    result = box.call(name, json.dumps(args))
    return result.ok, result.text


def test_reference_time_server_in_the_sandbox(worktree: Path) -> None:
    box, _ = toolbox(worktree, time_spec())
    try:
        names = [s["function"]["name"] for s in box.schemas()]
        assert names[:2] == ["read_file", "finish"]
        assert {"time__get_current_time", "time__convert_time"} <= set(names)
        schema = next(s for s in box.schemas() if s["function"]["name"] == "time__convert_time")
        assert "source_timezone" in schema["function"]["parameters"]["properties"]
        ok, text = call(box, "time__get_current_time", timezone="Europe/Paris")
        assert ok, text
        assert json.loads(text)["timezone"] == "Europe/Paris"
        ok, text = call(box, "time__get_current_time", timezone="Not/AZone")
        assert not ok and "error from the MCP tool time__get_current_time" in text
    finally:
        box.close()


def test_listing_is_cached_and_the_server_starts_on_first_call(worktree: Path) -> None:
    first, _ = toolbox(worktree, time_spec())
    first.close()
    assert cache.load(time_spec()) is not None
    box, tools = toolbox(worktree, time_spec())
    try:
        assert not tools.hubs, "the cached listing is enough for the planner's first request"
        assert any(s["function"]["name"] == "time__get_current_time" for s in box.schemas())
        ok, text = call(box, "time__get_current_time", timezone="UTC")
        assert ok and '"UTC"' in text and set(tools.hubs) == {"time"}
    finally:
        box.close()


def test_profile_allow_and_deny(worktree: Path) -> None:
    box, tools = toolbox(worktree, time_spec(), allow=("time__*",), deny=("*convert*",))
    try:
        assert list(tools.offered) == ["time__get_current_time"]
        ok, text = call(
            box, "time__convert_time", source_timezone="UTC", time="10:00", target_timezone="UTC"
        )
        assert not ok and "unknown tool 'time__convert_time'" in text
    finally:
        box.close()
    _, none = toolbox(worktree, time_spec(), allow=("other__*",))
    assert none.servers == [] and none.offered == {}


@pytest.mark.parametrize(
    ("policy", "extra", "allowed"),
    [
        ("deny", {}, False),
        ("allowlist", {}, False),
        ("allowlist", {"autoApprove": ["get_current_time"]}, True),
        ("allowlist", {"allowlist": ("mcp:time__*",)}, True),
        ("allow", {}, True),
    ],
)
def test_approval_follows_the_command_policy(
    worktree: Path, policy: str, extra: dict[str, object], allowed: bool
) -> None:
    allowlist: tuple[str, ...] = tuple(extra.pop("allowlist", ()))  # type: ignore[arg-type]
    box, _ = toolbox(
        worktree, time_spec(**extra), command_policy=policy, command_allowlist=allowlist
    )
    try:
        ok, text = call(box, "time__get_current_time", timezone="UTC")
        assert ok == allowed, text
        if policy == "allowlist" and not allowed:
            assert "not approved for headless runs" in text and "autoApprove" in text
        if policy == "deny":
            assert "disabled by policy" in text
    finally:
        box.close()


def test_ask_shows_the_tool_and_its_arguments(worktree: Path) -> None:
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        return len(asked) == 1

    box, _ = toolbox(worktree, time_spec(), command_policy="ask", ask=ask)
    try:
        assert call(box, "time__get_current_time", timezone="UTC")[0]
        ok, text = call(box, "time__get_current_time", timezone="Asia/Tokyo")
        assert not ok and text == "the user did not allow this MCP tool call"
        assert asked == [
            'MCP time__get_current_time {"timezone": "UTC"}',
            'MCP time__get_current_time {"timezone": "Asia/Tokyo"}',
        ]
    finally:
        box.close()


@pytest.fixture(params=["stdio", "http"])
def flaky(request: pytest.FixtureRequest) -> ServerSpec:
    if request.param == "http":
        result: ServerSpec = request.getfixturevalue("flaky_http")
        return result
    return flaky_stdio()


def test_failures_are_tool_errors(worktree: Path, flaky: ServerSpec) -> None:
    box, _ = toolbox(worktree, flaky)
    try:
        assert call(box, "flaky__echo", text="hello") == (True, "hello")
        ok, text = call(box, "flaky__slow", seconds=30)
        assert not ok and "did not run slow within 3s" in text
        ok, text = call(box, "flaky__fail", reason="disk on fire")
        assert not ok and text.startswith("error from the MCP tool flaky__fail: ")
        ok, text = call(box, "flaky__huge", size=200_000)
        assert ok and "MCP output truncated: 200000 characters in all" in text
        assert len(text) < OUTPUT_CAP + 200
        ok, text = call(box, "flaky__echo", text=5)
        assert not ok and "validation error" in text
        # Still usable after all that.
        assert call(box, "flaky__echo", text="still here") == (True, "still here")
    finally:
        box.close()


def test_a_crash_is_a_tool_error_and_the_server_restarts(worktree: Path) -> None:
    box, _ = toolbox(worktree, flaky_stdio())
    try:
        ok, text = call(box, "flaky__crash")
        assert not ok and "exited while asked to run crash" in text
        assert "crashing on purpose" in text  # the tail of its stderr
        assert call(box, "flaky__echo", text="back") == (True, "back")
    finally:
        box.close()


def test_a_crashed_http_server_is_a_tool_error(worktree: Path, flaky_http: ServerSpec) -> None:
    box, _ = toolbox(worktree, flaky_http)
    try:
        ok, text = call(box, "flaky__crash")
        assert not ok and "flaky" in text
        ok, text = call(box, "flaky__echo", text="gone")
        assert not ok and text.startswith("error:")
    finally:
        box.close()


@pytest.fixture(params=["stdio", "http"])
def malformed(request: pytest.FixtureRequest) -> ServerSpec:
    if request.param == "http":
        result: ServerSpec = request.getfixturevalue("malformed_http")
        return result
    return malformed_stdio()


def test_malformed_answers_are_tool_errors(worktree: Path, malformed: ServerSpec) -> None:
    box, _ = toolbox(worktree, malformed)
    try:
        ok, text = call(box, "bad__bad_content")
        assert not ok and "gave a malformed answer when asked to run bad_content" in text
        ok, text = call(box, "bad__not_json")
        # stdio: the line is not JSON-RPC, the call times out saying so; HTTP: the answer is
        # refused at once.
        assert not ok and ("not valid JSON-RPC" in text or "Failed to parse JSON" in text)
        assert "\n" not in text
        ok, text = call(box, "bad__no_result")
        assert not ok and text.startswith("error: the MCP server 'bad'")
    finally:
        box.close()


def test_a_server_that_cannot_start_offers_nothing(worktree: Path) -> None:
    from cursorish.core.events import Event

    events: list[Event] = []
    broken = spec("broken", command="/nonexistent/server", start_timeout_s=5)
    box, tools = toolbox(worktree, broken, time_spec(), emit=events.append)
    try:
        assert "broken" in tools.unavailable and "could not start" in tools.unavailable["broken"]
        kinds = {(e.kind, e.data["server"]) for e in events}
        assert kinds == {("mcp_unavailable", "broken"), ("mcp_listed", "time")}
        assert all(not n.startswith("broken__") for n in tools.offered)
        assert "time__get_current_time" in tools.offered
    finally:
        box.close()


def test_stdio_servers_run_in_the_sandbox(
    worktree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "secret.txt").write_text("x")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-servers")
    box, _ = toolbox(worktree, flaky_stdio(env={"MINE": "given"}), repo_root=checkout)
    try:
        ok, text = call(box, "flaky__where", probe=str(checkout / "secret.txt"))
        assert ok, text
        # In the worktree; the user's checkout hidden; keys scrubbed; its own env kept.
        assert text == f"cwd={worktree} probe_visible=False api_key=unset mine=given"
    finally:
        box.close()


def test_long_and_odd_tool_names_are_valid_function_names() -> None:
    s = time_spec()
    assert exposed_name(s, "get.current time") == "time__get_current_time"
    long = exposed_name(s, "x" * 100)
    assert len(long) == 64 and long.startswith("time__xxx")


def test_a_cancel_ends_a_call_waiting_on_a_slow_server(worktree: Path) -> None:
    import threading
    import time

    box, _ = toolbox(worktree, flaky_stdio(timeout=60))
    try:
        assert call(box, "flaky__echo", text="up")[0]
        threading.Timer(0.5, box.ctx.cancel.set).start()
        started = time.monotonic()
        ok, text = call(box, "flaky__slow", seconds=50)
        assert not ok and "cancelled while waiting for the MCP server" in text
        assert time.monotonic() - started < 20  # not the call's 50 s
    finally:
        box.close()


def test_http_headers_reach_the_server(worktree: Path, flaky_http: ServerSpec) -> None:
    with_headers = dataclasses.replace(flaky_http, headers={"X-Team-Token": "t-123"})
    box, _ = toolbox(worktree, with_headers)
    try:
        assert call(box, "flaky__header", header_name="X-Team-Token") == (True, "t-123")
    finally:
        box.close()
