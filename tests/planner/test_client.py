"""The planner client: real litellm calls over HTTP to the local scripted server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cursorish.errors import ExitCode
from cursorish.planner.client import (
    Planner,
    PlannerAuthError,
    PlannerBadResponseError,
    PlannerError,
    PlannerRateLimitError,
    PlannerReply,
    PlannerSettings,
    PlannerTimeoutError,
    PlannerUnavailableError,
    ToolCall,
    key_variable,
)
from tests.conftest import ServerFactory
from tests.planner.conftest import PlannerFactory

# litellm trips pydantic deprecation warnings on every response; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm")

REPO = Path(__file__).resolve().parents[2]

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for name in ("read_file", "search")
]


def user(text: str = "please fix the bug") -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are a planner."}, {"role": "user", "content": text}]


def run(planner: Planner, messages: list[dict[str, Any]], **kwargs: Any) -> PlannerReply:
    return asyncio.run(planner.complete(messages, TOOLS, **kwargs))


TWO_CALLS = {
    "content": "Let me look at both files first.",
    "tool_calls": [
        {"name": "read_file", "arguments": {"path": "src/app.py"}},
        {"name": "search", "arguments": {"path": "tests", "query": "def test_login"}},
    ],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30},
}


def test_streaming_text_reaches_on_text_in_pieces(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"content": "Hello from the scripted planner."}])
    pieces: list[str] = []
    reply = run(make_planner(server), user(), on_text=pieces.append)
    assert reply.content == "Hello from the scripted planner."
    assert len(pieces) > 1
    assert "".join(pieces) == reply.content
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"
    assert reply.retries == 0
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("stream", [True, False])
def test_several_tool_calls_in_one_turn(
    stream: bool, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([TWO_CALLS])
    reply = run(make_planner(server, stream=stream), user())
    assert reply.content == "Let me look at both files first."
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("read_file", {"path": "src/app.py"}),
        ("search", {"path": "tests", "query": "def test_login"}),
    ]
    assert len({c.id for c in reply.tool_calls}) == 2
    assert all(c.id for c in reply.tool_calls)
    assert reply.finish_reason == "tool_calls"
    assert server.requests[0].get("stream", False) is stream
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["read_file", "search"]


@pytest.mark.parametrize("stream", [True, False])
def test_usage_is_counted_and_unknown_model_costs_nothing(
    stream: bool, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([TWO_CALLS])
    reply = run(make_planner(server, stream=stream), user())
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 30)
    assert reply.usage.cost_usd == 0.0
    assert reply.model == "scripted"


@pytest.mark.parametrize("stream", [True, False])
def test_cost_uses_litellm_prices_for_a_known_model(
    stream: bool, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        [{"content": "ok", "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000}}]
    )
    reply = run(make_planner(server, model="openai/gpt-4o", stream=stream), user())
    from cursorish.planner.litellm_loader import load_litellm

    prompt_cost, completion_cost = load_litellm().cost_per_token(
        model="gpt-4o", prompt_tokens=1_000_000, completion_tokens=1_000_000
    )
    assert prompt_cost + completion_cost > 0
    assert reply.usage.cost_usd == pytest.approx(prompt_cost + completion_cost)
    assert server.requests[0]["model"] == "gpt-4o"


def test_bare_model_at_api_base_is_sent_verbatim_with_a_dummy_key(
    scripted_server: ServerFactory, make_planner: PlannerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = scripted_server([{"content": "ok"}])
    planner = make_planner(server, model="Qwen/Qwen2.5-Coder-7B")
    run(planner, user())
    assert planner.model == "openai/Qwen/Qwen2.5-Coder-7B"
    assert server.requests[0]["model"] == "Qwen/Qwen2.5-Coder-7B"


def test_malformed_tool_arguments_pass_through_as_raw_text(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    raw = '{"path": "a.py", "content": "unterminated'
    server = scripted_server([{"tool_calls": [{"name": "read_file", "arguments": raw}]}])
    for stream in (True, False):
        reply = run(make_planner(server, stream=stream), user())
        assert reply.tool_calls[0] == ToolCall(reply.tool_calls[0].id, "read_file", raw)


@pytest.mark.parametrize("status", [429, 500])
def test_transient_error_then_success_is_retried(
    status: int, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        [{"error": {"status": status, "times": 2, "retry_after": 0}, "content": "finally"}]
    )
    reply = run(make_planner(server), user())
    assert reply.content == "finally"
    assert reply.retries == 2
    assert len(server.requests) == 3


def test_rate_limit_forever_gives_up_after_max_retries(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"error": {"status": 429, "times": -1, "message": "slow down"}}])
    with pytest.raises(PlannerRateLimitError) as info:
        run(make_planner(server, max_retries=2), user())
    assert len(server.requests) == 3  # one try + two retries; nobody underneath retries too
    err = info.value
    assert err.exit_code == ExitCode.PLANNER_FAILED
    assert err.retries == 2
    assert "HTTP 429" in err.message and "slow down" in err.message and "scripted" in err.message


def test_retry_after_header_sets_the_wait(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        [{"error": {"status": 429, "times": 1, "retry_after": 0.6}, "content": "ok"}]
    )
    started = time.monotonic()
    reply = run(make_planner(server), user())  # backoff alone would wait ≤ 0.05 s
    assert reply.retries == 1
    assert time.monotonic() - started >= 0.6


def test_auth_failure_is_immediate_and_names_the_key_variable(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        [{"error": {"status": 401, "times": -1, "message": "invalid api key"}}]
    )
    with pytest.raises(PlannerAuthError) as info:
        run(make_planner(server, model="openai/gpt-4o", max_retries=3), user())
    assert len(server.requests) == 1
    assert info.value.status == 401
    assert info.value.retries == 0
    assert "OPENAI_API_KEY" in info.value.message
    assert "invalid api key" in info.value.message


def test_missing_provider_key_is_an_auth_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for var in list(os.environ):
        if var.startswith("ANTHROPIC_"):
            monkeypatch.delenv(var)
    # A dead local api_base: whatever litellm does, nothing leaves this machine.
    planner = Planner(
        PlannerSettings(
            model="anthropic/claude-sonnet-4-5", api_base="http://127.0.0.1:9", max_retries=3
        )
    )
    with pytest.raises(PlannerAuthError) as info:
        run(planner, user())
    assert info.value.retries == 0
    assert "ANTHROPIC_API_KEY" in info.value.message


def test_key_variable_names_the_provider_variable() -> None:
    assert key_variable("anthropic") == "ANTHROPIC_API_KEY"
    assert key_variable("openai") == "OPENAI_API_KEY"
    assert key_variable("groq", "groq/llama-3.1-8b-instant") == "GROQ_API_KEY"


def test_timeout_is_retried_then_reported(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"delay_s": 30.0, "content": "too late"}])
    started = time.monotonic()
    with pytest.raises(PlannerTimeoutError) as info:
        run(make_planner(server, timeout_s=0.3, max_retries=1), user())
    assert time.monotonic() - started < 15  # two 0.3 s timeouts, not the 30 s answer
    assert len(server.requests) == 2
    assert "timed out" in info.value.message


def test_malformed_body_is_a_bad_response_not_retried(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"malformed": True}])
    for stream in (True, False):
        with pytest.raises(PlannerBadResponseError) as info:
            run(make_planner(server, stream=stream), user())
        assert "malformed" in info.value.message
    assert len(server.requests) == 2


def test_unreachable_endpoint_is_unavailable(
    make_planner: PlannerFactory, scripted_server: ServerFactory
) -> None:
    server = scripted_server([])
    port = server.port
    server.stop()
    planner = Planner(
        PlannerSettings(
            model="scripted",
            api_base=f"http://127.0.0.1:{port}/v1",
            max_retries=1,
            backoff_base_s=0.01,
            backoff_max_s=0.01,
        )
    )
    with pytest.raises(PlannerUnavailableError) as info:
        run(planner, user())
    assert "could not connect" in info.value.message
    assert f"127.0.0.1:{port}" in info.value.message


def test_concurrent_requests_are_served_in_parallel(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"content": "done"}], latency_s=0.3)
    planner = make_planner(server)

    async def many() -> list[PlannerReply]:
        return await asyncio.gather(*(planner.complete(user(f"task {i}"), TOOLS) for i in range(8)))

    asyncio.run(planner.complete(user(), TOOLS))  # warm-up: litellm's first-call set-up
    replies = asyncio.run(many())
    assert [r.content for r in replies] == ["done"] * 8
    # Counted by the server, not timed: requests sent one after the other never overlap.
    assert server.max_in_flight >= 2, "the 8 requests reached the server one at a time"


def test_conversation_is_selected_by_match(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        {
            "login": {"match": "fix login", "turns": [{"content": "login plan"}]},
            "docs": {"match": "write docs", "turns": [{"content": "docs plan"}]},
        }
    )
    planner = make_planner(server)
    assert run(planner, user("please write docs for x")).content == "docs plan"
    assert run(planner, user("fix login on mobile")).content == "login plan"


def test_turn_comes_from_the_assistant_count(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server(
        [{"content": "turn zero"}, {"content": "turn one"}, {"content": "turn two"}]
    )
    planner = make_planner(server)
    history = [
        *user(),
        {"role": "assistant", "content": "turn zero"},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "turn one"},
        {"role": "user", "content": "go on"},
    ]
    assert run(planner, history).content == "turn two"  # a resumed agent
    assert run(planner, user()).content == "turn zero"  # a fresh one, after it
    assert (
        "script exhausted"
        in run(planner, [*history, {"role": "assistant", "content": "x"}]).content
    )


def test_tool_call_turn_round_trip(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    """The assistant tool-call message and tool results go back through litellm unchanged."""
    server = scripted_server([TWO_CALLS, {"content": "all done"}])
    planner = make_planner(server)
    first = run(planner, user())
    history = [
        *user(),
        {
            "role": "assistant",
            "content": first.content,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in first.tool_calls
            ],
        },
        *({"role": "tool", "tool_call_id": c.id, "content": "file text"} for c in first.tool_calls),
    ]
    assert run(planner, history).content == "all done"
    sent = server.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]


def test_planner_error_is_a_cursorish_error_with_the_planner_exit_code() -> None:
    err = PlannerTimeoutError("x")
    assert isinstance(err, PlannerError)
    assert err.exit_code == ExitCode.PLANNER_FAILED


def test_importing_the_client_does_not_import_litellm() -> None:
    code = (
        "import sys, cursorish.planner.client, cursorish.replay.scripted_server;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'openai')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_local_endpoint_bypasses_a_configured_proxy(
    scripted_server: ServerFactory, make_planner: PlannerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    dead_proxy = "http://127.0.0.1:9"  # nothing listens there: going through it would fail
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(var, dead_proxy)
    server = scripted_server([{"content": "direct"}])
    for stream in (True, False):
        assert run(make_planner(server, stream=stream, max_retries=0), user()).content == "direct"
    assert "127.0.0.1" in os.environ["NO_PROXY"].split(",")


def test_non_streaming_text_reaches_on_text_once(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"content": "whole answer"}])
    pieces: list[str] = []
    run(make_planner(server, stream=False), user(), on_text=pieces.append)
    assert pieces == ["whole answer"]


def test_a_failing_on_text_callback_is_raised_as_is_and_not_retried(
    scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{"content": "some text"}])

    def broken(_: str) -> None:
        raise KeyError("ui bug")

    with pytest.raises(KeyError, match="ui bug"):
        run(make_planner(server), user(), on_text=broken)
    assert len(server.requests) == 1


QUIET_SCRIPT = """
import asyncio
from cursorish.planner.client import Planner, PlannerError, PlannerSettings
from cursorish.replay.scripted_server import ScriptedServer

