"""One agent's MCP connections, kept on a private event loop thread behind a blocking API.

The SDK is asynchronous (anyio) and its connections must be entered and left by the same task,
while an agent's tools run in worker threads. So each hub owns a thread with its own asyncio
loop; every connection is one long-lived task there that opens the transport and the session,
then waits to be told to stop. Tool threads submit coroutines to that loop and wait with a
timeout. A server is started on first use; one that crashed is started again on the next use.

The thread also owns the servers' processes: the sandbox's `--die-with-parent` ties them to it,
and it lives until the hub is closed (the agent ended) or cursorish exits.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import tempfile
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from cursorish.mcp.config import ServerSpec

T = TypeVar("T")
# (argv, env) -> (argv, env): how a stdio server's command is wrapped (the agent's sandbox).
Wrap = Callable[[list[str], dict[str, str]], tuple[list[str], dict[str, str]]]
STDERR_TAIL = 2000
CLOSE_WAIT_S = 8.0
CANCEL_POLL_S = 0.1


class McpFailure(Exception):
    """A server could not be started, crashed, timed out or answered nonsense; `message` says
    which, for the planner."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class CallOutcome:
    """A tools/call result reduced to what cursorish shows: text blocks and the error flag."""

    parts: tuple[str, ...]
    is_error: bool


@dataclass
class _Conn:
    spec: ServerSpec
    ready: asyncio.Future[Any]  # the SDK Client once the handshake is done
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    errlog: IO[str] | None = None
    garbage: str = ""  # the last thing the server sent that was not JSON-RPC

    @property
    def alive(self) -> bool:
        return self.task is not None and not self.task.done() and not self.stop.is_set()


_live: weakref.WeakSet[McpHub] = weakref.WeakSet()
# The SDK logs a server's bad messages with tracebacks on stderr, which would tear the app's
# screen; the hub reports them in the tool error instead.
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False


