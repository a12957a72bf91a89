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

from cursorish.store.agents import AgentTables
from cursorish.store.connection import BUSY_TIMEOUT_MS
from cursorish.store.encoding import now
from cursorish.store.reviews import ReviewTables
from cursorish.store.transcript import TranscriptTables

__all__ = ["BUSY_TIMEOUT_MS", "Store", "now"]


class Store(AgentTables, TranscriptTables, ReviewTables):
    """One repository's store. Safe to use from any thread; see the module docstring.

    One facade over the table groups (`agents`, `transcript`, `reviews`), which share the
    connections and transactions of `connection.StoreBase`.
    """
