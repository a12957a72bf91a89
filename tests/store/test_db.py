"""The SQLite store against a real database file: schema, WAL, concurrency, round trips."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database

from cursorish.errors import CursorishError, ExitCode
from cursorish.store.db import Store, now
from cursorish.store.migrations import MIGRATIONS

REPO_ROOT = Path(__file__).resolve().parents[2]
# Shipped migrations, in order. Append to this list; never edit or reorder it.
SHIPPED = [
    "m001_initial",
    "m002_hunk_decisions",
    "m003_agent_lifecycle",
    "m004_reviews",
    "m005_provisioned_at",
]


def _applied(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT name, applied_at FROM _sqlite_migrations ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def _new_agent(store: Store, agent_id: str = "a3f9c2") -> str:
    task = store.create_task("fix the bug", "/tmp/repo")
    store.create_agent(
        agent_id=agent_id,
        task_id=task,
        profile="default",
        branch=f"cursorish/{agent_id}",
        worktree=f"/tmp/wt/{agent_id}",
        base_commit="0" * 40,
        planner_model="openai/gpt-x",
        apply_engine="auto",
    )
    return agent_id


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = Store.open(tmp_path / "state" / "store.db")
    yield s
    s.close()


# -- schema and migrations -----------------------------------------------------------


def test_registered_migrations_are_append_only() -> None:
    names = [m.name for m in MIGRATIONS._migrations]
    assert names[: len(SHIPPED)] == SHIPPED


def test_open_creates_parent_dirs_and_applies_every_migration(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "store.db"
    Store.open(path).close()
    assert [name for name, _ in _applied(path)] == [m.name for m in MIGRATIONS._migrations]


def test_reopening_applies_nothing_and_keeps_records(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    Store.open(path).close()
    before = _applied(path)
    with Store.open(path) as again:
        assert again.migrate() == []
    assert _applied(path) == before


def test_db_at_migration_n_gets_only_the_later_ones(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m002_hunk_decisions")
    db.execute("INSERT INTO tasks (text, repo, created_at) VALUES ('old', '/r', 'x')")
    first = _applied(path)
    db.close()
    assert [n for n, _ in first] == ["m001_initial"]

    with Store.open(path) as s:
        assert s.task(1) is not None  # data written under migration 1 survives
        assert s.migrate() == []
    after = _applied(path)
    assert after[0] == first[0]  # the old record is untouched, not re-applied
    # Every later migration is applied once, in order, after the untouched first record.
    assert [n for n, _ in after] == [m.name for m in MIGRATIONS._migrations]


def test_agents_from_before_m005_count_as_provisioned_unless_still_starting(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m005_provisioned_at")
    db.execute("INSERT INTO tasks (text, repo, created_at) VALUES ('t', '/r', 'x')")
    for agent_id, state, started in (("a1", "done", "2026-01-01"), ("a2", "starting", None)):
        db.execute(
            "INSERT INTO agents (id, task_id, profile, branch, worktree, base_commit, state, "
            "planner_model, apply_engine, created_at, updated_at, started_at) "
            "VALUES (?, 1, 'default', 'b', 'w', 'c', ?, 'm', 'auto', '2025-12-31', 'x', ?)",
            [agent_id, state, started],
        )
    db.close()
    with Store.open(path) as store:
        done, starting = store.agent("a1"), store.agent("a2")
    assert done is not None and done["provisioned_at"] == "2026-01-01"
    assert starting is not None and starting["provisioned_at"] is None


def test_wal_mode_and_foreign_keys(store: Store) -> None:
    conn = sqlite3.connect(store.path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    with pytest.raises(sqlite3.IntegrityError):
        store.add_message("nosuch", {"role": "user", "content": "hi"})


# -- agents --------------------------------------------------------------------------


def test_create_and_update_agent(store: Store) -> None:
    agent_id = _new_agent(store)
    row = store.agent(agent_id)
    assert row is not None
    assert row["state"] == "queued"
    assert row["steps"] == 0 and row["cost_usd"] == 0
    stamp = row["updated_at"]
    store.update_agent(agent_id, state="running", pid=1234, started_at=now())
    row = store.agent(agent_id)
    assert row is not None
    assert (row["state"], row["pid"]) == ("running", 1234)
    assert row["updated_at"] > stamp


def test_task_text_of_an_agent_row(store: Store) -> None:
    row = store.agent(_new_agent(store))
    assert store.task_text(row) == "fix the bug"
    assert store.task_text({"task_id": None}) == ""
    assert store.task_text(None) == ""


def test_update_agent_rejects_unknown_columns_and_agents(store: Store) -> None:
    agent_id = _new_agent(store)
    with pytest.raises(TypeError, match="stat"):
        store.update_agent(agent_id, stat="typo")
    with pytest.raises(KeyError):
        store.update_agent("ffffff", state="done")


def test_add_usage_increments(store: Store) -> None:
    agent_id = _new_agent(store)
    store.add_usage(agent_id, 100, 20, 0.25)
    store.add_usage(agent_id, 50, 5, 0.125, steps=1)
    row = store.agent(agent_id)
    assert row is not None
    assert (row["prompt_tokens"], row["completion_tokens"], row["cost_usd"], row["steps"]) == (
        150,
        25,
        0.375,
        1,
    )


def test_prefix_lookup(store: Store) -> None:
    for agent_id in ("a3f9c2", "a3b000", "b00001"):
        _new_agent(store, agent_id)
    assert store.agent("a3f9c2")["id"] == "a3f9c2"  # type: ignore[index]
    assert store.agent("a3f")["id"] == "a3f9c2"  # type: ignore[index]
    assert store.agent("b")["id"] == "b00001"  # type: ignore[index]
    assert store.agent("c") is None
    with pytest.raises(CursorishError) as info:
        store.agent("a3")
    assert info.value.exit_code == ExitCode.BAD_ARGS
    assert "a3f9c2" in info.value.message and "a3b000" in info.value.message


def test_agents_newest_first_and_last_agent(store: Store) -> None:
    assert store.last_agent() is None
    for agent_id in ("aaaaaa", "bbbbbb", "cccccc"):
        _new_agent(store, agent_id)
    assert [a["id"] for a in store.agents()] == ["cccccc", "bbbbbb", "aaaaaa"]
    assert store.last_agent()["id"] == "cccccc"  # type: ignore[index]


# -- transcript ----------------------------------------------------------------------

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": [{"type": "text", "text": "rename ünïcode → x"}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": "x = 1\n"},
    {"role": "assistant", "content": "done", "reasoning_content": "thought"},
    {"role": "assistant", "tool_calls": []},  # no content key at all
]


def test_messages_round_trip_exactly(store: Store) -> None:
    agent_id = _new_agent(store)
    for message in CONVERSATION:
        store.add_message(agent_id, message)
    rebuilt = store.messages(agent_id)
    assert rebuilt == CONVERSATION


def test_message_seq_is_per_agent(store: Store) -> None:
    a, b = _new_agent(store, "aaaaaa"), _new_agent(store, "bbbbbb")
    store.add_message(a, {"role": "user", "content": "1"})
    store.add_message(b, {"role": "user", "content": "other"})
    store.add_message(a, {"role": "user", "content": "2"})
    assert [m["content"] for m in store.messages(a)] == ["1", "2"]
    assert [m["content"] for m in store.messages(b)] == ["other"]


def test_transcript_interleaves_in_time_order(store: Store) -> None:
    agent_id = _new_agent(store)
    store.add_planner_call(agent_id, step=1, model="m", prompt_tokens=10, completion_tokens=2)
    store.add_message(agent_id, CONVERSATION[2])
    store.add_apply_attempt(
        agent_id, step=1, path="a.py", engine="deterministic", outcome="refused", reason="ambig"
    )
    store.add_apply_attempt(agent_id, step=1, path="a.py", engine="model", outcome="merged")
    store.add_tool_call(
        agent_id, step=1, call_id="call_1", name="edit", arguments='{"p": 1}', result="ok", ok=True
    )
    store.add_message(agent_id, CONVERSATION[3])
    store.add_tool_call(agent_id, step=2, call_id="call_2", name="grep", result="", ok=False)
    store.add_message(agent_id, {"role": "assistant", "content": "done"})
    other = _new_agent(store, "bbbbbb")
    store.add_tool_call(other, step=1, name="grep")  # another agent's rows stay out

    entries = store.transcript(agent_id)
    assert [
        (e["kind"], e.get("outcome") or e.get("name") or e.get("role") or e["model"])
        for e in entries
    ] == [
        ("planner_call", "m"),
        ("message", "assistant"),
        ("apply_attempt", "refused"),
        ("apply_attempt", "merged"),
        ("tool_call", "edit"),
        ("message", "read_file"),
        ("tool_call", "grep"),
        ("message", "assistant"),
    ]
    assert entries[1]["message"] == CONVERSATION[2]
    assert entries[4]["ok"] == 1


def test_planner_calls_and_events_store_json(store: Store) -> None:
    agent_id = _new_agent(store)
    store.add_planner_call(
        agent_id,
        step=1,
        model="m",
        request={"messages": [{"role": "user", "content": "hi"}]},
        response={"choices": []},
        prompt_tokens=3,
        completion_tokens=1,
        cost_usd=0.001,
        elapsed_ms=12.5,
        retries=0,
    )
    first = store.add_event(agent_id, "step", {"n": 1})
    store.add_event(None, "orchestrator", {"agents": 2})
    assert store.planner_calls(agent_id)[0]["request"]["messages"][0]["content"] == "hi"
    assert [e["data"] for e in store.events(agent_id)] == [{"n": 1}]
    assert [e["kind"] for e in store.events(after_id=first)] == ["orchestrator"]
    with pytest.raises(TypeError, match="bogus"):
        store.add_tool_call(agent_id, bogus=1)


# -- concurrency ---------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from cursorish.store.db import Store
    store = Store.open(Path(sys.argv[1]))
    agent_id = sys.argv[2]
    while store.agent(agent_id) is None:
        pass
    for i in range(int(sys.argv[3])):
        store.add_usage(agent_id, 1, 2, 0.5)
        store.add_message(agent_id, {"role": "user", "content": f"{sys.argv[4]}{i}"})
    store.close()
    """
)