turns = [
    {"error": {"status": 500, "times": 1}, "content": "ok"},
    {"malformed": True},
    {"error": {"status": 401, "times": -1}},
    {"delay_s": 2.0},
]

async def main(url):
    for n in range(len(turns)):
        history = [{"role": "user", "content": "x"}]
        history += [{"role": "assistant", "content": "a"}, {"role": "user", "content": "y"}] * n
        for stream in (True, False):
            settings = PlannerSettings(model="scripted", api_base=url, max_retries=1,
                                       backoff_base_s=0.01, timeout_s=0.2, stream=stream)
            try:
                await Planner(settings).complete(history, [])
            except PlannerError:
                pass

with ScriptedServer(turns) as server:
    asyncio.run(main(server.base_url))
print("done")
"""


def test_litellm_prints_nothing_on_failures() -> None:
    out = subprocess.run(
        [sys.executable, "-c", QUIET_SCRIPT],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout == "done\n"
    assert out.stderr == ""


@pytest.mark.parametrize("how", ["no_finish", "not_sse"])
def test_an_answer_cut_before_its_finish_reason_is_retried(
    how: str, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{**TWO_CALLS, "cut": {"how": how, "times": 2}}])
    seen: list[str] = []
    reply = run(make_planner(server), user(), on_text=seen.append)
    assert reply.retries == 2 and len(server.requests) == 3
    assert reply.content == TWO_CALLS["content"] and len(reply.tool_calls) == 2
    assert reply.finish_reason == "tool_calls"


@pytest.mark.parametrize("how", ["no_finish", "not_sse"])
def test_an_answer_always_cut_is_a_planner_error_never_a_shorter_reply(
    how: str, scripted_server: ServerFactory, make_planner: PlannerFactory
) -> None:
    server = scripted_server([{**TWO_CALLS, "cut": {"how": how, "times": -1}}])
    with pytest.raises(PlannerBadResponseError) as info:
        run(make_planner(server, max_retries=2), user())
    assert len(server.requests) == 3
    assert info.value.exit_code == ExitCode.PLANNER_FAILED and info.value.retries == 2
    assert "ended without a finish reason" in info.value.message
