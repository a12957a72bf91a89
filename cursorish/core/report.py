"""What one agent run did (`AgentReport`): the orchestrator fills it in as the agent goes, the
front ends print it (the headless summary, `--json`) and map it to an exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cursorish.core.states import AgentState
from cursorish.errors import ExitCode

if TYPE_CHECKING:
    from cursorish.core.agent import AgentOutcome


@dataclass
class AgentReport:
    """What one agent did, as the headless summary and `--json` print it."""

    agent_id: str
    task: str
    branch: str
    worktree: str
    base_commit: str
    status: str
    summary: str = ""
    error: str = ""
    commit: str | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    elapsed_s: float = 0.0
    tests_run: int = 0
    tests_passed: int = 0
    budget: str = ""  # which budget ran out
    worktree_s: float = 0.0  # time to create and provision the worktree
    worktree_failed: bool = False  # it failed because its worktree could not be prepared
    base_ref: str = ""  # the --base the user gave ("": the HEAD of the time)
    plan: str = ""  # plan-first mode: the plan it ended with
    crashed: bool = False  # it ended on an internal error (a bug; the traceback is saved)

    def take(self, outcome: AgentOutcome) -> None:
        """Copy what the agent loop ended with (status, summary, usage, tests)."""
        self.status, self.summary, self.error = outcome.status, outcome.summary, outcome.error
        self.steps, self.budget = outcome.steps, outcome.budget
        self.prompt_tokens = outcome.prompt_tokens
        self.completion_tokens = outcome.completion_tokens
        self.cost_usd = outcome.cost_usd
        self.tests_run, self.tests_passed = outcome.tests_run, outcome.tests_passed

    @property
    def exit_code(self) -> ExitCode:
        if self.crashed:
            return ExitCode.INTERNAL
        by_state: dict[str, ExitCode] = {
            AgentState.DONE: ExitCode.OK,
            AgentState.GAVE_UP: ExitCode.AGENT_GAVE_UP,
            AgentState.BUDGET_EXHAUSTED: ExitCode.BUDGET_EXHAUSTED,
            AgentState.CANCELLED: ExitCode.INTERRUPTED,
        }
        failed = ExitCode.WORKTREE if self.worktree_failed else ExitCode.PLANNER_FAILED
        return by_state.get(self.status, failed)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent_id,
            "task": self.task,
            "status": self.status,
            "branch": self.branch,
            "worktree": self.worktree,
            "base_commit": self.base_commit,
            "base_ref": self.base_ref or None,
            "plan": self.plan or None,
            "commit": self.commit,
            "files": self.files,
            "added": sum(f.get("added") or 0 for f in self.files),
            "removed": sum(f.get("deleted") or 0 for f in self.files),
            "steps": self.steps,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "elapsed_s": round(self.elapsed_s, 2),
            "tests_run": self.tests_run,
            "tests_passed": self.tests_passed,
            "budget": self.budget,
            "summary": self.summary,
            "error": self.error,
            "exit_code": int(self.exit_code),
        }
