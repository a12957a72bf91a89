"""The schema of the store, as an append-only list of sqlite-utils migrations.

Rules: never edit or reorder a migration that has shipped; add a new function at the end.
Each migration runs in its own transaction together with its record in
`_sqlite_migrations`, so a database created by migration N gets exactly N+1.. applied on
the next open. JSON values are stored as TEXT; timestamps as ISO-8601 UTC TEXT with
microseconds (they sort lexically in time order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlite_utils.migrations import Migrations

if TYPE_CHECKING:
    from sqlite_utils import Database

MIGRATIONS = Migrations("cursorish")


def _run(db: Database, ddl: str) -> None:
    # One statement at a time through execute(): executescript() would commit the
    # migration's transaction half-way.
    for statement in ddl.split(";"):
        if statement.strip():
            db.execute(statement)


@MIGRATIONS(name="m001_initial")
def m001_initial(db: Database) -> None:
    _run(
        db,
        """
        CREATE TABLE tasks (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            repo TEXT NOT NULL,
            created_at TEXT NOT NULL
        );

        CREATE TABLE agents (
            id TEXT PRIMARY KEY,
            task_id INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
            profile TEXT NOT NULL,
            state TEXT NOT NULL,
            branch TEXT NOT NULL,
            worktree TEXT NOT NULL,
            base_commit TEXT NOT NULL,
            planner_model TEXT NOT NULL,
            apply_engine TEXT NOT NULL,
            steps INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            started_at TEXT,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            pid INTEGER,
            summary TEXT,
            error TEXT,
            exit_reason TEXT
        );
        CREATE INDEX idx_agents_task ON agents(task_id);
        CREATE INDEX idx_agents_created ON agents(created_at);

        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT,
            content_kind TEXT NOT NULL DEFAULT 'text'
                CHECK (content_kind IN ('text', 'json', 'null', 'absent')),
            tool_calls TEXT,
            tool_call_id TEXT,
            name TEXT,
            extra TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (agent_id, seq)
        );

        CREATE TABLE planner_calls (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            step INTEGER,
            model TEXT,
            request TEXT,
            response TEXT,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cost_usd REAL,
            elapsed_ms REAL,
            retries INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_planner_calls_agent ON planner_calls(agent_id);

        CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            step INTEGER,
            call_id TEXT,
            name TEXT NOT NULL,
            arguments TEXT,
            result TEXT,
            ok INTEGER,
            elapsed_ms REAL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_tool_calls_agent ON tool_calls(agent_id);

        CREATE TABLE apply_attempts (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            step INTEGER,
            path TEXT NOT NULL,
            engine TEXT,
            sketch_format TEXT,
            outcome TEXT NOT NULL CHECK (outcome IN ('merged', 'refused', 'error')),
            reason TEXT,
            sketch TEXT,
            elapsed_ms REAL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_apply_attempts_agent ON apply_attempts(agent_id);

        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            agent_id TEXT REFERENCES agents(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            data TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_events_agent ON events(agent_id);
        """,
    )


@MIGRATIONS(name="m002_hunk_decisions")
def m002_hunk_decisions(db: Database) -> None:
    # Review decisions (accept = staged, reject = reverted + reason fed back to the agent).
    _run(
        db,
        """
        CREATE TABLE hunk_decisions (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            hunk_header TEXT,
            hunk_sha TEXT,
            decision TEXT NOT NULL CHECK (decision IN ('accepted', 'rejected')),
            reason TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_hunk_decisions_agent ON hunk_decisions(agent_id)
        """,
    )


@MIGRATIONS(name="m003_agent_lifecycle")
def m003_agent_lifecycle(db: Database) -> None:
    # Cancel from another process (`cursorish agents cancel`), discard/gc, and the test
    # runs an agent made (for the best-of-N comparison).
    _run(
        db,
        """
        ALTER TABLE agents ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE agents ADD COLUMN discarded_at TEXT;
        ALTER TABLE agents ADD COLUMN removed_at TEXT;
        ALTER TABLE agents ADD COLUMN tests_run INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE agents ADD COLUMN tests_passed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE agents ADD COLUMN setup_output TEXT;
        ALTER TABLE agents ADD COLUMN owner_start TEXT
        """,
    )


@MIGRATIONS(name="m004_reviews")
def m004_reviews(db: Database) -> None:
    # Branch review (issue 6): one row per reviewed branch, and every accept/reject with the
    # exact patch it applied, so undo can restore it byte for byte and rejections with a
    # reason can be sent back to the agent once (sent_at). Supersedes m002's hunk_decisions.
    _run(
        db,
        """
        CREATE TABLE reviews (
            branch TEXT PRIMARY KEY,
            base TEXT NOT NULL,
            worktree TEXT NOT NULL,
            agent_id TEXT REFERENCES agents(id) ON DELETE SET NULL,
            started_at TEXT NOT NULL,
            committed_at TEXT
        );

        CREATE TABLE review_decisions (
            id INTEGER PRIMARY KEY,
            branch TEXT NOT NULL,
            agent_id TEXT REFERENCES agents(id) ON DELETE SET NULL,
            path TEXT NOT NULL,
            hunk_id TEXT NOT NULL,
            header TEXT NOT NULL DEFAULT '',
            decision TEXT NOT NULL CHECK (decision IN ('accepted', 'rejected')),
            reason TEXT NOT NULL DEFAULT '',
            patch BLOB NOT NULL,
            undone_at TEXT,
            sent_at TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_review_decisions_branch ON review_decisions(branch)
        """,
    )


@MIGRATIONS(name="m005_provisioned_at")
def m005_provisioned_at(db: Database) -> None:
    # A new agent's planner starts while its worktree is still provisioned; an agent cancelled
    # or killed before its setup command finished has none, and resume runs it again.
    # Agents from before this column all got through (or failed) provisioning first.
    _run(
        db,
        """
        ALTER TABLE agents ADD COLUMN provisioned_at TEXT;
        UPDATE agents SET provisioned_at = COALESCE(started_at, created_at)
            WHERE state NOT IN ('queued', 'starting', 'provisioning')
        """,
    )


@MIGRATIONS(name="m006_conversation")
def m006_conversation(db: Database) -> None:
    # Talking to agents (issue 15): the ref a task was based on as the user wrote it (NULL:
    # the HEAD of the time; base_commit is what it resolved to), plan-first mode and its
    # plan, and messages queued for an agent another process runs, delivered at its next
    # planner turn.
    _run(
        db,
        """
        ALTER TABLE agents ADD COLUMN base_ref TEXT;
        ALTER TABLE agents ADD COLUMN plan_mode INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE agents ADD COLUMN plan TEXT;
        CREATE TABLE agent_inbox (
            id INTEGER PRIMARY KEY,
            agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            created_at TEXT NOT NULL,
            delivered_at TEXT
        );
        CREATE INDEX idx_agent_inbox_agent ON agent_inbox(agent_id, delivered_at)
        """,
    )
