"""The store's connections and transactions: one SQLite database shared by processes and
threads (see `store.db` for the rules), and the small query helpers the tables build on."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from sqlite_utils import Database

from cursorish.errors import CursorishError
from cursorish.store.encoding import decode, encode, now
from cursorish.store.migrations import MIGRATIONS
from cursorish.store.paths import store_path

BUSY_TIMEOUT_MS = 15_000
# Columns the store maintains itself; callers may not set them through **fields.
MANAGED = frozenset({"id", "agent_id", "created_at"})
DECISION_MANAGED = frozenset({"id", "branch", "agent_id", "created_at"})


class StoreBase:
    """Opening, connections, transactions and row helpers; the tables are mixins on top."""

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
        self._check_fields(table, fields, MANAGED)
        row = {k: encode(v) for k, v in fields.items()}
        row["agent_id"] = agent_id
        row["created_at"] = now()
        with self._write() as db:
            return int(db.table(table).insert(row).last_rowid or 0)

    def _rows(self, table: str, agent_id: str) -> list[dict[str, Any]]:
        rows = self._query(f"SELECT * FROM {table} WHERE agent_id = ? ORDER BY id", [agent_id])
        return [decode(table, row) for row in rows]
