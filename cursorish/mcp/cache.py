"""The last tool listing of each MCP server, so an agent can offer the tools to the planner
without starting the server; the server starts when one of its tools is first called.

Keyed by the server's fingerprint (its command, arguments, environment, URL: hashed, never
stored in clear), kept under `$CURSORISH_HOME/mcp/`. Every real listing rewrites it; a stale
entry costs at most one call that the server answers with an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from cursorish.mcp.config import ServerSpec
from cursorish.mcp.hub import ToolInfo


def cache_dir() -> Path:
    from cursorish.store.paths import cursorish_home

    return cursorish_home() / "mcp"


def _path(spec: ServerSpec) -> Path:
    return cache_dir() / f"tools-{spec.fingerprint()}.json"


def load(spec: ServerSpec) -> list[ToolInfo] | None:
    """The cached listing, or None (never listed, or unreadable: list again)."""
    try:
        data = json.loads(_path(spec).read_text("utf-8"))
        return [
            ToolInfo(str(t["name"]), str(t.get("description", "")), dict(t["input_schema"]))
            for t in data["tools"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(spec: ServerSpec, tools: list[ToolInfo]) -> None:
    """Write the listing atomically; a failure only costs a listing next time."""
    path = _path(spec)
    doc = {
        "server": spec.name,
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in tools
        ],
    }
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tools-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