class McpHub:
    """The MCP servers of one agent (or one CLI command)."""

    def __init__(
        self, *, cwd: Path, wrap: Wrap | None = None, cancel: threading.Event | None = None
    ) -> None:
        self.cwd = cwd
        self.wrap = wrap
        self.cancel = cancel  # the agent's: a call waiting on a server gives up when it is set
        self._conns: dict[str, _Conn] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- the loop thread -------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise McpFailure("the agent's MCP servers are already stopped")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()
                    loop.close()

                # A daemon: an agent that never closed its hub must not keep cursorish alive;
                # the atexit hook still stops the servers in order.
                self._thread = threading.Thread(target=run, name="cursorish-mcp", daemon=True)
                self._thread.start()
                started.wait()
                self._loop = loop
                _live.add(self)
            return self._loop

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        deadline = time.monotonic() + timeout
        while True:
            try:
                return future.result(min(CANCEL_POLL_S, max(0.0, deadline - time.monotonic())))
            except TimeoutError:
                if self.cancel is not None and self.cancel.is_set():
                    future.cancel()
                    raise McpFailure("cancelled while waiting for the MCP server") from None
                if time.monotonic() >= deadline:
                    future.cancel()
                    raise McpFailure(f"no answer within {timeout:.0f}s") from None

    # -- public API (blocking; call from any thread but the hub's) ---------------------------

    def list_tools(self, spec: ServerSpec) -> list[ToolInfo]:
        """The server's tools (starting it if needed)."""
        return self._submit(self._list(spec), spec.start_timeout_s + spec.call_timeout_s + 5)

    def call_tool(self, spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        return self._submit(
            self._call(spec, tool, arguments), spec.start_timeout_s + spec.call_timeout_s + 5
        )

    def close(self, wait: float = 0.0) -> None:
        """Stop every server and the loop; wait up to `wait` seconds for them to be gone."""
        with self._lock:
            first = not self._closed
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if first:
            with contextlib.suppress(RuntimeError):  # the loop is already gone
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
        if wait > 0:  # also for a hub closed earlier without waiting (cursorish exiting)
            thread.join(wait)

    # -- inside the loop ---------------------------------------------------------------------

    async def _client(self, spec: ServerSpec) -> Any:
        conn = self._conns.get(spec.name)
        if conn is None or not conn.alive:
            if conn is not None:
                await self._stop(conn)
            conn = _Conn(spec, asyncio.get_running_loop().create_future())
            self._conns[spec.name] = conn
            conn.task = asyncio.create_task(self._serve(conn))
        try:
            return await asyncio.wait_for(asyncio.shield(conn.ready), spec.start_timeout_s)
        except TimeoutError:
            tail = _tail(conn)
            await self._stop(conn)
            raise McpFailure(
                f"the MCP server {spec.name!r} did not start within {spec.start_timeout_s:.0f}s"
                + tail
            ) from None

    async def _serve(self, conn: _Conn) -> None:
        """Open the connection, publish the client, hold it open until told to stop."""
        from mcp import Client

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                conn.garbage = _why(message)

        spec = conn.spec
        try:
            client = Client(
                self._transport(conn),
                read_timeout_seconds=spec.call_timeout_s,
                message_handler=on_message,
            )
            async with client as c:
                conn.ready.set_result(c)
                await conn.stop.wait()
        except BaseException as exc:
            if not conn.ready.done():
                conn.ready.set_exception(
                    McpFailure(
                        f"the MCP server {spec.name!r} could not start: {_why(exc)}" + _tail(conn)
                    )
                )
                conn.ready.exception()  # retrieved: asyncio must not log it as forgotten
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            conn.stop.set()
            if conn.errlog is not None:
                with contextlib.suppress(OSError):
                    conn.errlog.close()

    def _transport(self, conn: _Conn) -> Any:
        spec = conn.spec
        if spec.transport == "http":
            return _http_transport(spec.url, dict(spec.headers))
        from mcp.client.stdio import StdioServerParameters, stdio_client

        argv = [spec.command, *spec.args]
        env: dict[str, str] = {}
        if self.wrap is not None:
            argv, env = self.wrap(argv, env)
        env.update(spec.env)  # the user's explicit values, after the sandbox's scrubbing
        cwd = (self.cwd / spec.cwd) if spec.cwd else self.cwd
        # The server's stderr goes to a file: on cursorish's terminal it would tear the app's
        # screen, and its tail explains a crash.
        conn.errlog = tempfile.TemporaryFile(  # noqa: SIM115 - closed when the connection ends
            "w+", encoding="utf-8", errors="replace"
        )
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
        return stdio_client(params, errlog=conn.errlog)

    async def _list(self, spec: ServerSpec) -> list[ToolInfo]:
        client = await self._client(spec)
        out: list[ToolInfo] = []
        cursor: str | None = None
        for _ in range(100):  # pages; a server that pages forever is cut off
            result = await self._guard(spec, client.list_tools(cursor=cursor), "list its tools")
            for tool in result.tools:
                schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
                out.append(ToolInfo(tool.name, tool.description or "", dict(schema)))
            cursor = getattr(result, "next_cursor", None)
            if not cursor:
                break
        return out

    async def _call(self, spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        client = await self._client(spec)
        result = await self._guard(
            spec,
            client.call_tool(tool, arguments, read_timeout_seconds=spec.call_timeout_s),
            f"run {tool}",
        )
        return CallOutcome(tuple(render_block(b) for b in result.content), bool(result.is_error))

    async def _guard(self, spec: ServerSpec, work: Coroutine[Any, Any, T], what: str) -> T:
        """Await a request; a timeout, a lost connection or a malformed answer becomes an
        McpFailure (a lost connection also drops the server so the next use restarts it)."""
        from mcp.shared.exceptions import MCPError

        conn = self._conns.get(spec.name)
        if conn is not None:
            conn.garbage = ""
        try:
            return await asyncio.wait_for(work, spec.call_timeout_s + 2)
        except TimeoutError:
            raise McpFailure(
                f"the MCP server {spec.name!r} did not {what} within {spec.call_timeout_s:.0f}s"
                + _garbage(conn)
            ) from None
        except MCPError as exc:
            from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

            if exc.code == REQUEST_TIMEOUT:
                raise McpFailure(
                    f"the MCP server {spec.name!r} did not {what} within "
                    f"{spec.call_timeout_s:.0f}s" + _garbage(conn)
                ) from None
            if exc.code == CONNECTION_CLOSED:
                tail = _tail(conn)
                if conn is not None:
                    await self._stop(conn)
                raise McpFailure(
                    f"the MCP server {spec.name!r} exited while asked to {what} (it will be "
                    "started again on the next call)" + tail
                ) from None
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise McpFailure(f"the MCP server {spec.name!r} failed to {what}: {first}") from None
        except (RuntimeError, ValueError, TypeError) as exc:
            # pydantic's ValidationError is a ValueError: the answer did not fit the protocol.
            raise McpFailure(
                f"the MCP server {spec.name!r} gave a malformed answer when asked to {what}: "
                f"{_why(exc)}"
            ) from None

    async def _stop(self, conn: _Conn) -> None:
        conn.stop.set()
        if conn.task is not None and not conn.task.done():
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(conn.task), CLOSE_WAIT_S)
        if conn.task is not None and not conn.task.done():
            conn.task.cancel()

    async def _shutdown(self) -> None:
        conns = list(self._conns.values())
        await asyncio.gather(*(self._stop(c) for c in conns), return_exceptions=True)
        asyncio.get_running_loop().stop()


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """Streamable HTTP with the entry's headers, on an HTTP client closed with it."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=headers or None) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


def render_block(block: Any) -> str:
    """One content block of a result as text for the planner."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        data = str(getattr(block, "data", ""))
        mime = getattr(block, "mime_type", "") or "?"
        return f"[{kind} {mime}, {len(data) * 3 // 4} bytes, not shown]"
    if kind == "resource":
        res = getattr(block, "resource", None)
        text = getattr(res, "text", None)
        uri = getattr(res, "uri", "")
        return f"[resource {uri}]\n{text}" if isinstance(text, str) else f"[resource {uri}]"
    if kind == "resource_link":
        return f"[resource link {getattr(block, 'uri', '')}]"
    return f"[{kind or 'unknown'} content]"


def _why(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _why(exc.exceptions[0])
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _garbage(conn: _Conn | None) -> str:
    if conn is None or not conn.garbage:
        return ""
    return f"; it sent a message that is not valid JSON-RPC ({conn.garbage})"


def _tail(conn: _Conn | None) -> str:
    """The end of a stdio server's stderr, to explain a failed start or a crash."""
    log = conn.errlog if conn is not None else None
    if log is None or log.closed:
        return ""
    try:
        log.flush()
        log.seek(0)
        text = log.read()[-STDERR_TAIL:].strip()
    except (OSError, ValueError):
        return ""
    return f"; its stderr ends:\n{text}" if text else ""


@atexit.register
def _close_all() -> None:
    for hub in list(_live):
        hub.close(wait=CLOSE_WAIT_S)
