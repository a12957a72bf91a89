"""The states of an agent, as stored in the `agents` table and shown by every front end.

`AgentState` is a StrEnum: a member equals its string, so rows written before it existed, JSON
output and `match` on string literals all keep working.
"""

from __future__ import annotations

from enum import StrEnum


class AgentState(StrEnum):
    # While it runs (the store's `state` column follows the agent step by step).
    QUEUED = "queued"  # waiting for a concurrency slot
    STARTING = "starting"
    STARTING_TOOLS = "starting_tools"  # its MCP servers are starting
    PROVISIONING = "provisioning"  # a tool waits for the worktree to be provisioned
    PLANNING = "planning"  # waiting on the planner
    APPLYING = "applying"  # a sketch is being applied
    RUNNING_COMMAND = "running_command"
    # How it ended.
    DONE = "done"
    GAVE_UP = "gave_up"
    FAILED = "failed"
    BUDGET_EXHAUSTED = "budget_exhausted"
    CANCELLED = "cancelled"
    # Not written by the agent: its owner process died (see core/lifecycle.py).
    INTERRUPTED = "interrupted"


# Typed as the strings the store holds (AgentState members equal them).
FINAL_STATES: frozenset[str] = frozenset(
    {
        AgentState.DONE,
        AgentState.GAVE_UP,
        AgentState.FAILED,
        AgentState.BUDGET_EXHAUSTED,
        AgentState.CANCELLED,
    }
)
# After these nothing runs any more (interrupted included: it needs a resume).
ENDED_STATES: frozenset[str] = FINAL_STATES | {AgentState.INTERRUPTED}
RESUMABLE_STATES: frozenset[str] = frozenset(
    {
        AgentState.INTERRUPTED,
        AgentState.CANCELLED,
        AgentState.BUDGET_EXHAUSTED,
        AgentState.FAILED,
    }
)
