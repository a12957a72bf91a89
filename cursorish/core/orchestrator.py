"""The orchestrator: runs agents concurrently (asyncio), each in its own worktree and branch.

It owns an agent's life from queued to committed and wires the parts that do the work: the
briefing of a new agent (core/briefing.py), its worktree prepared in the background
(core/worktree_prep.py), the agent loop, checkpoints and the final commit on its branch
(gitops/agent_branch.py), cancels from signals and other processes (core/cancel_watch.py),
resume and revise, and the report the front ends print (core/report.py). It never touches the
user's checkout.

Crash safety. The orchestrator creates an agent's task and row (with this process's pid and
start time as its owner) and from then on only emits events: the store recorder
(core/recorder.py), subscribed first and synchronously, writes every state change as it
happens, before any front end sees it. After every tool call that changed a file, the
worktree is committed on the agent branch as a *checkpoint*; when the agent ends (any end
state: done, failed, cancelled, out of budget) the trailing checkpoints are squashed, in the
agent's worktree only (`git reset --soft` + commit), into one final commit carrying the task,
the summary and the status. So a `kill -9` loses at most the edit being written, the branch
shows one commit per run once it ends, and `resume` continues in the same worktree and branch.
Agent commits go through a private index file (`agent_commits.agent_index_env`): the worktree's
real index belongs to review (base + what the user accepted) and stays at the base otherwise.

Nothing blocking runs on the event loop for long: git, provisioning and tools run in threads
(`in_thread`, a pool sized for eight busy agents); the recorder's store writes are short WAL
transactions.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cursorish.core import cpu_slots
from cursorish.core import events as ev
from cursorish.core.agent import (
    CANCELLED,
    DONE,
    FAILED,
    FINAL_STATES,
    GAVE_UP,
    Agent,
    AgentOutcome,
    in_thread,
)
from cursorish.core.briefing import Briefing, read_briefing, repo_map_maker
from cursorish.core.cancel_watch import watched
from cursorish.core.command_runner import WITH_NETWORK, Approval
from cursorish.core.continuing import carried_usage, resumable, revisable
from cursorish.core.conversation import PLAN_INSTRUCTIONS, current_worktree, extract_plan
from cursorish.core.events import EventSink
from cursorish.core.profiles import Budgets, Profile
from cursorish.core.recorder import recorded
from cursorish.core.report import AgentReport
from cursorish.core.sandbox import SandboxPolicy
from cursorish.core.settle import finish, settled
from cursorish.core.states import AgentState
from cursorish.core.tools import REGISTRY, ToolBox, ToolContext
from cursorish.core.workspace import WorkspaceGate
from cursorish.core.worktree_prep import WorktreePrep, allocate_agent
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.agent_branch import (
    commit_checkpoint,
    file_stats,
    final_message,
    finalize_branch,
    reattach_worktree,
)
from cursorish.gitops.repo import RepoInfo
from cursorish.planner.client import Planner, PlannerSettings
from cursorish.store.db import Store


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
    expose_local_files: tuple[str, ...] = ()  # provisioned local files the planner may read
    # The OS sandbox of every process an agent starts (core/sandbox.py).
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    # MCP servers (cursorish/mcp.config.ServerSpec) the profile may offer; front ends read
    # them from the user's and the repository's files (core/settings.build_settings).
    mcp_servers: tuple[Any, ...] = ()


class Orchestrator:
    """Runs tasks as agents with a concurrency limit; every state change is an event
    (the store recorder, subscribed first, writes it)."""

    def __init__(
        self,
        repo: RepoInfo,
        store: Store,
        settings: RunSettings,
        emit: EventSink,
        planner_factory: Callable[[PlannerSettings], Planner] = Planner,
        *,
        provision_spec: Any = None,
        handle_signals: bool = True,
        ask: Callable[[str, str], Approval] | None = None,
        semaphore: asyncio.Semaphore | None = None,
    ) -> None:
        from cursorish.core.lifecycle import owner_token

        self.repo = repo
        self.store = store
        self.settings = settings
        # Every event is stored (core/recorder.py) before the front end's sink sees it.
        self.emit = recorded(store, emit)
        self.planner_factory = planner_factory
        self.provision_spec = provision_spec  # ProvisionSpec; None: load from the repo
        self.handle_signals = handle_signals
        # The TUI's answer to an agent's `ask` request to run a command: (agent id, command)
        # -> allowed. Called from the tool's worker thread, so it may block for the answer.
        self.ask = ask
        self.signalled = False  # SIGINT/SIGTERM arrived: every agent was cancelled
        # Several orchestrators (one per profile in the app) may share one concurrency limit.
        self._semaphore = semaphore or asyncio.Semaphore(max(1, settings.concurrency))
        self._tasks: dict[str, asyncio.Task[AgentReport]] = {}
        self._agents: dict[str, Agent] = {}
        self._cancelled: set[str] = set()
        self._pid, self._start = owner_token()

    # -- public ------------------------------------------------------------------------------

    async def run(
        self,
        tasks: list[str],
        *,
        repo: RepoInfo | None = None,
        base: str | None = None,
        plan: bool = False,
    ) -> list[AgentReport]:
        """Run one agent per task (the same text repeated gives best-of-N) and report each.

        `repo`: the repository as of now (a long-lived front end re-reads HEAD per run).
        `base`: the commit-ish to start from (default: HEAD), stored as the agent's base.
        `plan`: plan first (core/conversation.py): read-only tools, ends with a stored plan."""
        if repo is not None:
            self.repo = repo
        if base is not None:
            from cursorish.core.base_ref import resolve_base

            base_ref: str | None = base
            base = resolve_base(self.repo.root, base)
        else:
            base_ref, base = None, self.repo.head_commit
        jobs: list[tuple[str, str, Path, str]] = []
        task_ids: dict[str, int] = {}
        for text in tasks:
            if text not in task_ids:
                task_ids[text] = self.store.create_task(text, str(self.repo.root))
            agent_id, dest, branch = allocate_agent(self.store, self.repo)
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
            self.store.update_agent(
                agent_id,
                pid=self._pid,
                owner_start=self._start,
                base_ref=base_ref,
                plan_mode=int(plan),
            )
            self.emit(ev.Queued(agent_id, text, branch, base, base_ref))
            jobs.append((agent_id, text, dest, branch))
        if (self.repo.root / ".gitmodules").is_file():
            self.emit(
                ev.Notice(
                    None,
                    "this repository has submodules: agent worktrees do not check them out "
                    "(their directories are empty there)",
                )
            )
        # What every new agent's first planner turn gets (files, project instructions), read
        # once from the base commit, so that turn need not wait for any checkout.
        briefing: asyncio.Future[Briefing] = in_thread(
            read_briefing, self.repo.root, base, self.provision_spec
        )
        for agent_id, text, dest, branch in jobs:
            self._tasks[agent_id] = asyncio.create_task(
                self._slot(
                    AgentReport(
                        agent_id, text, branch, str(dest), base, FAILED, base_ref=base_ref or ""
                    ),
                    branch,
                    briefing=briefing,
                )
            )
        return await self._supervise([self._tasks[a] for a, *_ in jobs])

    async def resume(self, agent_id: str) -> AgentReport:
        """Continue an interrupted (or cancelled, failed, out-of-budget) agent from its
        transcript, in its own worktree and branch, then commit."""
        row = resumable(self.store, agent_id)
        agent_id = row["id"]
        text = self.store.task_text(row)
        dest = Path(row["worktree"])
        await self._take_over(agent_id, dest, row["branch"])
        report = AgentReport(agent_id, text, row["branch"], str(dest), row["base_commit"], FAILED)
        prior = carried_usage(row)
        self._tasks[agent_id] = asyncio.create_task(
            self._slot(report, row["branch"], resume=self.store.messages(agent_id), prior=prior)
        )
        (result,) = await self._supervise([self._tasks[agent_id]])
        return result

    async def revise(self, agent_id: str, feedback: str) -> AgentReport:
        """Continue an agent that has ended (done, gave up, failed, cancelled, out of budget or
        interrupted) with the user's review `feedback` (`ReviewSession.feedback()`) appended to
        its stored transcript as a user message, in its worktree and on its branch.

        Its commits go through the private index like every agent commit, so what it changes
        shows up in review as new pending hunks; the trailing checkpoints are squashed into one
        commit for the revision. When the agent's own worktree is gone but the branch is being
        reviewed in a review worktree, the agent works there (the one the user looks at).
        Token, cost and time budgets start afresh; the step count continues from the
        transcript.
        """
        from cursorish.core.agent import _drop_dangling_tool_calls

        row, stored = revisable(self.store, agent_id, feedback, self._running)
        agent_id = row["id"]
        text = self.store.task_text(row)
        # Its own worktree, or the review worktree of its branch when only that exists.
        dest = current_worktree(self.store, row) or Path(row["worktree"])
        await self._take_over(agent_id, dest, row["branch"], worktree=str(dest))
        messages = _drop_dangling_tool_calls(stored)
        messages.append({"role": "user", "content": feedback})
        self.emit(ev.Revising(agent_id, feedback, messages=tuple(messages[len(stored) :])))
        report = AgentReport(agent_id, text, row["branch"], str(dest), row["base_commit"], FAILED)
        self._tasks[agent_id] = asyncio.create_task(
            self._slot(report, row["branch"], resume=messages)
        )
        (result,) = await self._supervise([self._tasks[agent_id]])
        return result

    async def _take_over(
        self, agent_id: str, dest: Path, branch: str, *, worktree: str | None = None
    ) -> None:
        """Re-attach an ended agent's worktree and make this process its owner again."""
        await in_thread(reattach_worktree, self.repo.root, dest, branch, agent_id)
        self.emit(ev.TakenOver(agent_id, self._pid, self._start, worktree))

    def _running(self, agent_id: str) -> bool:
        task = self._tasks.get(agent_id)
        return task is not None and not task.done()

    def cancel(self, agent_id: str) -> bool:
        """Cancel one running or queued agent of this process; False if it is not ours."""
        task = self._tasks.get(agent_id)
        if task is None or task.done() or agent_id in self._cancelled:
            return False
        self._cancelled.add(agent_id)
        agent = self._agents.get(agent_id)
        if agent is not None:
            agent.tools.ctx.cancel.set()  # a running command's process group is killed
        self.emit(ev.Cancelling(agent_id))
        task.cancel()
        return True

    def cancel_all(self) -> None:
        for agent_id in list(self._tasks):
            self.cancel(agent_id)

    # -- supervision -------------------------------------------------------------------------

    async def _supervise(self, tasks: list[asyncio.Task[AgentReport]]) -> list[AgentReport]:
        return await watched(
            tasks,
            on_interrupt=self._on_interrupt,
            check_requests=self._check_cancel_requests,
            handle_signals=self.handle_signals,
        )

    def _on_interrupt(self) -> None:
        if self.signalled:
            # A second Ctrl-C: stop now. Checkpoints are on the branches; the agents show
            # as interrupted and can be resumed.
            os._exit(int(ExitCode.INTERRUPTED))
        self.signalled = True
        self.emit(ev.Notice(None, "cancelling all agents (again to force)"))
        self.cancel_all()

    def _check_cancel_requests(self) -> None:
        for agent_id, task in list(self._tasks.items()):
            if task.done() or agent_id in self._cancelled:
                continue
            row = self.store.agent(agent_id)
            if row is not None and row.get("cancel_requested"):
                self.cancel(agent_id)

    def _cancel_flag(self, agent_id: str) -> Callable[[], bool]:
        def requested() -> bool:
            if agent_id in self._cancelled:
                return True
            row = self.store.agent(agent_id)
            return bool(row and row.get("cancel_requested"))

        return requested

    # -- one agent ---------------------------------------------------------------------------

    async def _slot(
        self,
        report: AgentReport,
        branch: str,
        *,
        resume: list[dict[str, Any]] | None = None,
        prior: AgentOutcome | None = None,
        briefing: asyncio.Future[Briefing] | None = None,
    ) -> AgentReport:
        report.branch = branch
        agent_id = report.agent_id
        started = time.monotonic()
        try:
            async with self._semaphore:
                if briefing is not None:
                    await self._start_agent(report, briefing)
                else:
                    await self._resume_agent(report, resume or [], prior)
        except asyncio.CancelledError:
            # Cancelled while queued or setting up (the agent loop records its own cancel).
            report.status, report.error = CANCELLED, report.error or "cancelled"
            row = self.store.agent(agent_id)
            if row is not None and row["state"] not in FINAL_STATES:
                self.emit(ev.AgentFinished(agent_id, AgentState.CANCELLED))
        finally:
            report.elapsed_s = time.monotonic() - started
            self._agents.pop(agent_id, None)
        task = asyncio.current_task()
        if task is not None:
            while task.cancelling():
                task.uncancel()
        return report

    async def _start_agent(self, report: AgentReport, briefing: asyncio.Future[Briefing]) -> None:
        """A new agent: its planner starts on the task while its worktree is being prepared."""
        agent_id = report.agent_id
        self.emit(ev.Starting(agent_id))
        try:
            overview, instructions = await asyncio.shield(briefing)
        except CursorishError as exc:
            self._fail(report, f"cannot read the base commit {report.base_commit}: {exc.message}")
            return
        system = self.settings.profile.system_prompt
        if instructions:
            system += f"\n\n# Project instructions\n{instructions}"
        gate = WorkspaceGate()
        agent = self._make_agent(agent_id, report.task, Path(report.worktree), system, gate)
        agent.repo_map = repo_map_maker(
            self.repo.root, report.base_commit, report.task, self.settings.profile.repo_map_tokens
        )
        agent.context = overview
        cancel = agent.tools.ctx.cancel
        preparing = asyncio.create_task(self._prep().prepare(report, gate, cancel))
        await self._drive(report, agent, preparing)

    async def _resume_agent(
        self, report: AgentReport, messages: list[dict[str, Any]], prior: AgentOutcome | None
    ) -> None:
        """An agent continuing its transcript in its existing worktree."""
        agent_id = report.agent_id
        self.emit(ev.Starting(agent_id))
        row = self.store.agent(agent_id)
        preparing: asyncio.Task[None] | None = None
        gate: WorkspaceGate | None = None
        if row is not None and not row.get("provisioned_at"):
            # It never finished provisioning (cancelled or killed during setup): do it now.
            gate = WorkspaceGate()
        agent = self._make_agent(agent_id, report.task, Path(report.worktree), "", gate)
        if prior is not None:
            agent.outcome = prior
        if gate is not None:
            preparing = asyncio.create_task(
                self._prep().prepare(report, gate, agent.tools.ctx.cancel, create=False)
            )
        await self._drive(report, agent, preparing, messages)

    async def _drive(
        self,
        report: AgentReport,
        agent: Agent,
        preparing: asyncio.Task[None] | None,
        resume: list[dict[str, Any]] | None = None,
    ) -> None:
        """Run the agent to its end, then commit what reached its worktree on its branch."""
        agent_id, dest = report.agent_id, Path(report.worktree)
        self._agents[agent_id] = agent
        row = self.store.agent(agent_id) or {}
        agent.planning = bool(row.get("plan_mode"))
        if agent.planning and not resume:
            agent.context = f"{agent.context}\n\n{PLAN_INSTRUCTIONS}".strip()
        cancelled: asyncio.CancelledError | None = None
        try:
            await agent.run(resume)
        except asyncio.CancelledError as exc:
            cancelled = exc  # agent.run recorded the cancel; commit the work below
        except Exception as exc:
            from cursorish.core.crashes import save_crash_report

            where = save_crash_report(exc, what=f"agent {agent_id}: {report.task}")
            report.crashed = True
            agent.outcome.status = FAILED
            agent.outcome.error = f"internal error: {exc!r} (traceback in {where})"
            self.emit(ev.AgentFinished(agent_id, AgentState.FAILED, error=agent.outcome.error))
        agent.tools.close()  # stops its MCP servers (in the background)
        outcome = agent.outcome
        report.take(outcome)
        if preparing is not None:
            # The agent may have ended (budget, planner error, cancel) before its worktree was
            # ready: the worktree must be whole (or gone) before anything is committed.
            cancelled = await finish(preparing) or cancelled
            assert agent.workspace is not None
            error = agent.workspace.error
            if error is not None:
                report.worktree_failed = report.status == FAILED
                # It ended for another reason first (out of budget, say): say both.
                if report.status != CANCELLED and report.error != error:
                    report.error = f"{report.error}; {error}" if report.error else error
                    self.emit(ev.OutcomeRevised(agent_id, report.error))
                if cancelled is not None:
                    raise cancelled
                return  # nothing was edited: every writing tool waits for a ready worktree
        # Even a cancelled or failed agent keeps its work: commit what reached the worktree.
        message = final_message(
            report.task, agent_id, outcome.status, outcome.summary, outcome.error
        )
        finalize = functools.partial(finalize_branch, hold=cpu_slots.TOOL_SLOTS.held)
        try:
            report.commit = await settled(finalize, dest, report.base_commit, message)
            report.files = await settled(file_stats, dest, report.base_commit)
        except asyncio.CancelledError:
            pass  # the commit itself finished (settled waits for it)
        except CursorishError as exc:
            report.error = (report.error + "; " if report.error else "") + (
                f"could not commit: {exc.message}"
            )
        if agent.planning and report.status == DONE:
            report.plan = extract_plan(outcome.summary)
            self.emit(ev.Plan(agent_id, report.plan))
        elif report.status == DONE and not report.files:
            report.status = GAVE_UP
            report.error = "the agent finished without changing any file"
            self.emit(ev.OutcomeRevised(agent_id, report.error, AgentState.GAVE_UP))
        self.emit(ev.Committed(agent_id, report.commit, report.branch))
        if cancelled is not None:
            raise cancelled

    def _prep(self) -> WorktreePrep:
        """What prepares a worktree in this run (the repository as of this run)."""
        return WorktreePrep(self.repo, self.provision_spec, self.settings.sandbox, self.emit)

    def _fail(self, report: AgentReport, error: str) -> None:
        report.status, report.error = FAILED, error
        self.emit(ev.AgentFinished(report.agent_id, AgentState.FAILED, error=error))

    def _ask(self, agent_id: str, command: str) -> Approval:
        assert self.ask is not None
        self.emit(ev.Asking(agent_id, command))
        answer = self.ask(agent_id, command)
        self.emit(ev.Answered(agent_id, command, bool(answer), answer == WITH_NETWORK))
        return answer

    def _make_agent(
        self, agent_id: str, task: str, dest: Path, system: str, gate: WorkspaceGate | None
    ) -> Agent:
        s = self.settings
        ctx = ToolContext(
            root=dest,
            agent_id=agent_id,
            apply_engine=s.apply_engine,
            command_policy=s.command_policy,
            command_allowlist=s.command_allowlist,
            command_timeout_s=s.command_timeout_s,
            expose_local_files=s.expose_local_files,
            sandbox=s.sandbox,
            repo_root=self.repo.root,
            emit=self.emit,
            ask=None if self.ask is None else (lambda command: self._ask(agent_id, command)),
        )

        async def checkpoint(tool: str, path: str) -> None:
            sha = await settled(cpu_slots.TOOL_SLOTS.run(commit_checkpoint), dest, tool, path)
            if sha:
                self.emit(ev.Checkpoint(agent_id, sha, path))

        return Agent(
            agent_id=agent_id,
            task=task,
            system_prompt=system,
            planner=self.planner_factory(s.planner),
            tools=ToolBox(ctx, s.profile.tools, REGISTRY.providers_for(ctx, s)),
            store=self.store,
            budgets=s.budgets,
            emit=self.emit,
            cancel_requested=self._cancel_flag(agent_id),
            checkpoint=checkpoint,
            workspace=gate,
        )
