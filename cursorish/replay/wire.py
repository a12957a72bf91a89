"""Pieces of OpenAI chat-completion answers as the scripted server sends them: tool calls,
usage, error types and stream deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

PIECES = 3  # content and arguments are split into this many stream deltas


def error_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
    }.get(status, "server_error")


def tool_call(call: Any, response_id: str, index: int) -> dict[str, Any]:
    if not isinstance(call, dict) or "name" not in call:
        raise ValueError(f"scripted tool call needs a name: {call!r}")
    args = call.get("arguments", {})
    # A string is sent verbatim (possibly invalid JSON, for tests); anything else is encoded.
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {
        "id": str(call.get("id") or f"call_{response_id.rsplit('-', 1)[-1]}_{index}"),
        "type": "function",
        "function": {"name": str(call["name"]), "arguments": arguments},
    }


def usage_of(
    turn: Mapping[str, Any],
    messages: Sequence[Any],
    content: str,
    tool_calls: Sequence[dict[str, Any]],
) -> dict[str, int]:
    given = turn.get("usage") or {}
    # Without scripted figures, a rough and deterministic 4-characters-per-token estimate.
    prompt = int(given.get("prompt_tokens", len(json.dumps(messages)) // 4))
    produced = content + "".join(
        c["function"]["name"] + c["function"]["arguments"] for c in tool_calls
    )
    completion = int(given.get("completion_tokens", max(1, len(produced) // 4)))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def split_text(text: str, pieces: int = PIECES) -> Iterator[str]:
    """Split text into up to `pieces` non-empty parts (as a provider would stream it)."""
    if not text:
        return
    size = max(1, -(-len(text) // pieces))
    for start in range(0, len(text), size):
        yield text[start : start + size]
