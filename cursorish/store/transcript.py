"""What an agent did, in the store: planner messages, planner calls, tool calls, apply
attempts, events, and the transcript that interleaves them for `cursorish log`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from cursorish.store.connection import StoreBase
from cursorish.store.encoding import decode, now, plain, to_json

# Keys of an OpenAI message that have their own column; everything else goes to `extra`.
MESSAGE_COLUMNS = ("role", "content", "tool_calls", "tool_call_id", "name")


class TranscriptTables(StoreBase):
    """messages, planner_calls, tool_calls, apply_attempts, events."""

    # -- planner transcript ------------------------------------------------------------

    def add_message(self, agent_id: str, message: Mapping[str, Any]) -> None:
        """Append one OpenAI-format message (dict, or a pydantic object with model_dump)."""
        if not isinstance(message, Mapping):
            message = plain(message)
        msg = dict(message)
        if "role" not in msg:
            raise ValueError("a message needs a 'role'")
        content = msg.get("content")
        if "content" not in msg:
            kind, stored = "absent", None
        elif content is None:
            kind, stored = "null", None
        elif isinstance(content, str):
            kind, stored = "text", content
        else:  # a list of content parts
            kind, stored = "json", to_json(content)
        extra = {k: v for k, v in msg.items() if k not in MESSAGE_COLUMNS}
        tool_calls = msg.get("tool_calls")
        with self._write() as db:
            (seq,) = db.conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE agent_id = ?", [agent_id]
            ).fetchone()
            db.conn.execute(
                "INSERT INTO messages (agent_id, seq, role, content, content_kind, tool_calls,"
                " tool_call_id, name, extra, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    agent_id,
                    seq,
                    msg["role"],
                    stored,
                    kind,
                    None if tool_calls is None else to_json(tool_calls),
                    msg.get("tool_call_id"),
                    msg.get("name"),
                    to_json(extra) if extra else None,
                    now(),
                ],
            )

    @staticmethod
    def _message_from_row(row: sqlite3.Row) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": row["role"]}
        kind = row["content_kind"]
        if kind == "text":
            msg["content"] = row["content"]
        elif kind == "json":
            msg["content"] = json.loads(row["content"])
        elif kind == "null":
            msg["content"] = None
        for key in ("tool_calls", "tool_call_id", "name"):
            if row[key] is not None:
                msg[key] = json.loads(row[key]) if key == "tool_calls" else row[key]
        if row["extra"]:
            msg.update(json.loads(row["extra"]))
        return msg

    def messages(self, agent_id: str) -> list[dict[str, Any]]:
        """The agent's planner messages in order, exactly as they were added."""
        rows = self._query("SELECT * FROM messages WHERE agent_id = ? ORDER BY seq", [agent_id])
        return [self._message_from_row(row) for row in rows]

    def add_planner_call(self, agent_id: str, **fields: Any) -> int:
        """Columns: step, model, request, response, prompt_tokens, completion_tokens,
        cost_usd, elapsed_ms, retries, error (request/response: dicts, stored as JSON)."""
        return self._insert("planner_calls", agent_id, fields)

    def add_tool_call(self, agent_id: str, **fields: Any) -> int:
        """Columns: step, call_id, name, arguments, result, ok, elapsed_ms."""
        return self._insert("tool_calls", agent_id, fields)

    def add_apply_attempt(self, agent_id: str, **fields: Any) -> int:
        """Columns: step, path, engine, sketch_format, outcome (merged|refused|error),
        reason, sketch, elapsed_ms."""
        return self._insert("apply_attempts", agent_id, fields)

    def add_event(self, agent_id: str | None, kind: str, data: dict[str, Any]) -> int:
        return self._insert("events", agent_id, {"kind": kind, "data": data})

    def planner_calls(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("planner_calls", agent_id)

    def tool_calls(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("tool_calls", agent_id)

    def apply_attempts(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("apply_attempts", agent_id)

    def events(self, agent_id: str | None = None, *, after_id: int = 0) -> list[dict[str, Any]]:
        """Events with id > after_id (all agents when agent_id is None), oldest first.

        Pass the last id seen to tail the log from another process.
        """
        sql = "SELECT * FROM events WHERE id > ?"
        params: list[Any] = [after_id]
        if agent_id is not None:
            sql += " AND agent_id = ?"
            params.append(agent_id)
        rows = self._query(sql + " ORDER BY id", params)
        return [decode("events", row) for row in rows]

    def transcript(self, agent_id: str) -> list[dict[str, Any]]:
        """Everything one agent did, interleaved in time order, for `cursorish log`.

        Each entry is a row (JSON columns decoded) plus `kind`: "planner_call",
        "message" (`content`/`tool_calls` as in the message, the whole rebuilt OpenAI dict
        under `message`), "tool_call" or "apply_attempt".
        """
        entries: list[dict[str, Any]] = []
        for row in self._query(
            "SELECT * FROM messages WHERE agent_id = ? ORDER BY seq", [agent_id]
        ):
            entry = decode("messages", row)
            entry["kind"] = "message"
            entry["message"] = self._message_from_row(row)
            entry["content"] = entry["message"].get("content")
            entries.append(entry)
        for table, kind in _TRANSCRIPT_TABLES:
            for entry in self._rows(table, agent_id):
                entry["kind"] = kind
                entries.append(entry)
        # Timestamps are strictly increasing per process; the kind order only breaks ties
        # between rows written by different processes in the same microsecond.
        entries.sort(key=lambda e: (e["created_at"], _KIND_RANK[e["kind"]], e["id"]))
        return entries


_TRANSCRIPT_TABLES = (
    ("planner_calls", "planner_call"),
    ("tool_calls", "tool_call"),
    ("apply_attempts", "apply_attempt"),
)
_KIND_RANK = {"planner_call": 0, "message": 1, "apply_attempt": 2, "tool_call": 3}
