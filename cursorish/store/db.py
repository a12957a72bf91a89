"""The SQLite store: tasks, agents, planner transcripts, tool calls, apply attempts, events.

Git holds code state; this holds everything else. Several processes (an agent run and
`cursorish agents`) and several threads (the asyncio loop and worker threads) use one
database at the same time, so:

- the database is in WAL mode (readers never block the writer) with a busy timeout
  (writers wait for each other instead of failing with "database is locked");
- each thread gets its own connection (`threading.local`): a sqlite3 connection must
  not be shared by threads in the middle of a transaction;
- every write is one `BEGIN IMMEDIATE` transaction, which takes the write lock up front,
  so a read-then-write (such as the next message `seq`) can never fail half-way with
  SQLITE_BUSY_SNAPSHOT — the busy timeout covers the whole wait.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Self

from sqlite_utils import Database

from cursorish.errors import CursorishError, ExitCode
from cursorish.store.migrations import MIGRATIONS
from cursorish.store.paths import store_path

BUSY_TIMEOUT_MS = 15_000

# Columns holding JSON documents (decoded on read). Other TEXT columns are returned as-is
# (`tool_calls.arguments` is the raw string the model produced, which may not be JSON).
_JSON_COLUMNS: dict[str, frozenset[str]] = {
    "planner_calls": frozenset({"request", "response"}),
    "events": frozenset({"data"}),
    "messages": frozenset({"tool_calls", "extra"}),
}
# Keys of an OpenAI message that have their own column; everything else goes to `extra`.
_MESSAGE_COLUMNS = ("role", "content", "tool_calls", "tool_call_id", "name")
# Columns the store maintains itself; callers may not set them through **fields.
_MANAGED = frozenset({"id", "agent_id", "created_at"})
_DECISION_MANAGED = frozenset({"id", "branch", "agent_id", "created_at"})

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


def _plain(value: Any) -> Any:
    """Pydantic-style objects (litellm's Message, ChatCompletionMessageToolCall) to dicts."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def _to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_plain)


def _encode(value: Any) -> Any:
    """A Python value as an SQLite column value; containers become JSON text."""
    if value is None or isinstance(value, str | int | float | bytes):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, Path):
        return str(value)
    return _to_json(value)


