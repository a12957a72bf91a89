"""How values go into the store's columns and come back: timestamps, JSON documents, plain
Python values as SQLite column values."""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import threading
from contextlib import suppress
from pathlib import Path
from typing import Any

# Columns holding JSON documents (decoded on read). Other TEXT columns are returned as-is
# (`tool_calls.arguments` is the raw string the model produced, which may not be JSON).
JSON_COLUMNS: dict[str, frozenset[str]] = {
    "planner_calls": frozenset({"request", "response"}),
    "events": frozenset({"data"}),
    "messages": frozenset({"tool_calls", "extra"}),
}

_clock_lock = threading.Lock()
_last_stamp: _dt.datetime | None = None


def now() -> str:
    """ISO-8601 UTC timestamp with microseconds, strictly increasing within this process.

    `transcript()` interleaves rows of several tables by `created_at`; strict increase keeps
    rows written one after the other in that order even within one clock tick.
    """
    global _last_stamp
    with _clock_lock:
        stamp = _dt.datetime.now(_dt.UTC)
        if _last_stamp is not None and stamp <= _last_stamp:
            stamp = _last_stamp + _dt.timedelta(microseconds=1)
        _last_stamp = stamp
        return stamp.isoformat(timespec="microseconds")


def plain(value: Any) -> Any:
    """Pydantic-style objects (litellm's Message, ChatCompletionMessageToolCall) to dicts."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=plain)


def encode(value: Any) -> Any:
    """A Python value as an SQLite column value; containers become JSON text."""
    if value is None or isinstance(value, str | int | float | bytes):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, Path):
        return str(value)
    return to_json(value)


def decode(table: str, row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    for col in JSON_COLUMNS.get(table, ()):
        value = out.get(col)
        if isinstance(value, str) and value:
            # Callers may pass JSON they serialized themselves, or plain text: decode
            # what is JSON and leave the rest as the string it was.
            with suppress(ValueError):
                out[col] = json.loads(value)
    return out
