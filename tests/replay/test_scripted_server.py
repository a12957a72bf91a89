"""The scripted OpenAI-compatible server, spoken to with plain HTTP (no litellm)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from cursorish.replay.script import load_script
from cursorish.replay.scripted_server import ScriptedServer
from tests.conftest import ServerFactory

REPO = Path(__file__).resolve().parents[2]


def post(
    server: ScriptedServer, body: dict[str, Any], timeout: float = 5.0
) -> tuple[int, dict[str, str], bytes]:
    url = urllib.parse.urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=timeout)
    try:
        conn.request(
            "POST",
            url.path + "/chat/completions",
            json.dumps(body),
            {"Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def chat(text: str = "fix the bug", assistants: int = 0, **extra: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    for i in range(assistants):
        messages += [{"role": "assistant", "content": f"a{i}"}, {"role": "user", "content": "go"}]
    return {"model": "scripted", "messages": messages, **extra}


def reply_text(server: ScriptedServer, body: dict[str, Any]) -> str:
    status, _, raw = post(server, body)
    assert status == 200
    return str(json.loads(raw)["choices"][0]["message"]["content"])


def sse_events(raw: bytes) -> list[Any]:
    events: list[Any] = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        assert block.startswith("data: "), block
        data = block[len("data: ") :]
        events.append(data if data == "[DONE]" else json.loads(data))
    return events


TURN = {
    "content": "Reading two files now.",
    "tool_calls": [
        {"name": "read_file", "arguments": {"path": "a.py"}},
        {"name": "search", "arguments": '{"query": "broken'},
    ],
    "usage": {"prompt_tokens": 11, "completion_tokens": 7},
}


def test_non_streaming_reply_has_the_openai_shape(scripted_server: ServerFactory) -> None:
    server = scripted_server([TURN])
    status, headers, raw = post(server, chat())
    assert status == 200 and headers["content-type"] == "application/json"
    body = json.loads(raw)
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-") and body["model"] == "scripted"
    assert isinstance(body["created"], int)
    assert body["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["role"] == "assistant" and message["content"] == "Reading two files now."
    calls = message["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file", "search"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "a.py"}
    assert calls[1]["function"]["arguments"] == '{"query": "broken'  # raw string verbatim
    assert all(c["type"] == "function" and c["id"] for c in calls)


def test_streaming_reply_is_openai_sse(scripted_server: ServerFactory) -> None:
    server = scripted_server([TURN])
    status, headers, raw = post(server, chat(stream=True, stream_options={"include_usage": True}))
    assert status == 200 and headers["content-type"] == "text/event-stream"
    events = sse_events(raw)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "scripted" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"

    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    text = [d["content"] for d in deltas if d.get("content")]
    assert len(text) > 1 and "".join(text) == "Reading two files now."

    call_deltas = [tc for d in deltas for tc in d.get("tool_calls", [])]
    heads = [tc for tc in call_deltas if "id" in tc]
    assert [(h["index"], h["function"]["name"]) for h in heads] == [(0, "read_file"), (1, "search")]
    args = {0: "", 1: ""}
    for tc in call_deltas:
        args[tc["index"]] += tc["function"]["arguments"]
    assert json.loads(args[0]) == {"path": "a.py"} and args[1] == '{"query": "broken'
    assert sum(1 for tc in call_deltas if tc["index"] == 0 and "id" not in tc) > 1  # split

    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "tool_calls" and set(finishes[:-1]) == {None}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 18


def test_streaming_pace_sends_text_in_fixed_size_chunks(scripted_server: ServerFactory) -> None:
    text = "abcdefghijklmnopqrstuvw"  # 23 characters: 5 chunks of 5, the last of 3
    server = scripted_server(
        [{"content": text, "stream_chunk_chars": 5, "stream_chunk_delay_s": 0.01}]
    )
    _, _, raw = post(server, chat(stream=True))
    chunks = [e for e in sse_events(raw)[:-1] if e["choices"]]
    pieces = [c["choices"][0]["delta"].get("content") for c in chunks]
    assert [p for p in pieces if p] == ["abcde", "fghij", "klmno", "pqrst", "uvw"]


def test_stream_without_include_usage_has_no_usage_chunk(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"content": "hi"}])
    events = sse_events(post(server, chat(stream=True))[2])
    assert all("usage" not in e for e in events[:-1])


def test_default_usage_is_estimated_when_not_scripted(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"content": "x" * 40}])
    usage = json.loads(post(server, chat())[2])["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] == 10


def test_models_endpoint(scripted_server: ServerFactory) -> None:
    server = scripted_server([])
    url = urllib.parse.urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
    conn.request("GET", "/v1/models")
    resp = conn.getresponse()
    body = json.loads(resp.read())
    conn.close()
    assert resp.status == 200
    assert body["object"] == "list" and body["data"][0]["id"] == "scripted"


def test_error_turn_fails_times_then_serves_payload(scripted_server: ServerFactory) -> None:
    server = scripted_server(
        [
            {
                "error": {"status": 429, "times": 2, "message": "slow", "retry_after": 3},
                "content": "ok",
            }
        ]
    )
    for _ in range(2):
        status, headers, raw = post(server, chat())
        assert status == 429 and headers["retry-after"] == "3"
        assert json.loads(raw)["error"]["message"] == "slow"
    assert reply_text(server, chat()) == "ok"
    assert reply_text(server, chat()) == "ok"


def test_error_counters_are_per_conversation(scripted_server: ServerFactory) -> None:
    err = {"error": {"status": 500, "times": 1}, "content": "ok"}
    server = scripted_server({"one": [err], "two": [err]})
    assert post(server, chat("task one"))[0] == 500
    assert post(server, chat("task two"))[0] == 500
    assert reply_text(server, chat("task one")) == "ok"


def test_error_forever(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"error": {"status": 503, "times": -1}}])
    assert [post(server, chat())[0] for _ in range(4)] == [503] * 4


def test_malformed_body_is_not_json(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"malformed": True}])
    status, _, raw = post(server, chat())
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)


def test_turn_index_is_the_assistant_count(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"content": "zero"}, {"content": "one"}])
    assert reply_text(server, chat(assistants=1)) == "one"
    assert reply_text(server, chat(assistants=0)) == "zero"
    assert reply_text(server, chat(assistants=1)) == "one"
    exhausted = reply_text(server, chat(assistants=2))
    assert "script exhausted" in exhausted and "2 turns" in exhausted


def test_conversation_selection(scripted_server: ServerFactory) -> None:
    server = scripted_server(
        {
            "login": {"match": "fix login", "turns": [{"content": "L"}]},
            "rename foo": [{"content": "R"}],  # the name is the match string
            "default": [{"content": "D"}],
        }
    )
    assert reply_text(server, chat("please fix login now")) == "L"
    assert reply_text(server, chat("rename foo to bar")) == "R"
    assert reply_text(server, chat("something else")) == "D"


def test_unmatched_request_gets_a_message_not_a_crash(scripted_server: ServerFactory) -> None:
    server = scripted_server({"a": [{"content": "A"}], "b": [{"content": "B"}]})
    assert "no conversation matches" in reply_text(server, chat("neither"))


def test_first_user_message_may_be_content_parts(scripted_server: ServerFactory) -> None:
    server = scripted_server({"docs": [{"content": "X"}], "fix login": [{"content": "L"}]})
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "fix login"}]}],
    }
    assert reply_text(server, body) == "L"


def test_requests_are_recorded(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"content": "a"}])
    post(server, chat("first"))
    post(server, chat("second", stream=True))
    assert [r["messages"][0]["content"] for r in server.requests] == ["first", "second"]
    assert server.requests[1]["stream"] is True


def test_latency_is_served_concurrently(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"content": "a"}], latency_s=0.3)
    results: list[int] = []
    lock = threading.Lock()

    def one() -> None:
        status = post(server, chat())[0]
        with lock:
            results.append(status)

    threads = [threading.Thread(target=one) for _ in range(8)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    assert results == [200] * 8
    assert elapsed >= 0.3  # the latency was served
    assert server.max_in_flight >= 2  # ... at the same time, not one request after the other


def test_delay_and_prompt_stop(scripted_server: ServerFactory) -> None:
    server = scripted_server([{"delay_s": 10.0, "content": "late"}])
    with pytest.raises(TimeoutError):
        post(server, chat(), timeout=0.3)
    started = time.monotonic()
    server.stop()  # a handler still sleeping must not hold this up
    assert time.monotonic() - started < 5  # not the 10 s delay


def test_server_is_silent_on_stderr(
    scripted_server: ServerFactory, capfd: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server([{"content": "a"}, {"error": {"status": 500}}])
    post(server, chat())
    post(server, chat(assistants=1))
    server.stop()
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


def test_load_script(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"fix": {"match": "fix it", "turns": [{"content": "a"}]}}))
    script = load_script(path)
    assert [(c.name, c.match, len(c.turns)) for c in script.conversations] == [("fix", "fix it", 1)]
    path.write_text("[{]")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_script(path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="turn 0"):
        load_script(path)


def test_command_line_entry(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"content": "from the CLI"}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "cursorish.replay.scripted_server", str(path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        url = urllib.parse.urlsplit(base_url)
        conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
        conn.request("POST", "/v1/chat/completions", json.dumps(chat()))
        body = json.loads(conn.getresponse().read())
        conn.close()
        assert body["choices"][0]["message"]["content"] == "from the CLI"
    finally:
        proc.terminate()
        proc.wait(timeout=5)
