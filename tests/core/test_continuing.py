"""Which ended agents may be resumed or revised, on a real store: each refusal says why, with
BAD_ARGS, and a resume carries the stored usage over."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cursorish.core.continuing import carried_usage, resumable, revisable
from cursorish.core.lifecycle import owner_token
from cursorish.errors import CursorishError, ExitCode
from cursorish.store.db import Store
from tests.store.test_db import _new_agent


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "store.db") as opened:
        yield opened


def _agent(store: Store, agent_id: str, state: str, **fields: Any) -> None:
    store.update_agent(_new_agent(store, agent_id), state=state, **fields)


def _refusal(call: Any, *args: Any) -> str:
    with pytest.raises(CursorishError) as info:
        call(*args)
    assert info.value.exit_code == ExitCode.BAD_ARGS
    return info.value.message


def _not_running(agent_id: str) -> bool:
    return False


def test_resumable_states_and_refusals(store: Store) -> None:
    _agent(store, "aaa111", "cancelled")
    _agent(store, "bbb222", "done")
    _agent(store, "ccc333", "failed", discarded_at="2026-01-01T00:00:00")
    pid, start = owner_token()
    _agent(store, "ddd444", "planning", pid=pid, owner_start=start)  # running, owner alive
    _agent(store, "eee555", "planning", pid=0)  # its owner is gone: interrupted
    assert resumable(store, "aaa")["id"] == "aaa111"  # a prefix will do
    assert resumable(store, "eee555")["id"] == "eee555"
    assert _refusal(resumable, store, "bbb222") == (
        "agent bbb222 is done; only an interrupted, cancelled, failed or out-of-budget agent "
        "can be resumed"
    )
    assert _refusal(resumable, store, "ddd444").startswith("agent ddd444 is planning;")
    assert _refusal(resumable, store, "ccc333") == "agent ccc333 was discarded"


def test_revisable_needs_feedback_an_end_and_a_transcript(store: Store) -> None:
    _agent(store, "aaa111", "done")
    _agent(store, "bbb222", "gave_up")
    store.add_message("aaa111", {"role": "user", "content": "fix it"})
    row, stored = revisable(store, "aaa111", "also the docs", _not_running)
    assert row["id"] == "aaa111" and stored == [{"role": "user", "content": "fix it"}]
    assert _refusal(revisable, store, "aaa111", "  ", _not_running) == (
        "no feedback to send to agent aaa111"
    )
    assert _refusal(revisable, store, "aaa111", "more", lambda agent: agent == "aaa111") == (
        "agent aaa111 is still running (done); revise it once it ends"
    )
    assert "never talked to its planner" in _refusal(
        revisable, store, "bbb222", "more", _not_running
    )


def test_a_resume_carries_the_stored_usage_over(store: Store) -> None:
    _agent(
        store,
        "aaa111",
        "budget_exhausted",
        prompt_tokens=120,
        completion_tokens=30,
        cost_usd=0.25,
        tests_run=3,
        tests_passed=2,
    )
    row = resumable(store, "aaa111")
    prior = carried_usage(row)
    assert (prior.prompt_tokens, prior.completion_tokens, prior.cost_usd) == (120, 30, 0.25)
    assert (prior.tests_run, prior.tests_passed, prior.status) == (3, 2, "failed")
