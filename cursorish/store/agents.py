"""The store's tasks and agents: rows, usage counters, and messages queued for a running agent."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from cursorish.errors import CursorishError, ExitCode
from cursorish.store.connection import StoreBase
from cursorish.store.encoding import encode, now


class AgentTables(StoreBase):
    """tasks, agents, agent_inbox."""

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
        values = {k: encode(v) for k, v in fields.items()}
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

    def delete_agent(self, agent_id: str) -> None:
        """Forget an agent and everything recorded of it (its transcript, calls and events go
        with it; its task and reviews stay)."""
        with self._write() as db:
            db.conn.execute("DELETE FROM agents WHERE id = ?", [agent_id])

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
