"""The store's reviews (m004): one row per reviewed branch, and the hunk decisions made in it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cursorish.store.connection import DECISION_MANAGED, StoreBase
from cursorish.store.encoding import encode, now


class ReviewTables(StoreBase):
    """reviews, review_decisions."""

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
        values = [encode(v) for v in fields.values()]
        with self._write() as db:
            cursor = db.conn.execute(
                f"UPDATE reviews SET {assignments} WHERE branch = ?", [*values, branch]
            )
            if cursor.rowcount == 0:
                raise KeyError(f"no review of {branch!r} in {self.path}")

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
                self._check_fields("review_decisions", fields, DECISION_MANAGED)
                row = {k: encode(v) for k, v in fields.items()}
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
        self._check_fields("review_decisions", fields, DECISION_MANAGED)
        if not ids or not fields:
            return
        assignments = ", ".join(f"{k} = ?" for k in fields)
        values = [encode(v) for v in fields.values()]
        marks = ", ".join("?" for _ in ids)
        with self._write() as db:
            db.conn.execute(
                f"UPDATE review_decisions SET {assignments} WHERE id IN ({marks})",
                [*values, *ids],
            )