class Store:
    """One repository's store. Safe to use from any thread; see the module docstring."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        """Prefer `Store.open` / `Store.for_repo`, which also create the schema."""
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[Database] = []
        self._closed = False
        self._columns: dict[str, frozenset[str]] = {}

    # -- opening -----------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Self:
        """Open (creating if needed) the database at `path`: WAL on, migrations applied."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            store = cls(path, busy_timeout_ms=busy_timeout_ms)
            db = store._db()
            # journal_mode is persistent in the file; it cannot change inside a transaction.
            mode = db.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except (OSError, sqlite3.Error) as exc:
            raise CursorishError(f"cannot open the cursorish store {path}: {exc}") from exc
        if str(mode).lower() != "wal":
            raise CursorishError(f"cannot put {path} in WAL mode (journal_mode={mode})")
        store.migrate()
        return store

    @classmethod
    def for_repo(cls, git_common_dir: Path) -> Self:
        """The store of the repository whose git common dir is `git_common_dir`."""
        return cls.open(store_path(git_common_dir))

    def migrate(self) -> list[str]:
        """Apply pending migrations; returns the names applied (usually none)."""
        db = self._db()
        if not MIGRATIONS.pending(db):  # read-only check: no write lock for the common case
            return []
        with self._write() as db:
            # Re-checked under the write lock: another process may have just migrated.
            names = [m.name for m in MIGRATIONS.pending(db)]
            MIGRATIONS.apply(db)
        self._columns.clear()
        return names

    def _connect(self) -> Database:
        conn = sqlite3.connect(
            str(self.path),
            timeout=self.busy_timeout_ms / 1000,
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys=ON")
        # NORMAL is durable across application crashes in WAL mode (only an OS crash can
        # lose the last transactions), and much cheaper than FULL per write.
        conn.execute("PRAGMA synchronous=NORMAL")
        return Database(conn, execute_plugins=False)

    def _db(self) -> Database:
        if self._closed:
            raise RuntimeError(f"store {self.path} is closed")
        db: Database | None = getattr(self._local, "db", None)
        if db is None:
            db = self._connect()
            self._local.db = db
            with self._lock:
                self._connections.append(db)
        return db

    @contextmanager
    def _write(self) -> Iterator[Database]:
        db = self._db()
        if db.conn.in_transaction:  # nested write on the same thread: join it
            yield db
            return
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
        else:
            db.conn.execute("COMMIT")

    def close(self) -> None:
        """Close every thread's connection. Further use raises RuntimeError."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for db in connections:
            db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -----------------------------------------------------------------------

    def _query(self, sql: str, params: list[Any] | None = None) -> list[sqlite3.Row]:
        # Row factory on the cursor, not the connection: sqlite-utils expects plain tuples.
        cursor = self._db().conn.cursor()
        cursor.row_factory = sqlite3.Row
        return cursor.execute(sql, params or []).fetchall()

    def _table_columns(self, table: str) -> frozenset[str]:
        cols = self._columns.get(table)
        if cols is None:
            rows = self._query(f"PRAGMA table_info({table})")
            cols = frozenset(row["name"] for row in rows)
            self._columns[table] = cols
        return cols

    def _check_fields(self, table: str, fields: Mapping[str, Any], managed: frozenset[str]) -> None:
        unknown = set(fields) - (self._table_columns(table) - managed)
        if unknown:
            raise TypeError(f"{table} has no settable column(s): {', '.join(sorted(unknown))}")

    def _insert(self, table: str, agent_id: str | None, fields: Mapping[str, Any]) -> int:
        self._check_fields(table, fields, _MANAGED)
        row = {k: _encode(v) for k, v in fields.items()}
        row["agent_id"] = agent_id
        row["created_at"] = now()
        with self._write() as db:
            return int(db.table(table).insert(row).last_rowid or 0)

    @staticmethod
    def _decode(table: str, row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        for col in _JSON_COLUMNS.get(table, ()):
            value = out.get(col)
            if isinstance(value, str) and value:
                # Callers may pass JSON they serialized themselves, or plain text: decode
                # what is JSON and leave the rest as the string it was.
                with suppress(ValueError):
                    out[col] = json.loads(value)
        return out

    def _rows(self, table: str, agent_id: str) -> list[dict[str, Any]]:
        rows = self._query(f"SELECT * FROM {table} WHERE agent_id = ? ORDER BY id", [agent_id])
        return [self._decode(table, row) for row in rows]

    # -- tasks and agents --------------------------------------------------------------

    def create_task(self, text: str, repo: str) -> int:
        with self._write() as db:
            cursor = db.conn.execute(
                "INSERT INTO tasks (text, repo, created_at) VALUES (?, ?, ?)",
                [text, repo, now()],
            )
            return int(cursor.lastrowid or 0)

    def task(self, task_id: int) -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM tasks WHERE id = ?", [task_id])
        return dict(rows[0]) if rows else None

    def task_text(self, agent: Mapping[str, Any] | None) -> str:
        """The task text of an agent row; "" when there is no row or it has no task."""
        if agent is None or agent.get("task_id") is None:
            return ""
        task = self.task(int(agent["task_id"]))
        return str(task["text"]) if task else ""

    def create_agent(
        self,
        *,
        agent_id: str,
        task_id: int,
        profile: str,
        branch: str,
        worktree: str,
        base_commit: str,
        planner_model: str,
        apply_engine: str,
        state: str = "queued",
    ) -> None:
        stamp = now()
        row = {
            "id": agent_id,
            "task_id": task_id,
            "profile": profile,
            "state": state,
            "branch": branch,
            "worktree": str(worktree),
            "base_commit": base_commit,
            "planner_model": planner_model,
            "apply_engine": apply_engine,
            "created_at": stamp,
            "updated_at": stamp,
        }
        try:
            with self._write() as db:
                db.table("agents").insert(row)
        except sqlite3.IntegrityError as exc:
            raise CursorishError(f"cannot record agent {agent_id}: {exc}") from exc

    def update_agent(self, agent_id: str, **fields: Any) -> None:
        """Set columns of one agent (and `updated_at`). Unknown columns raise TypeError."""
        self._check_fields("agents", fields, frozenset({"id", "created_at", "updated_at"}))
        values = {k: _encode(v) for k, v in fields.items()}
        values["updated_at"] = now()
        assignments = ", ".join(f"{k} = ?" for k in values)
        with self._write() as db:
            cursor = db.conn.execute(
                f"UPDATE agents SET {assignments} WHERE id = ?", [*values.values(), agent_id]
            )
            if cursor.rowcount == 0:
                raise KeyError(f"no agent {agent_id!r} in {self.path}")

    def add_usage(
        self,
        agent_id: str,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
        *,
        steps: int = 0,
    ) -> None:
        """Add to the agent's counters in one statement (safe against concurrent adders)."""
        with self._write() as db:
            cursor = db.conn.execute(
                "UPDATE agents SET prompt_tokens = prompt_tokens + ?,"
                " completion_tokens = completion_tokens + ?, cost_usd = cost_usd + ?,"
                " steps = steps + ?, updated_at = ? WHERE id = ?",
                [
                    int(prompt_tokens),
                    int(completion_tokens),
                    float(cost_usd or 0.0),
                    steps,
                    now(),
                    agent_id,
                ],
            )
            if cursor.rowcount == 0:
                raise KeyError(f"no agent {agent_id!r} in {self.path}")

    def agent(self, agent_id: str) -> dict[str, Any] | None:
        """The agent with this id, or the only one whose id starts with it.

        Raises CursorishError (BAD_ARGS) when the prefix matches several agents.
        """
        if not agent_id:
            return None
        exact = self._query("SELECT * FROM agents WHERE id = ?", [agent_id])
        if exact:
            return dict(exact[0])
        rows = self._query(
            "SELECT * FROM agents WHERE substr(id, 1, ?) = ? ORDER BY created_at DESC LIMIT 6",
            [len(agent_id), agent_id],
        )
        if len(rows) > 1:
            shown = ", ".join(r["id"] for r in rows[:5]) + (", …" if len(rows) > 5 else "")
            raise CursorishError(
                f"agent id prefix {agent_id!r} is ambiguous: it matches {shown}"
                " (type more characters)",
                ExitCode.BAD_ARGS,
            )
        return dict(rows[0]) if rows else None

    def agents(self, *, task_id: int | None = None) -> list[dict[str, Any]]:
        """All agents (optionally of one task), newest first."""
        where, params = ("WHERE task_id = ?", [task_id]) if task_id is not None else ("", [])
        rows = self._query(
            f"SELECT * FROM agents {where} ORDER BY created_at DESC, rowid DESC", params
        )
        return [dict(row) for row in rows]

    def last_agent(self) -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM agents ORDER BY created_at DESC, rowid DESC LIMIT 1")
        return dict(rows[0]) if rows else None

    # -- planner transcript ------------------------------------------------------------

    def add_message(self, agent_id: str, message: Mapping[str, Any]) -> None:
        """Append one OpenAI-format message (dict, or a pydantic object with model_dump)."""
        if not isinstance(message, Mapping):
            message = _plain(message)
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
            kind, stored = "json", _to_json(content)
        extra = {k: v for k, v in msg.items() if k not in _MESSAGE_COLUMNS}
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
                    None if tool_calls is None else _to_json(tool_calls),
                    msg.get("tool_call_id"),
                    msg.get("name"),
                    _to_json(extra) if extra else None,
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

    # -- review (m004) -------------------------------------------------------------------

    def review(self, branch: str) -> dict[str, Any] | None:
        """The review of `branch` (columns of `reviews`), or None if it was never reviewed."""
        rows = self._query("SELECT * FROM reviews WHERE branch = ?", [branch])
        return dict(rows[0]) if rows else None

    def start_review(
        self, branch: str, *, base: str, worktree: str, agent_id: str | None
    ) -> dict[str, Any]:
        """Record that `branch` is now reviewed against `base` in `worktree` (a new row; an
        existing one is replaced, which starts a new review: older decisions no longer count)."""
        row = {
            "branch": branch,
            "base": base,
            "worktree": str(worktree),
            "agent_id": agent_id,
            "started_at": now(),
            "committed_at": None,
        }
        with self._write() as db:
            db.conn.execute("DELETE FROM reviews WHERE branch = ?", [branch])
            db.table("reviews").insert(row)
        return row

    def update_review(self, branch: str, **fields: Any) -> None:
        """Set columns of one review (worktree, committed_at, ...)."""
        self._check_fields("reviews", fields, frozenset({"branch", "started_at"}))
        if not fields:
            return
        assignments = ", ".join(f"{k} = ?" for k in fields)
        values = [_encode(v) for v in fields.values()]
        with self._write() as db:
            cursor = db.conn.execute(
                f"UPDATE reviews SET {assignments} WHERE branch = ?", [*values, branch]
            )
            if cursor.rowcount == 0:
                raise KeyError(f"no review of {branch!r} in {self.path}")

    def delete_agent(self, agent_id: str) -> None:
        """Forget an agent and everything recorded of it (its transcript, calls and events go
        with it; its task and reviews stay)."""
        with self._write() as db:
            db.conn.execute("DELETE FROM agents WHERE id = ?", [agent_id])

    def delete_review(self, branch: str) -> None:
        """Forget the review of `branch` (its decisions stay, as history)."""
        with self._write() as db:
            db.conn.execute("DELETE FROM reviews WHERE branch = ?", [branch])

    def add_review_decisions(
        self, branch: str, agent_id: str | None, decisions: list[Mapping[str, Any]]
    ) -> list[int]:
        """Record decisions in one transaction; each has path, hunk_id, header, decision
        (accepted|rejected), reason and patch (bytes). Returns the new row ids in order."""
        ids: list[int] = []
        with self._write() as db:
            for fields in decisions:
                self._check_fields("review_decisions", fields, _DECISION_MANAGED)
                row = {k: _encode(v) for k, v in fields.items()}
                row.update(branch=branch, agent_id=agent_id, created_at=now())
                ids.append(int(db.table("review_decisions").insert(row).last_rowid or 0))
        return ids

    def review_decisions(
        self, branch: str, *, since: str | None = None, include_undone: bool = False
    ) -> list[dict[str, Any]]:
        """Decisions on `branch`, oldest first: those in effect (not undone) unless
        `include_undone`, made at or after `since` (a review's started_at) when given."""
        sql = "SELECT * FROM review_decisions WHERE branch = ?"
        params: list[Any] = [branch]
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(since)
        if not include_undone:
            sql += " AND undone_at IS NULL"
        return [dict(row) for row in self._query(sql + " ORDER BY id", params)]

    def mark_review_decisions(self, ids: list[int], **fields: Any) -> None:
        """Set undone_at / sent_at (or other columns) on the given decision rows."""
        self._check_fields("review_decisions", fields, _DECISION_MANAGED)
        if not ids or not fields:
            return
        assignments = ", ".join(f"{k} = ?" for k in fields)
        values = [_encode(v) for v in fields.values()]
        marks = ", ".join("?" for _ in ids)
        with self._write() as db:
            db.conn.execute(
                f"UPDATE review_decisions SET {assignments} WHERE id IN ({marks})",
                [*values, *ids],
            )

    def add_event(self, agent_id: str | None, kind: str, data: dict[str, Any]) -> int:
        return self._insert("events", agent_id, {"kind": kind, "data": data})

    def planner_calls(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("planner_calls", agent_id)

    def tool_calls(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("tool_calls", agent_id)

    def apply_attempts(self, agent_id: str) -> list[dict[str, Any]]:
        return self._rows("apply_attempts", agent_id)

    # -- messages queued for a running agent (issue 15) ------------------------------

    def queue_message(self, agent_id: str, text: str) -> int:
        """Queue a user message for `agent_id`, delivered at its next planner turn."""
        with self._write() as db:
            cursor = db.conn.execute(
                "INSERT INTO agent_inbox (agent_id, text, created_at) VALUES (?, ?, ?)",
                [agent_id, text, now()],
            )
            return int(cursor.lastrowid or 0)

    def queued_messages(self, agent_id: str) -> list[dict[str, Any]]:
        """Messages queued for `agent_id` and not delivered yet, oldest first."""
        rows = self._query(
            "SELECT * FROM agent_inbox WHERE agent_id = ? AND delivered_at IS NULL ORDER BY id",
            [agent_id],
        )
        return [dict(row) for row in rows]

    def take_queued_messages(self, agent_id: str) -> list[dict[str, Any]]:
        """The undelivered messages of `agent_id`, marked delivered in the same transaction
        (two readers never both deliver one)."""
        with self._write() as db:
            cursor = db.conn.cursor()
            cursor.row_factory = sqlite3.Row
            rows = cursor.execute(
                "SELECT * FROM agent_inbox WHERE agent_id = ? AND delivered_at IS NULL ORDER BY id",
                [agent_id],
            ).fetchall()
            if rows:
                marks = ",".join("?" for _ in rows)
                db.conn.execute(
                    f"UPDATE agent_inbox SET delivered_at = ? WHERE id IN ({marks})",
                    [now(), *(row["id"] for row in rows)],
                )
            return [dict(row) for row in rows]

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
        return [self._decode("events", row) for row in rows]

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
            entry = self._decode("messages", row)
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
