"""The malformed server of `malformed.py` over streamable HTTP (plain http.server, no SDK):
POST carries one JSON-RPC message and gets a JSON answer; GET (the event stream) is 405."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL = {"type": "object", "properties": {}}


def answer(msg: dict[str, Any]) -> bytes | None:
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        return None  # a notification
    if method == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "malformed-http", "version": "1"},
        }
    elif method == "tools/list":
        names = ("bad_content", "not_json", "no_result")
        result = {"tools": [{"name": n, "description": n, "inputSchema": TOOL} for n in names]}
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "not_json":
            return b"this is not json {"
        if name == "no_result":
            return json.dumps({"jsonrpc": "2.0", "id": mid}).encode()
        result = {"content": "not a list"}
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return json.dumps({"jsonrpc": "2.0", "id": mid, "error": error}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        out = answer(json.loads(body))
        if out is None:
            self.send_response(202)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self) -> None:
        self.send_response(405)
        self.end_headers()

    do_DELETE = do_GET

    def log_message(self, *args: Any) -> None:
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
