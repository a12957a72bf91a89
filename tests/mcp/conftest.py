"""Fixtures for the MCP tests: real servers (the reference `mcp-server-time`, the SDK-written
`servers/flaky.py` over stdio and streamable HTTP, the raw `servers/malformed.py`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cursorish.core.tools import ToolContext
from cursorish.mcp.config import ServerSpec, parse_entry

SERVERS = Path(__file__).parent / "servers"
PY = sys.executable
TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")


def spec(name: str, **entry: Any) -> ServerSpec:
    return parse_entry(name, entry, "test", {})


def time_spec(**extra: Any) -> ServerSpec:
    return spec("time", command=TIME_SERVER, **extra)


def flaky_stdio(**extra: Any) -> ServerSpec:
    extra.setdefault("timeout", 3)
    return spec("flaky", command=PY, args=[str(SERVERS / "flaky.py")], **extra)


def malformed_stdio(**extra: Any) -> ServerSpec:
    return spec("bad", command=PY, args=[str(SERVERS / "malformed.py")], timeout=2, **extra)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def flaky_http() -> Iterator[ServerSpec]:
    """flaky.py serving streamable HTTP on a free port of 127.0.0.1."""
    port = free_port()
    yield from _http_server([str(SERVERS / "flaky.py"), "--http", str(port)], port, "flaky")


@pytest.fixture
def malformed_http() -> Iterator[ServerSpec]:
    """malformed_http.py on a free port of 127.0.0.1."""
    port = free_port()
    yield from _http_server([str(SERVERS / "malformed_http.py"), str(port)], port, "bad", 2)


def _http_server(args: list[str], port: int, name: str, timeout: float = 3) -> Iterator[ServerSpec]:
    proc = subprocess.Popen(
        [PY, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None:
                raise AssertionError("the HTTP test server exited") from None
            time.sleep(0.1)
    else:
        proc.kill()
        raise AssertionError("the HTTP test server never listened")
    yield spec(name, type="http", url=f"http://127.0.0.1:{port}/mcp", timeout=timeout)
    proc.kill()
    proc.wait()


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    root = tmp_path / "wt"
    root.mkdir()
    (root / "hello.txt").write_text("hi\n")
    return root


def context(root: Path, **kw: Any) -> ToolContext:
    kw.setdefault("command_policy", "allow")
    return ToolContext(root=root, agent_id="agent-mcp", **kw)
