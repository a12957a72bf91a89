"""The per-repository code index: files, tree-sitter symbols and an FTS5 table, in SQLite.

It lives in `context.db` beside the repository's `store.db` (same state directory), not in
store.db itself: it is a cache that can be thrown away and rebuilt at any time (a corrupt or
out-of-date file is simply deleted), and its bulk writes while indexing never hold the store's
write lock that running agents need for their transcripts.

Content is keyed by git blob id, so every version of a file is parsed once, whichever
worktree, commit or agent it appears in. A *view* is one tree of paths -> blob ids: the user's
checkout, an agent's worktree (its own edits overlaid on the shared blobs, invisible to other
views), or a commit. Updating a view only parses the blobs the index has not seen.

Concurrency: WAL mode, a busy timeout, and every write in one `BEGIN IMMEDIATE` transaction
(one writer at a time); two processes that parse the same new blob both try to insert it and
the second insert is skipped.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlite_utils import Database

from cursorish.context.langs import is_text_path, language_of
from cursorish.context.parse import Symbol, symbols, token_text
from cursorish.context.sources import MAX_TEXT_BYTES, Blob

SCHEMA_VERSION = 2
CHUNK_LINES = 400
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (
    oid TEXT PRIMARY KEY, lang TEXT, size INTEGER NOT NULL, indexed TEXT NOT NULL,
    lines INTEGER NOT NULL, body BLOB
);
CREATE TABLE IF NOT EXISTS symbols (
    oid TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, role TEXT NOT NULL,
    scope TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_oid ON symbols(oid);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name, role);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    body, oid UNINDEXED, line UNINDEXED, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS views (
    name TEXT PRIMARY KEY, updated_at REAL NOT NULL, history TEXT
);
CREATE TABLE IF NOT EXISTS view_files (
    view TEXT NOT NULL, path TEXT NOT NULL, oid TEXT NOT NULL, PRIMARY KEY (view, path)
) WITHOUT ROWID;
"""

T = TypeVar("T")


@dataclass(frozen=True)
class SyncStats:
    files: int
    parsed: int
    changed: int
    seconds: float


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