def test_two_processes_write_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    n = 150
    # Both processes also race on creating and migrating the fresh database.
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), "a3f9c2", str(n), tag],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("p", "q")
    ]
    deadline = time.monotonic() + 30
    while True:
        try:
            with Store.open(path) as s:
                _new_agent(s)
            break
        except (CursorishError, sqlite3.OperationalError):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    errors = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    with Store.open(path) as s:
        row = s.agent("a3f9c2")
        assert row is not None
        assert (row["prompt_tokens"], row["completion_tokens"], row["cost_usd"]) == (
            2 * n,
            4 * n,
            n * 1.0,
        )
        contents = [m["content"] for m in s.messages("a3f9c2")]
    assert sorted(contents) == sorted([f"p{i}" for i in range(n)] + [f"q{i}" for i in range(n)])
    assert [c for c in contents if c.startswith("p")] == [f"p{i}" for i in range(n)]


def _hold_write_lock(path: Path, seconds: float) -> threading.Thread:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")

    def release() -> None:
        time.sleep(seconds)
        conn.execute("COMMIT")
        conn.close()

    thread = threading.Thread(target=release)
    thread.start()
    return thread


def test_busy_timeout_makes_writers_wait(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Store.open(path) as s:
        agent_id = _new_agent(s)
        holder = _hold_write_lock(path, 0.4)
        start = time.monotonic()
        s.add_usage(agent_id, 1, 1, 0.0)
        waited = time.monotonic() - start
        holder.join()
        assert waited >= 0.3
        assert s.agent(agent_id)["prompt_tokens"] == 1  # type: ignore[index]


def test_without_busy_timeout_a_locked_write_fails(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Store.open(path, busy_timeout_ms=0) as s:
        agent_id = _new_agent(s)
        holder = _hold_write_lock(path, 0.3)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                s.add_usage(agent_id, 1, 1, 0.0)
        finally:
            holder.join()


def test_threads_share_one_store(store: Store) -> None:
    agent_id = _new_agent(store)

    def work(tag: str) -> None:
        for i in range(40):
            store.add_message(agent_id, {"role": "user", "content": f"{tag}{i}"})
            store.add_usage(agent_id, 1, 0, 0.0)

    threads = [threading.Thread(target=work, args=(t,)) for t in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    messages = store.messages(agent_id)
    assert len(messages) == 160
    assert store.agent(agent_id)["prompt_tokens"] == 160  # type: ignore[index]


def test_closed_store_refuses_use(tmp_path: Path) -> None:
    s = Store.open(tmp_path / "store.db")
    s.close()
    with pytest.raises(RuntimeError, match="closed"):
        s.agents()


def test_json_columns_accept_preserialized_and_plain_text(store: Store) -> None:
    agent_id = _new_agent(store)
    store.add_planner_call(agent_id, step=1, request='{"messages": 2}', response="", error="boom")
    store.add_planner_call(agent_id, step=2, request="not json", response=None)
    calls = store.planner_calls(agent_id)
    assert calls[0]["request"] == {"messages": 2}
    assert calls[0]["response"] == ""
    assert calls[1]["request"] == "not json"
    assert calls[1]["response"] is None


def test_transcript_message_content_is_the_message_content(store: Store) -> None:
    agent_id = _new_agent(store)
    store.add_message(agent_id, CONVERSATION[1])  # content given as a list of parts
    (entry,) = store.transcript(agent_id)
    assert entry["content"] == CONVERSATION[1]["content"]
