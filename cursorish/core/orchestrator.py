"""The orchestrator: runs agents concurrently (asyncio), each in its own worktree and branch.

It owns an agent's life from queued to committed: worktree creation and provisioning, the agent
loop, checkpoints, the final commit on the agent branch, cancellation, resume, and the report
the front ends print. It never touches the user's checkout.

Crash safety. Every state change is written to the store as it happens, with this process's
pid and start time as the agent's owner. After every tool call that changed a file, the
worktree is committed on the agent branch as a *checkpoint*; when the agent ends (any end
state: done, failed, cancelled, out of budget) the trailing checkpoints are squashed, in the
agent's worktree only (`git reset --soft` + commit), into one final commit carrying the task,
the summary and the status. So a `kill -9` loses at most the edit being written, the branch
shows one commit per run once it ends, and `resume` continues in the same worktree and branch.
Agent commits go through a private index file (`worktrees.agent_index_env`): the worktree's
real index belongs to review (base + what the user accepted) and stays at the base otherwise.

Nothing blocking runs on the event loop for long: git, provisioning and tools run in threads
(`in_thread`, a pool sized for eight busy agents); store writes are short WAL transactions.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cursorish.core import cpu_slots
from cursorish.core.agent import (
    BUDGET,
    CANCELLED,
    DONE,
    FAILED,
    FINAL_STATES,
    GAVE_UP,
    Agent,
    AgentOutcome,
    in_thread,
)
from cursorish.core.command_runner import WITH_NETWORK, Approval
from cursorish.core.conversation import PLAN_INSTRUCTIONS, extract_plan
from cursorish.core.events import Event, EventSink
from cursorish.core.profiles import (
    PROJECT_INSTRUCTION_FILES,
    Budgets,
    Profile,
    project_instructions,
)
from cursorish.core.sandbox import SandboxPolicy
from cursorish.core.tools import ToolBox, ToolContext
from cursorish.core.workspace import WorkspaceGate
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
from cursorish.store.db import Store, now

T = TypeVar("T")
# A new agent's first planner turn: (repository overview, project instructions).
Briefing = tuple[str, str]
CANCEL_POLL_S = 0.5


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

    @property
    def exit_code(self) -> ExitCode:
        if self.crashed:
            return ExitCode.INTERNAL
        return {
            DONE: ExitCode.OK,
            GAVE_UP: ExitCode.AGENT_GAVE_UP,
            BUDGET: ExitCode.BUDGET_EXHAUSTED,
            CANCELLED: ExitCode.INTERRUPTED,
        }.get(self.status, ExitCode.WORKTREE if self.worktree_failed else ExitCode.PLANNER_FAILED)

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


def repo_overview(files: list[str], limit: int = 200) -> str:
    shown = "\n".join(files[:limit])
    more = f"\n... and {len(files) - limit} more files" if len(files) > limit else ""
    return f"Repository files ({len(files)}):\n{shown}{more}"


async def _finish(task: asyncio.Future[Any]) -> asyncio.CancelledError | None:
    """Wait for `task` to end even if cancelled meanwhile; return that cancel, if any."""
    interrupted: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            interrupted = exc
    return interrupted


async def settled(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in a thread and wait for it to finish even if cancelled meanwhile.

    A thread cannot be stopped; returning early would let a commit or a worktree creation
    race whatever comes next. A cancel that arrives meanwhile is re-raised afterwards.
    """
    future: asyncio.Future[T] = in_thread(fn, *args)
    interrupted = await _finish(future)
    result = future.result()  # the thread's own error, if any, comes first
    if interrupted is not None:
        raise interrupted
    return result