class CodeIndex:
    """One repository's index database; use one instance per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self.rebuilt = False
        self._df_key: tuple[int, int] = (-1, -1)
        self._df: dict[str, int] = {}
        self._open_checked()

    # -- connection, schema, recovery ------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _open_checked(self) -> None:
        """Open (creating the schema); a corrupt or other-version file is deleted and rebuilt."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._ensure_schema()
        except sqlite3.DatabaseError:
            self._discard()
            self._ensure_schema()

    def _ensure_schema(self) -> None:
        db = Database(self.conn)
        with self.write():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"index schema {row[0]}, expected {SCHEMA_VERSION}")
        # A cheap check that the pages we rely on read back (a torn or overwritten file).
        self.conn.execute("SELECT count(*) FROM view_files").fetchone()
        self.conn.execute("SELECT count(*) FROM chunks WHERE chunks MATCH 'x'").fetchone()

    def _discard(self) -> None:
        self.close()
        for suffix in ("", "-wal", "-shm"):
            with suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        self.rebuilt = True

    def guarded(self, action: Callable[[], T]) -> T:
        """Run `action`; if the database turns out corrupt, rebuild it empty and run it again."""
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            self._discard()
            self._ensure_schema()
            return action()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- adding content --------------------------------------------------------------------

    def known(self, oids: Iterable[str]) -> set[str]:
        wanted = list(set(oids))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(f"SELECT oid FROM blobs WHERE oid IN ({marks})", part)
            found.update(r[0] for r in rows)
        return found

    def add_blobs(self, blobs: Iterable[Blob]) -> int:
        """Parse and store blobs the index lacks; returns how many were stored."""
        prepared = [_prepare(b) for b in blobs]
        stored = 0
        for start in range(0, len(prepared), 400):
            batch = prepared[start : start + 400]
            with self.write() as conn:
                have = self.known(p[0][0] for p in batch)
                for row, syms, chunks in batch:
                    if row[0] in have:
                        continue
                    have.add(row[0])
                    conn.execute("INSERT INTO blobs VALUES (?, ?, ?, ?, ?, ?)", row)
                    conn.executemany("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?)", syms)
                    conn.executemany(
                        "INSERT INTO chunks (body, oid, line) VALUES (?, ?, ?)", chunks
                    )
                    stored += 1
        return stored

    def set_view(self, view: str, files: dict[str, str], *, partial: bool = False) -> int:
        """Make `view` map exactly `files` (path -> oid); with `partial`, only those paths
        change (an oid of "" deletes the path). Returns how many paths changed."""
        with self.write() as conn:
            current = dict(
                conn.execute("SELECT path, oid FROM view_files WHERE view = ?", (view,)).fetchall()
            )
            if partial:
                target = dict(current)
                for path, oid in files.items():
                    if oid:
                        target[path] = oid
                    else:
                        target.pop(path, None)
            else:
                target = files
            gone = [(view, p) for p in current if p not in target]
            new = [(view, p, o) for p, o in target.items() if current.get(p) != o]
            conn.executemany("DELETE FROM view_files WHERE view = ? AND path = ?", gone)
            conn.executemany("INSERT OR REPLACE INTO view_files VALUES (?, ?, ?)", new)
            conn.execute("INSERT OR IGNORE INTO views VALUES (?, ?, NULL)", (view, time.time()))
            if gone or new:
                conn.execute("UPDATE views SET updated_at = ? WHERE name = ?", (_stamp(), view))
        return len(gone) + len(new)

    def set_history(self, view: str, head: str, counts: dict[str, int]) -> None:
        """How often each path changed in recent history, as of commit `head`."""
        data = json.dumps({"head": head, "counts": counts})
        with self.write() as conn:
            conn.execute(
                "UPDATE views SET history = ?, updated_at = ? WHERE name = ?",
                (data, _stamp(), view),
            )

    def history(self, view: str) -> tuple[str, dict[str, int]]:
        row = self.conn.execute("SELECT history FROM views WHERE name = ?", (view,)).fetchone()
        if row is None or not row[0]:
            return "", {}
        data = json.loads(row[0])
        return str(data["head"]), dict(data["counts"])

    def copy_view(self, source: str, target: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM view_files WHERE view = ?", (target,))
            conn.execute(
                "INSERT INTO view_files SELECT ?, path, oid FROM view_files WHERE view = ?",
                (target, source),
            )
            conn.execute("INSERT OR REPLACE INTO views VALUES (?, ?, NULL)", (target, _stamp()))

    def drop_view(self, view: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM view_files WHERE view = ?", (view,))
            conn.execute("DELETE FROM views WHERE name = ?", (view,))

    def views(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM views")]

    def prune(self) -> int:
        """Forget blobs no view maps any more (old versions, removed worktrees' edits)."""
        with self.write() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS dead AS SELECT oid FROM blobs WHERE 0")
            conn.execute("DELETE FROM temp.dead")
            conn.execute(
                "INSERT INTO temp.dead SELECT oid FROM blobs "
                "WHERE oid NOT IN (SELECT DISTINCT oid FROM view_files)"
            )
            dead = conn.execute("SELECT count(*) FROM temp.dead").fetchone()[0]
            if dead:
                conn.execute("DELETE FROM symbols WHERE oid IN (SELECT oid FROM temp.dead)")
                conn.execute("DELETE FROM chunks WHERE oid IN (SELECT oid FROM temp.dead)")
                conn.execute("DELETE FROM blobs WHERE oid IN (SELECT oid FROM temp.dead)")
        return int(dead)

    # -- reading ---------------------------------------------------------------------------

    def view_files(self, view: str) -> dict[str, str]:
        rows = self.conn.execute("SELECT path, oid FROM view_files WHERE view = ?", (view,))
        return dict(rows.fetchall())

    def view_stamp(self, view: str) -> float | None:
        """When the view last changed (its paths or its history); None when there is none."""
        row = self.conn.execute("SELECT updated_at FROM views WHERE name = ?", (view,)).fetchone()
        return None if row is None else float(row[0])

    def common_terms(self, terms: Iterable[str]) -> set[str]:
        """The terms in at least half of all chunks: FTS5's BM25 gives them an IDF of ~0
        (it clamps a negative IDF to 1e-6), so leaving them out of a query changes no score
        and saves ranking every chunk (a word like `function` is in all of them)."""
        total = self.conn.execute("SELECT count(*) FROM chunks_docsize").fetchone()[0]
        key = (total, self.chunk_count())
        if self._df_key != key:
            self._df_key, self._df = key, {}
        out: set[str] = set()
        for term in terms:
            df = self._df.get(term)
            if df is None:
                row = self.conn.execute(
                    "SELECT count(*) FROM chunks WHERE chunks MATCH ?", (f'"{term}"',)
                ).fetchone()
                df = self._df[term] = int(row[0])
            if total and df * 2 >= total:
                out.add(term)
        return out

    def chunk_count(self) -> int:
        row = self.conn.execute("SELECT max(rowid) FROM chunks").fetchone()
        return int(row[0] or 0)

    def has_view(self, view: str) -> bool:
        return (
            self.conn.execute("SELECT 1 FROM views WHERE name = ?", (view,)).fetchone() is not None
        )

    def blob_info(self, oids: Iterable[str]) -> dict[str, tuple[str | None, int, str, int]]:
        """oid -> (language, size, how indexed, lines)."""
        wanted = list(set(oids))
        out: dict[str, tuple[str | None, int, str, int]] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            for oid, lang, size, how, lines in self.conn.execute(
                f"SELECT oid, lang, size, indexed, lines FROM blobs WHERE oid IN ({marks})", part
            ):
                out[oid] = (lang, size, how, lines)
        return out

    def text(self, oid: str) -> str | None:
        row = self.conn.execute("SELECT body FROM blobs WHERE oid = ?", (oid,)).fetchone()
        if row is None or row[0] is None:
            return None
        return zlib.decompress(row[0]).decode("utf-8", "replace")

    def bm25(self, match: str, limit: int = -1) -> dict[str, float]:
        """oid -> best (highest) BM25 score of its chunks for an FTS5 MATCH expression, from
        the `limit` best chunks (-1: all)."""
        out: dict[str, float] = {}
        rows = self.conn.execute(
            "SELECT oid, bm25(chunks) FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT ?",
            (match, limit),
        )
        for oid, score in rows:
            s = -score
            if s > out.get(oid, 0.0):
                out[oid] = s
        return out

    def symbols_named(self, names: Iterable[str], role: str | None = None) -> list[tuple[Any, ...]]:
        """(oid, name, kind, role, scope, line, end_line) of symbols with these names."""
        return self._symbols_where("name", names, role)

    def symbols_of(self, oids: Iterable[str], role: str | None = None) -> list[tuple[Any, ...]]:
        """The same rows for the symbols of these blobs."""
        return self._symbols_where("oid", oids, role)

    def _symbols_where(
        self, column: str, values: Iterable[str], role: str | None
    ) -> list[tuple[Any, ...]]:
        # Batches of 500: SQLite limits the number of parameters of one statement.
        wanted = list(set(values))
        out: list[tuple[Any, ...]] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT * FROM symbols WHERE {column} IN ({marks})"
            if role:
                sql += " AND role = ?"
                part = [*part, role]
            out.extend(self.conn.execute(sql, part).fetchall())
        return out


_last_stamp = 0.0


def _stamp() -> float:
    """A view version: the time, strictly increasing within this process."""
    global _last_stamp
    _last_stamp = max(time.time(), _last_stamp + 1e-6)
    return _last_stamp


def _prepare(blob: Blob) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows of one blob: (blobs row, symbols rows, chunks rows)."""
    data = blob.data
    lang = language_of(blob.path)
    if is_binary(data) or len(data) > MAX_TEXT_BYTES or not is_text_path(blob.path):
        return (blob.oid, lang, len(data), "path", 0, None), [], []
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    syms: list[Symbol] = symbols(lang, data) if lang else []
    sym_rows = [(blob.oid, s.name, s.kind, s.role, s.scope, s.line, s.end_line) for s in syms]
    chunk_rows = []
    for start in range(0, max(len(lines), 1), CHUNK_LINES):
        body = token_text("\n".join(lines[start : start + CHUNK_LINES]))
        chunk_rows.append((body, blob.oid, start + 1))
    row = (
        blob.oid,
        lang,
        len(data),
        "code" if lang else "text",
        len(lines),
        zlib.compress(data, 1),
    )
    return row, sym_rows, chunk_rows
