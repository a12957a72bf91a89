"""A local OpenAI-compatible HTTP server that replays a scripted conversation.

Tests and `cursorish demo` point the real planner client (litellm over HTTP) at this
server instead of a provider, so the whole agent loop runs with no network and no keys.

A script is a list of turns, or a mapping of named conversations, each either a list of
turns (the name doubles as the match string) or ``{"match": "...", "turns": [...]}``.
A conversation is chosen by the first whose ``match`` occurs in the request's first user
message; a conversation named ``default`` (or the only one) catches the rest.

The turn served is chosen statelessly: turn index = number of ``assistant`` messages in
the request, so concurrent agents replaying one script, and resumed agents, each get the
right turn. A turn looks like::

    {"content": "text",
     "tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}],   # or a raw string
     "usage": {"prompt_tokens": 10, "completion_tokens": 5},
     "finish_reason": "tool_calls",                                       # optional
     "error": {"status": 429, "times": 2, "message": "...", "retry_after": 0},
     "delay_s": 3.0,                                                      # sleep first
     "stream_chunk_chars": 12, "stream_chunk_delay_s": 0.02,              # streaming pace
     "malformed": true,                                                   # body not JSON
     "cut": {"how": "no_finish", "times": 1}}                             # a broken answer

An ``error`` fails ``times`` requests (default 1; negative = forever) for that
(conversation, turn), then the turn's normal payload is served. A ``cut`` breaks ``times``
answers (counted the same way) while still answering 200: ``no_finish`` streams the turn's
text and tool calls, then ends the body with no finish reason and no ``[DONE]`` (a connection
dropped mid-answer); ``not_sse`` answers a streamed request with a whole ``application/json``
completion instead of an event stream.

Past the end of the
script the server answers with a plain assistant message saying the script is exhausted,
so a misbehaving agent stops instead of looping.

Run by hand: ``python -m cursorish.replay.scripted_server SCRIPT.json [--port N]``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from cursorish.replay.script import Conversation, Script, first_user_text, load_script
from cursorish.replay.wire import error_type, split_text, tool_call, usage_of

DEFAULT_MODEL = "scripted"


class ScriptedServer:
    """Serves a `Script` over an OpenAI-compatible HTTP API on a daemon thread."""

    def __init__(
        self,
        script: Script | list[Any] | dict[str, Any],
        *,
        latency_s: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = DEFAULT_MODEL,
    ) -> None:
        self.script = Script.from_data(script)
        self.latency_s = latency_s
        self.model = model
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._failures: dict[tuple[str, int], int] = {}
        self._in_flight = 0
        self._max_in_flight = 0
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        if self._httpd is not None:
            return
        handler = type("_BoundHandler", (_Handler,), {"server_state": self})
        httpd = _QuietServer((self._host, self._port), handler)
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ScriptedServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every chat-completion request body received so far (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The HTTP headers of each request in `requests` (names lower-cased), in order."""
        with self._lock:
            return [dict(h) for h in self._headers]

    @property
    def max_in_flight(self) -> int:
        """The most chat requests this server was answering at one moment: a client that
        sends requests in parallel shows as more than 1, however slow the machine is."""
        with self._lock:
            return self._max_in_flight

    # -- request handling (called from handler threads) ------------------------------

    @contextlib.contextmanager
    def _answering(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1

    def _record(self, body: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        with self._lock:
            self._requests.append(body)
            self._headers.append({k.lower(): v for k, v in (headers or {}).items()})

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _take_failure(self, conv: Conversation, index: int, times: int, what: str = "") -> bool:
        """True when this request should fail (counts it, per `what` kind of failure)."""
        if times < 0:
            return True
        key = (conv.name + what, index)
        with self._lock:
            done = self._failures.get(key, 0)
            if done >= times:
                return False
            self._failures[key] = done + 1
            return True

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    # Sleeping (delay_s) handler threads must not hold up stop() or interpreter exit.
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a client that hung up mid-reply is expected (timeout tests)."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A stream is many small writes: with Nagle's algorithm each waits for the client's delayed
    # ACK (~40 ms), so a reply "with 200 ms latency" took 250 ms.
    disable_nagle_algorithm = True
    server_state: ScriptedServer  # set on the per-server subclass

    def log_message(self, format: str, *args: Any) -> None:
        """The server is silent: tests and the TUI own stderr."""

    # -- routing ------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            state = self.server_state
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": state.model,
                            "object": "model",
                            "created": 0,
                            "owned_by": "cursorish",
                        }
                    ],
                },
            )
        else:
            self._send_error(404, f"no route for GET {self.path}", "not_found_error")

    def do_POST(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
        except (OSError, ValueError):
            return
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_error(404, f"no route for POST {self.path}", "not_found_error")
            return
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("request body is not a JSON object")
        except ValueError as exc:
            self._send_error(400, f"invalid request body: {exc}", "invalid_request_error")
            return
        # The client may give up (timeout) mid-reply; there is nobody left to tell.
        with (
            contextlib.suppress(BrokenPipeError, ConnectionResetError),
            self.server_state._answering(),
        ):
            self._chat(body)

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server_state
        state._record(body, dict(self.headers.items()))
        messages = body.get("messages") or []
        model = str(body.get("model") or state.model)
        stream = bool(body.get("stream"))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        index = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        first_user = first_user_text(messages)

        conv = state.script.select(first_user)
        turn: Mapping[str, Any]
        if conv is None:
            turn = {
                "content": "[scripted server] no conversation matches the first user message "
                f"({first_user[:80]!r}); script has: "
                + ", ".join(repr(c.match) for c in state.script.conversations)
            }
        elif index >= len(conv.turns):
            turn = {
                "content": f"[scripted server] script exhausted: conversation {conv.name!r} has "
                f"{len(conv.turns)} turns and this is turn {index}. Stop."
            }
        else:
            turn = conv.turns[index]

        state._sleep(state.latency_s + float(turn.get("delay_s") or 0.0))

        error = turn.get("error")
        if (
            conv is not None
            and isinstance(error, dict)
            and state._take_failure(conv, index, int(error.get("times", 1)))
        ):
            status = int(error.get("status", 500))
            headers: dict[str, str] = {}
            if error.get("retry_after") is not None:
                headers["Retry-After"] = str(error["retry_after"])
            text = str(error.get("message") or f"scripted error {status}")
            self._send_error(status, text, error_type(status), headers)
            return

        if turn.get("malformed"):
            if stream:
                self._send_sse_start()
                self._send_chunk(b'data: {"id": "chatcmpl-broken", "choices": [{"delta": \n\n')
                self._send_chunk(b"")
            else:
                payload = b'{"id": "chatcmpl-broken", "choices": [ this is not json'
                self._send_raw(200, payload, "application/json")
            return

        response_id = f"chatcmpl-scripted-{state._next_id()}"
        content = str(turn.get("content") or "")
        tool_calls = [
            tool_call(call, response_id, i) for i, call in enumerate(turn.get("tool_calls") or [])
        ]
        finish = str(turn.get("finish_reason") or ("tool_calls" if tool_calls else "stop"))
        usage = usage_of(turn, messages, content, tool_calls)
        common = {"id": response_id, "created": int(time.time()), "model": model}
        cut = turn.get("cut")
        how = ""
        if (
            conv is not None
            and isinstance(cut, dict)
            and state._take_failure(conv, index, int(cut.get("times", 1)), "\0cut")
        ):
            how = str(cut.get("how") or "no_finish")
        if stream and how != "not_sse":
            self._send_stream(
                common,
                content,
                tool_calls,
                finish,
                usage if include_usage else None,
                chunk_chars=int(turn.get("stream_chunk_chars") or 0),
                chunk_delay_s=float(turn.get("stream_chunk_delay_s") or 0.0),
                cut=how == "no_finish",
            )
        else:
            message: dict[str, Any] = {"role": "assistant", "content": content or None}
            if tool_calls:
                message["tool_calls"] = tool_calls
            self._send_json(
                200,
                {
                    **common,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": None if how == "no_finish" else finish,
                        }
                    ],
                    "usage": usage,
                },
            )

    # -- writing ------------------------------------------------------------------

    def _send_stream(
        self,
        common: dict[str, Any],
        content: str,
        tool_calls: list[dict[str, Any]],
        finish: str,
        usage: dict[str, int] | None,
        *,
        chunk_chars: int = 0,
        chunk_delay_s: float = 0.0,
        cut: bool = False,
    ) -> None:
        """Text goes out in a few pieces, or `chunk_chars` at a time `chunk_delay_s` apart
        (a provider streaming at a given pace, for benchmarks). `cut`: the body ends before
        the finish reason, as when a connection drops mid-answer."""
        base = {**common, "object": "chat.completion.chunk"}

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> None:
            data = {
                **base,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }
            self._send_event(data)

        self._send_sse_start()
        chunk({"role": "assistant", "content": ""})
        if chunk_chars > 0:
            for start in range(0, len(content), chunk_chars):
                if start:
                    self.server_state._sleep(chunk_delay_s)
                chunk({"content": content[start : start + chunk_chars]})
        else:
            for piece in split_text(content):
                chunk({"content": piece})
        for i, call in enumerate(tool_calls):
            fn = call["function"]
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": fn["name"], "arguments": ""},
                        }
                    ]
                }
            )
            for piece in split_text(fn["arguments"]):
                chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        if cut:
            self._send_chunk(b"")
            return
        chunk({}, finish)
        if usage is not None:
            self._send_event({**base, "choices": [], "usage": usage})
        self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")

    def _send_sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_event(self, data: dict[str, Any]) -> None:
        self._send_chunk(b"data: " + json.dumps(data).encode() + b"\n\n")

    def _send_chunk(self, data: bytes) -> None:
        """One HTTP/1.1 chunk; an empty one ends the body."""
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_json(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(data).encode(), "application/json", headers)

    def _send_raw(
        self,
        status: int,
        payload: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _send_error(
        self, status: int, message: str, kind: str, headers: Mapping[str, str] | None = None
    ) -> None:
        body = {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}
        self._send_json(status, body, headers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cursorish.replay.scripted_server",
        description="Serve a scripted conversation over an OpenAI-compatible API.",
    )
    parser.add_argument("script", type=Path, help="script JSON file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per response")
    args = parser.parse_args(argv)
    try:
        script = load_script(args.script)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = ScriptedServer(script, latency_s=args.latency, host=args.host, port=args.port)
    server.start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
