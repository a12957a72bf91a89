"""Continuing an agent that has ended: which agents may be resumed or revised (with the
precise reason when not), and what a resumed agent carries over from its stored row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cursorish.core.agent import FAILED, AgentOutcome
from cursorish.core.lifecycle import ENDED_STATES, RESUMABLE_STATES, find_agent, is_interrupted
from cursorish.errors import CursorishError, ExitCode
from cursorish.store.db import Store

Row = dict[str, Any]


def resumable(store: Store, agent_id: str) -> Row:
    """The row of the agent `agent_id` (a prefix will do) if it can be resumed."""
    row = find_agent(store, agent_id)
    agent_id = row["id"]
    if row["state"] not in RESUMABLE_STATES and not is_interrupted(row):
        raise CursorishError(
            f"agent {agent_id} is {row['state']}; only an interrupted, cancelled, failed "
            "or out-of-budget agent can be resumed",
            ExitCode.BAD_ARGS,
        )
    if row.get("discarded_at"):
        raise CursorishError(f"agent {agent_id} was discarded", ExitCode.BAD_ARGS)
    return row


def revisable(
    store: Store, agent_id: str, feedback: str, running: Callable[[str], bool]
) -> tuple[Row, list[dict[str, Any]]]:
    """The row and stored transcript of an ended agent that can take review `feedback`;
    `running(id)`: whether this process still runs that agent."""
    row = find_agent(store, agent_id)
    agent_id = row["id"]
    if not feedback.strip():
        raise CursorishError(f"no feedback to send to agent {agent_id}", ExitCode.BAD_ARGS)
    if row.get("discarded_at"):
        raise CursorishError(f"agent {agent_id} was discarded", ExitCode.BAD_ARGS)
    if running(agent_id) or (row["state"] not in ENDED_STATES and not is_interrupted(row)):
        raise CursorishError(
            f"agent {agent_id} is still running ({row['state']}); revise it once it ends",
            ExitCode.BAD_ARGS,
        )
    stored = store.messages(agent_id)
    if not stored:
        raise CursorishError(
            f"agent {agent_id} never talked to its planner: there is no transcript to "
            "continue (run the task again)",
            ExitCode.BAD_ARGS,
        )
    return row, stored


def carried_usage(row: Row) -> AgentOutcome:
    """A resumed agent's outcome so far: its usage and test counts go on from the row's."""
    return AgentOutcome(
        status=FAILED,
        prompt_tokens=int(row["prompt_tokens"] or 0),
        completion_tokens=int(row["completion_tokens"] or 0),
        cost_usd=float(row["cost_usd"] or 0.0),
        tests_run=int(row.get("tests_run") or 0),
        tests_passed=int(row.get("tests_passed") or 0),
    )
