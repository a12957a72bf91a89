"""A stdio MCP server without the SDK whose tools/call answers break the protocol: the
handshake and the listing are correct; `bad_content` returns content that is not a list,
`not_json` writes a line that is not JSON, `no_result` answers with neither result nor error."""

from __future__ import annotations

import json
import sys

TOOL = {"type": "object", "properties": {}}


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue  # a notification
    method, mid = msg.get("method"), msg["id"]
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": mid,
                "result": {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "malformed", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        tools = [
            {"name": n, "description": n, "inputSchema": TOOL}
            for n in ("bad_content", "not_json", "no_result")
        ]
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "bad_content":
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": "not a list"}})
        elif name == "not_json":
            sys.stdout.write("this is not json {\n")
            sys.stdout.flush()
        else:
            send({"jsonrpc": "2.0", "id": mid})
    else:
        send(
            {
                "jsonrpc": "2.0",
                "id": mid,
                "error": {"code": -32601, "message": f"method not found: {method}"},
            }
        )
