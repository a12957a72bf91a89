"""An MCP server for the failure cases, written with the SDK's MCPServer (FastMCP in SDK 1).

stdio by default; `--http PORT` serves streamable HTTP on 127.0.0.1:PORT.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("flaky")


@app.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool()
async def slow(seconds: float) -> str:
    """Answer after `seconds`."""
    await anyio.sleep(seconds)
    return "slept"


@app.tool()
def crash() -> str:
    """Kill the server process in the middle of the call."""
    print("flaky: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@app.tool()
def huge(size: int) -> str:
    """Return `size` characters."""
    return "".join(chr(ord("a") + i % 26) for i in range(size))


@app.tool()
def fail(reason: str) -> str:
    """Raise an error inside the tool."""
    raise ValueError(reason)


@app.tool()
def where(probe: str) -> str:
    """The server's working directory, whether it sees the file `probe`, and its API key."""
    return (
        f"cwd={os.getcwd()} probe_visible={os.path.exists(probe)} "
        f"api_key={os.environ.get('OPENAI_API_KEY', 'unset')} mine={os.environ.get('MINE')}"
    )


@app.tool()
def header(header_name: str, ctx: Context) -> str:
    """The value of one HTTP request header ("" over stdio)."""
    return (ctx.headers or {}).get(header_name.lower(), "")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