class Orchestrator:
    """Runs tasks as agents with a concurrency limit; every state change goes to the store."""

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
        self.emit = emit
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
            agent_id, dest, branch = self._allocate()
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
            queued = {"task": text, "branch": branch, "base": base, "base_ref": base_ref}
            self.emit(Event("queued", agent_id, queued))
            jobs.append((agent_id, text, dest, branch))
        if (self.repo.root / ".gitmodules").is_file():
            self.emit(
                Event(
                    "notice",
                    None,
                    {
                        "message": "this repository has submodules: agent worktrees do not "
                        "check them out (their directories are empty there)"
                    },
                )
            )
        # What every new agent's first planner turn gets (files, project instructions), read
        # once from the base commit, so that turn need not wait for any checkout.
        briefing: asyncio.Future[Briefing] = in_thread(self._briefing, base)
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
        from cursorish.core.lifecycle import RESUMABLE_STATES, find_agent, is_interrupted

        row = find_agent(self.store, agent_id)
        agent_id = row["id"]
        if row["state"] not in RESUMABLE_STATES and not is_interrupted(row):
            raise CursorishError(
                f"agent {agent_id} is {row['state']}; only an interrupted, cancelled, failed "
                "or out-of-budget agent can be resumed",
                ExitCode.BAD_ARGS,
            )
        if row.get("discarded_at"):
            raise CursorishError(f"agent {agent_id} was discarded", ExitCode.BAD_ARGS)
        text = self.store.task_text(row)
        dest = Path(row["worktree"])
        await self._take_over(agent_id, dest, row["branch"])
        report = AgentReport(agent_id, text, row["branch"], str(dest), row["base_commit"], FAILED)
        prior = AgentOutcome(
            status=FAILED,
            prompt_tokens=int(row["prompt_tokens"] or 0),
            completion_tokens=int(row["completion_tokens"] or 0),
            cost_usd=float(row["cost_usd"] or 0.0),
            tests_run=int(row.get("tests_run") or 0),
            tests_passed=int(row.get("tests_passed") or 0),
        )
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
        from cursorish.core.lifecycle import ENDED_STATES, find_agent, is_interrupted

        row = find_agent(self.store, agent_id)
        agent_id = row["id"]
        if not feedback.strip():
            raise CursorishError(f"no feedback to send to agent {agent_id}", ExitCode.BAD_ARGS)
        if row.get("discarded_at"):
            raise CursorishError(f"agent {agent_id} was discarded", ExitCode.BAD_ARGS)
        running = self._tasks.get(agent_id)
        if (running is not None and not running.done()) or (
            row["state"] not in ENDED_STATES and not is_interrupted(row)
        ):
            raise CursorishError(
                f"agent {agent_id} is still running ({row['state']}); revise it once it ends",
                ExitCode.BAD_ARGS,
            )
        text = self.store.task_text(row)
        stored = self.store.messages(agent_id)
        if not stored:
            raise CursorishError(
                f"agent {agent_id} never talked to its planner: there is no transcript to "
                "continue (run the task again)",
                ExitCode.BAD_ARGS,
            )
        dest = self._revision_worktree(row)
        await self._take_over(agent_id, dest, row["branch"], worktree=str(dest))
        messages = _drop_dangling_tool_calls(stored)
        for message in messages[len(stored) :]:
            self.store.add_message(agent_id, message)
        note = {"role": "user", "content": feedback}
        self.store.add_message(agent_id, note)
        messages.append(note)
        self.emit(Event("revising", agent_id, {"feedback": feedback}))
        report = AgentReport(agent_id, text, row["branch"], str(dest), row["base_commit"], FAILED)
        self._tasks[agent_id] = asyncio.create_task(
            self._slot(report, row["branch"], resume=messages)
        )
        (result,) = await self._supervise([self._tasks[agent_id]])
        return result

    def _revision_worktree(self, row: dict[str, Any]) -> Path:
        """The agent's worktree, or the review worktree of its branch when only that exists."""
        from cursorish.gitops.review_git import is_worktree_on

        own = Path(row["worktree"])
        if is_worktree_on(own, row["branch"]):
            return own
        review = self.store.review(row["branch"])
        if review is not None and is_worktree_on(Path(review["worktree"]), row["branch"]):
            return Path(review["worktree"])
        return own

    async def _take_over(self, agent_id: str, dest: Path, branch: str, **fields: Any) -> None:
        """Re-attach an ended agent's worktree and make this process its owner again."""
        await in_thread(reattach_worktree, self.repo.root, dest, branch, agent_id)
        self.store.update_agent(
            agent_id,
            pid=self._pid,
            owner_start=self._start,
            cancel_requested=0,
            state="starting",
            error="",
            finished_at=None,
            **fields,
        )

    def cancel(self, agent_id: str) -> bool:
        """Cancel one running or queued agent of this process; False if it is not ours."""
        task = self._tasks.get(agent_id)
        if task is None or task.done() or agent_id in self._cancelled:
            return False
        self._cancelled.add(agent_id)
        agent = self._agents.get(agent_id)
        if agent is not None:
            agent.tools.ctx.cancel.set()  # a running command's process group is killed
        self.emit(Event("cancelling", agent_id, {}))
        task.cancel()
        return True

    def cancel_all(self) -> None:
        for agent_id in list(self._tasks):
            self.cancel(agent_id)

    # -- supervision -------------------------------------------------------------------------

    async def _supervise(self, tasks: list[asyncio.Task[AgentReport]]) -> list[AgentReport]:
        loop = asyncio.get_running_loop()
        installed = self._install_signals(loop)
        poller = asyncio.create_task(self._poll_cancel_requests())
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller
            for sig in installed:
                loop.remove_signal_handler(sig)
            if installed:
                # A late `agents cancel` must not kill this process by SIGUSR1's default action.
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(signal.SIGUSR1, signal.SIG_IGN)

    def _install_signals(self, loop: asyncio.AbstractEventLoop) -> list[int]:
        from cursorish.core.lifecycle import CANCEL_SIGNAL

        if not self.handle_signals:
            return []
        installed: list[int] = []
        handlers = {
            signal.SIGINT: self._on_interrupt,
            signal.SIGTERM: self._on_interrupt,
            CANCEL_SIGNAL: self._check_cancel_requests,
        }
        for sig, handler in handlers.items():
            try:
                loop.add_signal_handler(sig, handler)
                installed.append(sig)
            except (ValueError, RuntimeError, NotImplementedError):
                break  # not the main thread: the caller handles signals itself
        return installed

    def _on_interrupt(self) -> None:
        if self.signalled:
            # A second Ctrl-C: stop now. Checkpoints are on the branches; the agents show
            # as interrupted and can be resumed.
            os._exit(int(ExitCode.INTERRUPTED))
        self.signalled = True
        self.emit(Event("notice", None, {"message": "cancelling all agents (again to force)"}))
        self.cancel_all()

    def _check_cancel_requests(self) -> None:
        for agent_id, task in list(self._tasks.items()):
            if task.done() or agent_id in self._cancelled:
                continue
            row = self.store.agent(agent_id)
            if row is not None and row.get("cancel_requested"):
                self.cancel(agent_id)

    async def _poll_cancel_requests(self) -> None:
        while True:
            await asyncio.sleep(CANCEL_POLL_S)
            with contextlib.suppress(Exception):
                self._check_cancel_requests()

    def _cancel_flag(self, agent_id: str) -> Callable[[], bool]:
        def requested() -> bool:
            if agent_id in self._cancelled:
                return True
            row = self.store.agent(agent_id)
            return bool(row and row.get("cancel_requested"))

        return requested

    # -- one agent ---------------------------------------------------------------------------

    def _allocate(self) -> tuple[str, Path, str]:
        """A fresh agent id whose row, branch and worktree directory are all unused."""
        from cursorish.gitops.repo import branch_exists
        from cursorish.gitops.worktrees import branch_name, new_agent_id
        from cursorish.store.paths import worktrees_dir

        parent = worktrees_dir(self.repo.git_common_dir)
        while True:
            agent_id = new_agent_id()
            dest, branch = parent / agent_id, branch_name(agent_id)
            if (
                self.store.agent(agent_id) is None
                and not dest.exists()
                and not branch_exists(self.repo.root, branch)
            ):
                return agent_id, dest, branch

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
                self.store.update_agent(
                    agent_id,
                    state=CANCELLED,
                    error="cancelled",
                    exit_reason=CANCELLED,
                    finished_at=now(),
                )
                self.emit(Event("agent_finished", agent_id, {"status": CANCELLED}))
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
        self.store.update_agent(agent_id, state="starting", started_at=now())
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
        agent.repo_map = _repo_map_maker(
            self.repo.root, report.base_commit, report.task, self.settings.profile.repo_map_tokens
        )
        agent.context = overview
        cancel = agent.tools.ctx.cancel
        preparing = asyncio.create_task(self._prepare_worktree(report, gate, cancel))
        await self._drive(report, agent, preparing)

    async def _resume_agent(
        self, report: AgentReport, messages: list[dict[str, Any]], prior: AgentOutcome | None
    ) -> None:
        """An agent continuing its transcript in its existing worktree."""
        agent_id = report.agent_id
        self.store.update_agent(agent_id, state="starting", started_at=now())
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
                self._prepare_worktree(report, gate, agent.tools.ctx.cancel, create=False)
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
            self.store.update_agent(
                agent_id, state=FAILED, error=agent.outcome.error, finished_at=now()
            )
            self.emit(
                Event("agent_finished", agent_id, {"status": FAILED, "error": agent.outcome.error})
            )
        agent.tools.close()  # stops its MCP servers (in the background)
        outcome = agent.outcome
        report.status, report.summary, report.error = outcome.status, outcome.summary, outcome.error
        report.steps, report.budget = outcome.steps, outcome.budget
        report.prompt_tokens, report.completion_tokens = (
            outcome.prompt_tokens,
            outcome.completion_tokens,
        )
        report.cost_usd = outcome.cost_usd
        report.tests_run, report.tests_passed = outcome.tests_run, outcome.tests_passed
        if preparing is not None:
            # The agent may have ended (budget, planner error, cancel) before its worktree was
            # ready: the worktree must be whole (or gone) before anything is committed.
            cancelled = await _finish(preparing) or cancelled
            assert agent.workspace is not None
            error = agent.workspace.error
            if error is not None:
                report.worktree_failed = report.status == FAILED
                # It ended for another reason first (out of budget, say): say both.
                if report.status != CANCELLED and report.error != error:
                    report.error = f"{report.error}; {error}" if report.error else error
                    self.store.update_agent(agent_id, error=report.error)
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
            self.store.update_agent(agent_id, plan=report.plan)
            self.emit(Event("plan", agent_id, {"plan": report.plan}))
        elif report.status == DONE and not report.files:
            report.status = GAVE_UP
            report.error = "the agent finished without changing any file"
            self.store.update_agent(agent_id, state=GAVE_UP, error=report.error)
        self.emit(Event("committed", agent_id, {"commit": report.commit, "branch": report.branch}))
        if cancelled is not None:
            raise cancelled

    def _briefing(self, base: str) -> Briefing:
        """The repository overview and project instructions a new agent at `base` gets."""
        from cursorish.core.provision import load_spec, local_files_to_copy
        from cursorish.gitops.trees import files_at, regular_files_at

        root = self.repo.root
        overview = repo_overview(files_at(root, base))
        texts = regular_files_at(root, base, PROJECT_INSTRUCTION_FILES)
        # A git-ignored instruction file (a personal CLAUDE.md) counts when provisioning
        # copies it into the worktree, as the agent then sees it there.
        local = [n for n in PROJECT_INSTRUCTION_FILES if n not in texts and (root / n).exists()]
        if local:
            with contextlib.suppress(CursorishError):  # a bad spec is reported by provisioning
                spec = self.provision_spec or load_spec(root)
                copied, _ = local_files_to_copy(root, spec.copy)
                for name in local:
                    if name in copied:
                        texts[name] = (root / name).read_bytes()
        return overview, project_instructions(texts)

    async def _prepare_worktree(
        self,
        report: AgentReport,
        gate: WorkspaceGate,
        cancel: threading.Event,
        *,
        create: bool = True,
    ) -> None:
        """Create (unless resuming) and provision the worktree, opening the gate's stages;
        a failure is recorded and fails the gate, which ends the agent with the reason."""
        try:
            await self._prepare_stages(report, gate, cancel, create=create)
        except Exception as exc:
            from cursorish.core.crashes import save_crash_report

            where = save_crash_report(exc, what=f"agent {report.agent_id}: preparing its worktree")
            report.crashed = True
            gate.fail(f"internal error preparing the worktree: {exc!r} (traceback in {where})")
        finally:
            # Whatever happened, no tool may wait for a stage that will never come.
            gate.fail("the worktree was not prepared")

    async def _prepare_stages(
        self,
        report: AgentReport,
        gate: WorkspaceGate,
        cancel: threading.Event,
        *,
        create: bool,
    ) -> None:
        from cursorish.core.provision import (
            ProvisionResult,
            SetupFailed,
            copy_ignored_files,
            load_spec,
            run_setup_step,
        )

        agent_id, dest = report.agent_id, Path(report.worktree)
        t0 = time.monotonic()
        if create:
            try:
                await settled(
                    self._create_worktree, agent_id, dest, report.branch, report.base_commit
                )
            except CursorishError as exc:
                gate.fail(f"cannot create the worktree: {exc.message}")
                return
            self.emit(
                Event("worktree_ready", agent_id, {"worktree": str(dest), "branch": report.branch})
            )
        result = ProvisionResult()
        try:
            spec = self.provision_spec or await in_thread(load_spec, self.repo.root)
            result.copied, result.skipped = await settled(
                copy_ignored_files, self.repo.root, dest, spec.copy
            )
            gate.mark_checked_out()
            await settled(
                functools.partial(
                    run_setup_step,
                    sandbox=self.settings.sandbox,
                    repo_root=self.repo.root,
                ),
                dest,
                spec,
                result,
                cancel,
            )
        except SetupFailed as exc:
            setup = exc.result.setup
            self.store.update_agent(agent_id, setup_output=setup.output if setup else "")
            gate.fail(exc.message)
            return
        except CursorishError as exc:
            gate.fail(f"cannot provision the worktree: {exc.message}")
            return
        except OSError as exc:
            gate.fail(f"cannot provision the worktree: {exc}")
            return
        fields: dict[str, Any] = {"provisioned_at": now()}
        if result.setup is not None:
            fields["setup_output"] = result.setup.output
        self.store.update_agent(agent_id, **fields)
        report.worktree_s = time.monotonic() - t0
        gate.mark_provisioned()
        self.emit(
            Event(
                "provisioned",
                agent_id,
                {
                    "copied": result.copied,
                    "setup_exit": result.setup.exit_code if result.setup else None,
                },
            )
        )

    def _fail(self, report: AgentReport, error: str) -> None:
        report.status, report.error = FAILED, error
        self.store.update_agent(
            report.agent_id, state=FAILED, error=error, exit_reason=FAILED, finished_at=now()
        )
        self.emit(Event("agent_finished", report.agent_id, {"status": FAILED, "error": error}))

    def _create_worktree(self, agent_id: str, dest: Path, branch: str, base: str) -> None:
        """Create the agent's worktree; a failure half-way leaves nothing behind."""
        from cursorish.core import cpu_slots
        from cursorish.gitops.worktrees import create_worktree

        with cpu_slots.CHECKOUT_SLOTS.held():
            create_worktree(
                self.repo, agent_id=agent_id, base_commit=base, dest=dest, branch=branch
            )

    def _ask(self, agent_id: str, command: str) -> Approval:
        assert self.ask is not None
        self.emit(Event("asking", agent_id, {"command": command}))
        answer = self.ask(agent_id, command)
        data = {"command": command, "allowed": bool(answer), "network": answer == WITH_NETWORK}
        self.emit(Event("answered", agent_id, data))
        return answer

    def _dynamic_tools(self, ctx: ToolContext) -> tuple[Any, ...]:
        """The MCP tools the profile selects, when any server is configured."""
        profile = self.settings.profile
        if not profile.mcp_allow or not self.settings.mcp_servers:
            return ()
        from cursorish.mcp.tools import mcp_tools_for

        found = mcp_tools_for(
            ctx, list(self.settings.mcp_servers), profile.mcp_allow, profile.mcp_deny
        )
        return () if found is None else (found,)

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
            record_apply=lambda row: self.store.add_apply_attempt(agent_id, **row),
            ask=None if self.ask is None else (lambda command: self._ask(agent_id, command)),
        )

        async def checkpoint(tool: str, path: str) -> None:
            sha = await settled(cpu_slots.TOOL_SLOTS.run(commit_checkpoint), dest, tool, path)
            if sha:
                self.emit(Event("checkpoint", agent_id, {"commit": sha, "path": path}))

        return Agent(
            agent_id=agent_id,
            task=task,
            system_prompt=system,
            planner=self.planner_factory(s.planner),
            tools=ToolBox(ctx, s.profile.tools, self._dynamic_tools(ctx)),
            store=self.store,
            budgets=s.budgets,
            emit=self.emit,
            cancel_requested=self._cancel_flag(agent_id),
            checkpoint=checkpoint,
            workspace=gate,
        )


def _repo_map_maker(
    repo_root: Path, base_commit: str, task: str, budget_tokens: int
) -> Callable[[], str] | None:
    """What makes a new agent's repo map, or None for a budget of 0. It reads the base commit
    from git's objects, so the first planner request need not wait for the worktree."""
    if budget_tokens <= 0:
        return None

    def make() -> str:
        from cursorish.context.tools import repo_map_for_commit

        return repo_map_for_commit(repo_root, base_commit, task, budget_tokens)

    return make
