"""The orchestrator: runs agents concurrently (asyncio), each in its own worktree and branch.

It owns an agent's life from queued to committed: worktree creation and provisioning, the agent
loop, the final commit on the agent branch, and the report the front ends print. It never
touches the user's checkout.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cursorish.core.agent import BUDGET, CANCELLED, DONE, FAILED, GAVE_UP, Agent, AgentOutcome
from cursorish.core.events import Event, EventSink
from cursorish.core.profiles import Budgets, Profile, project_instructions
from cursorish.core.tools import ToolBox, ToolContext
from cursorish.errors import ExitCode
from cursorish.gitops.repo import RepoInfo
from cursorish.planner.client import Planner, PlannerSettings
from cursorish.store.db import Store, now


@dataclass(frozen=True)
class RunSettings:
    """Everything an agent run needs besides its task text."""

    planner: PlannerSettings
    profile: Profile
    budgets: Budgets
    apply_engine: str = "auto"
    command_policy: str = "allowlist"
    command_allowlist: tuple[str, ...] = ()
    command_timeout_s: float = 120.0
    concurrency: int = 8


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

    @property
    def exit_code(self) -> ExitCode:
        return {
            DONE: ExitCode.OK,
            GAVE_UP: ExitCode.AGENT_GAVE_UP,
            BUDGET: ExitCode.BUDGET_EXHAUSTED,
            CANCELLED: ExitCode.INTERRUPTED,
        }.get(self.status, ExitCode.PLANNER_FAILED)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent_id,
            "task": self.task,
            "status": self.status,
            "branch": self.branch,
            "worktree": self.worktree,
            "base_commit": self.base_commit,
            "commit": self.commit,
            "files": self.files,
            "added": sum(f.get("added") or 0 for f in self.files),
            "removed": sum(f.get("deleted") or 0 for f in self.files),
            "steps": self.steps,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "elapsed_s": round(self.elapsed_s, 2),
            "summary": self.summary,
            "error": self.error,
            "exit_code": int(self.exit_code),
        }


def repo_overview(files: list[str], limit: int = 200) -> str:
    shown = "\n".join(files[:limit])
    more = f"\n... and {len(files) - limit} more files" if len(files) > limit else ""
    return f"Repository files ({len(files)}):\n{shown}{more}"


class Orchestrator:
    """Runs tasks as agents with a concurrency limit; every state change goes to the store."""

    def __init__(
        self,
        repo: RepoInfo,
        store: Store,
        settings: RunSettings,
        emit: EventSink,
        planner_factory: Callable[[PlannerSettings], Planner] = Planner,
    ) -> None:
        self.repo = repo
        self.store = store
        self.settings = settings
        self.emit = emit
        self.planner_factory = planner_factory
        self._semaphore = asyncio.Semaphore(max(1, settings.concurrency))

    async def run(self, tasks: list[str]) -> list[AgentReport]:
        """Run one agent per task (the same text repeated gives best-of-N) and report each."""
        from cursorish.gitops.worktrees import branch_name, new_agent_id
        from cursorish.store.paths import worktrees_dir

        base = self.repo.head_commit
        slots: list[tuple[str, str, Path, str]] = []
        task_ids: dict[str, int] = {}
        for text in tasks:
            if text not in task_ids:
                task_ids[text] = self.store.create_task(text, str(self.repo.root))
            agent_id = new_agent_id()
            while self.store.agent(agent_id) is not None:
                agent_id = new_agent_id()
            dest = worktrees_dir(self.repo.git_common_dir) / agent_id
            branch = branch_name(agent_id)
            self.store.create_agent(
                agent_id=agent_id,
                task_id=task_ids[text],
                profile=self.settings.profile.name,
                branch=branch,
                worktree=str(dest),
                base_commit=base,
                planner_model=self.settings.planner.model,
                apply_engine=self.settings.apply_engine,
            )
            self.emit(Event("queued", agent_id, {"task": text, "branch": branch}))
            slots.append((agent_id, text, dest, branch))
        return list(
            await asyncio.gather(*(self._run_slot(a, t, d, b, base) for a, t, d, b in slots))
        )

    async def _run_slot(
        self, agent_id: str, task: str, dest: Path, branch: str, base: str
    ) -> AgentReport:
        async with self._semaphore:
            return await self._run_agent(agent_id, task, dest, branch, base)

    async def _run_agent(
        self, agent_id: str, task: str, dest: Path, branch: str, base: str
    ) -> AgentReport:
        from cursorish.gitops.worktrees import commit_all, create_worktree, tracked_files

        started = time.monotonic()
        report = AgentReport(agent_id, task, branch, str(dest), base, status=FAILED)
        self.store.update_agent(agent_id, state="starting", started_at=now())
        try:
            await asyncio.to_thread(
                create_worktree,
                self.repo,
                agent_id=agent_id,
                base_commit=base,
                dest=dest,
                branch=branch,
            )
        except Exception as exc:
            message = getattr(exc, "message", str(exc))
            report.error = f"cannot create worktree: {message}"
            self.store.update_agent(agent_id, state=FAILED, error=report.error, finished_at=now())
            self.emit(Event("agent_finished", agent_id, {"status": FAILED, "error": report.error}))
            return report
        self.emit(Event("worktree_ready", agent_id, {"worktree": str(dest), "branch": branch}))
        agent = self._make_agent(agent_id, task, dest)
        files = await asyncio.to_thread(tracked_files, dest)
        agent.context = _context_for(dest, files)
        outcome: AgentOutcome
        try:
            outcome = await agent.run()
        except Exception as exc:
            outcome = agent.outcome
            outcome.status, outcome.error = FAILED, f"internal error: {exc!r}"
            self.store.update_agent(agent_id, state=FAILED, error=outcome.error, finished_at=now())
            self.emit(Event("agent_finished", agent_id, {"status": FAILED, "error": outcome.error}))
        finally:
            # Even a cancelled or failed agent keeps its work: commit what reached the worktree.
            commit = await asyncio.to_thread(
                commit_all, dest, _commit_message(task, agent_id, agent.outcome)
            )
            report.commit = commit
        report.status = outcome.status
        report.summary, report.error = outcome.summary, outcome.error
        report.steps = outcome.steps
        report.prompt_tokens, report.completion_tokens = (
            outcome.prompt_tokens,
            outcome.completion_tokens,
        )
        report.cost_usd = outcome.cost_usd
        report.files = await asyncio.to_thread(self._file_stats, dest, base)
        if report.status == DONE and not report.files:
            report.status = GAVE_UP
            report.error = "the agent finished without changing any file"
            self.store.update_agent(agent_id, state=GAVE_UP, error=report.error)
        report.elapsed_s = time.monotonic() - started
        self.emit(Event("committed", agent_id, {"commit": commit, "branch": branch}))
        return report

    def _file_stats(self, dest: Path, base: str) -> list[dict[str, Any]]:
        from cursorish.gitops.diffs import diff_stats

        return [
            {"path": s.path, "added": s.added, "deleted": s.deleted, "status": s.status}
            for s in diff_stats(dest, base, "HEAD")
        ]

    def _make_agent(self, agent_id: str, task: str, dest: Path) -> Agent:
        s = self.settings
        ctx = ToolContext(
            root=dest,
            agent_id=agent_id,
            apply_engine=s.apply_engine,
            command_policy=s.command_policy,
            command_allowlist=s.command_allowlist,
            command_timeout_s=s.command_timeout_s,
            emit=self.emit,
            record_apply=lambda row: self.store.add_apply_attempt(agent_id, **row),
        )
        system = s.profile.system_prompt
        instructions = project_instructions(dest)
        if instructions:
            system += f"\n\n# Project instructions\n{instructions}"
        return Agent(
            agent_id=agent_id,
            task=task,
            system_prompt=system,
            planner=self.planner_factory(s.planner),
            tools=ToolBox(ctx, s.profile.tools),
            store=self.store,
            budgets=s.budgets,
            emit=self.emit,
        )


def _context_for(dest: Path, files: list[str]) -> str:
    return repo_overview(files)


def _commit_message(task: str, agent_id: str, outcome: AgentOutcome) -> str:
    title = task.strip().splitlines()[0] if task.strip() else "cursorish agent"
    if len(title) > 72:
        title = title[:69] + "..."
    body = outcome.summary.strip() or outcome.error.strip()
    trailer = f"Cursorish-Agent: {agent_id}\nCursorish-Status: {outcome.status}"
    return f"{title}\n\n{body}\n\n{trailer}" if body else f"{title}\n\n{trailer}"
