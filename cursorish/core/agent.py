"""One agent's loop: ask the planner, run the tools it calls, repeat until finish or a budget ends.

Everything it does is emitted as an event as it happens (messages, planner calls, tool calls);
the store recorder (core/recorder.py) writes them before anyone else sees them, so a run can be
shown by `cursorish log` and resumed from its transcript after a crash. The agent only reads the
store (messages the user queued for it).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cursorish.core import conversation, cpu_slots, states
from cursorish.core import events as ev
from cursorish.core.events import EventSink
from cursorish.core.profiles import Budgets
from cursorish.core.text import for_planner
from cursorish.core.workspace import Stage, WorkspaceFailed

if TYPE_CHECKING:
    from cursorish.core.tools import ToolBox
    from cursorish.core.workspace import WorkspaceGate
    from cursorish.planner.client import Planner, PlannerReply
    from cursorish.store.db import Store

# Final states of an agent, as stored and shown (core/states.py); typed as the strings that
# the store holds and AgentState members equal.
DONE: str = states.AgentState.DONE
GAVE_UP: str = states.AgentState.GAVE_UP
FAILED: str = states.AgentState.FAILED
BUDGET: str = states.AgentState.BUDGET_EXHAUSTED
CANCELLED: str = states.AgentState.CANCELLED
FINAL_STATES = states.FINAL_STATES
MAX_TEXT_ONLY_REPLIES = 2

# A run_command that runs a test suite (counted for the best-of-N comparison).
_TEST_RUNNER = re.compile(
    r"(^|[\s/])(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b"
    r"|\b(npm|yarn|pnpm|bun|deno|go|cargo|mix|dotnet|mvn|gradle|make)\s+(run\s+)?(test|check)\b"
)


_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()
# asyncio's default pool has cpu_count + 4 threads: on a small machine eight agents' git and
# tool calls would queue behind each other there. Threads are created only when needed.
MAX_THREADS = 64


def in_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Run `fn(*args)` in cursorish's own thread pool (sized for eight busy agents)."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(MAX_THREADS, thread_name_prefix="cursorish")
    return asyncio.get_running_loop().run_in_executor(_executor, functools.partial(fn, *args))


def is_test_command(command: str) -> bool:
    """True when `command` looks like it runs a test suite (pytest, npm test, go test, ...)."""
    return bool(_TEST_RUNNER.search(command))


@dataclass
class AgentOutcome:
    status: str
    summary: str = ""
    error: str = ""
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    changed_paths: list[str] = field(default_factory=list)
    budget: str = ""  # which budget ran out
    tests_run: int = 0
    tests_passed: int = 0


class BudgetExceeded(Exception):
    def __init__(self, which: str, detail: str) -> None:
        super().__init__(detail)
        self.which = which
        self.detail = detail


class AgentCancelled(Exception):
    """The agent was asked to stop (`cursorish agents cancel`, Ctrl-C); raised between steps."""


# Called after every tool call that changed a file, with the tool name and the path: the
# orchestrator commits a checkpoint on the agent branch there.
CheckpointFn = Callable[[str, str], Awaitable[None]]


class Agent:
    """Runs one task in one worktree through a planner and a toolbox."""

    def __init__(
        self,
        *,
        agent_id: str,
        task: str,
        system_prompt: str,
        planner: Planner,
        tools: ToolBox,
        store: Store,
        budgets: Budgets,
        emit: EventSink,
        context: str = "",
        cancel_requested: Callable[[], bool] | None = None,
        checkpoint: CheckpointFn | None = None,
        workspace: WorkspaceGate | None = None,
        repo_map: Callable[[], str] | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.task = task
        self.system_prompt = system_prompt
        self.planner = planner
        self.tools = tools
        self.store = store
        self.budgets = budgets
        self.emit = emit
        self.context = context
        self.cancel_requested = cancel_requested
        self.checkpoint = checkpoint
        # The worktree still being prepared (a new agent): tools wait for the stage they need.
        self.workspace = workspace
        # Makes the repo map of the first message (never raises; "" when there is none).
        self.repo_map = repo_map
        self.outcome = AgentOutcome(status=FAILED)
        self._started = 0.0
        self._inflight: asyncio.Future[Any] | None = None
        # Plan first (core/conversation.py): read/search tools only, ends with a plan.
        self.planning = False

    # -- state -------------------------------------------------------------------------------

    def _state(
        self, state: states.AgentState, *, step: int | None = None, tool: str | None = None
    ) -> None:
        self.emit(ev.StateChanged(self.agent_id, state, step=step, tool=tool))

    def initial_messages(self, repo_map: str = "") -> list[dict[str, Any]]:
        user = f"Task: {self.task}"
        if self.context:
            user += f"\n\n{self.context}"
        if repo_map:
            user += f"\n\n{repo_map}"
        return [
            {"role": "system", "content": self.system_prompt},
            # The overview may name files whose names are not UTF-8.
            {"role": "user", "content": for_planner(user)},
        ]

    def _check_budgets(self) -> None:
        b, o = self.budgets, self.outcome
        if b.max_steps and o.steps >= b.max_steps:
            raise BudgetExceeded("steps", f"step budget of {b.max_steps} used up")
        tokens = o.prompt_tokens + o.completion_tokens
        if b.max_tokens and tokens >= b.max_tokens:
            raise BudgetExceeded("tokens", f"token budget of {b.max_tokens} used up ({tokens})")
        if b.max_cost_usd and o.cost_usd >= b.max_cost_usd:
            raise BudgetExceeded(
                "cost", f"cost budget of ${b.max_cost_usd:.2f} used up (${o.cost_usd:.4f})"
            )
        if b.max_wall_s and time.monotonic() - self._started >= b.max_wall_s:
            raise BudgetExceeded("time", f"time budget of {b.max_wall_s:.0f}s used up")

    def _check_cancel(self) -> None:
        if self.tools.ctx.cancel.is_set() or (
            self.cancel_requested is not None and self.cancel_requested()
        ):
            raise AgentCancelled()

    def _remaining_wall(self) -> float | None:
        if not self.budgets.max_wall_s:
            return None
        return max(0.01, self.budgets.max_wall_s - (time.monotonic() - self._started))

    # -- loop --------------------------------------------------------------------------------

    async def run(self, messages: list[dict[str, Any]] | None = None) -> AgentOutcome:
        """Run to an end state; `messages` resumes a recorded transcript instead."""
        from cursorish.planner.client import PlannerError

        self._started = time.monotonic()
        resuming = bool(messages)
        if not messages:
            messages = self.initial_messages(await self._repo_map())
            new = list(messages)
        else:
            answered = _drop_dangling_tool_calls(messages)
            new = answered[len(messages) :]
            messages = answered
            self.outcome.steps = sum(1 for m in messages if m.get("role") == "assistant")
        self.emit(ev.AgentStarted(self.agent_id, self.task, resuming, messages=tuple(new)))
        try:
            await self._prepare_tools()
            await self._loop(messages)
            if self.workspace is not None:
                # An end without a tool call (gave up): the worktree must still be ready, or
                # the reason it is not is the agent's real end.
                await self.workspace.wait_for(Stage.PROVISIONED)
        except WorkspaceFailed as exc:
            self.outcome.status, self.outcome.error = FAILED, exc.message
        except BudgetExceeded as exc:
            self.outcome.status, self.outcome.budget = BUDGET, exc.which
            self.outcome.error = exc.detail
        except PlannerError as exc:
            self.outcome.status, self.outcome.error = FAILED, exc.message
        except AgentCancelled:
            self.tools.ctx.cancel.set()  # stops a setup command still running, too
            self.outcome.status, self.outcome.error = CANCELLED, "cancelled"
        except asyncio.CancelledError:
            self.tools.ctx.cancel.set()  # stops a running command (its process group is killed)
            await self._settle_inflight()
            self.outcome.status, self.outcome.error = CANCELLED, "cancelled"
            self._finish_record()
            raise
        self._finish_record()
        return self.outcome

    async def _repo_map(self) -> str:
        """The repo map for the first message; "" when there is none or it cannot be made
        (a map is a help, never a reason for the agent to fail)."""
        if self.repo_map is None:
            return ""
        text: str = await in_thread(self.repo_map)
        return text

    async def _prepare_tools(self) -> None:
        """Dynamic tools (MCP servers) never listed before are listed before the planner's
        first request, which needs their schemas; their servers run in the worktree, so that
        waits until it is ready."""
        if not self.tools.needs_prepare():
            return
        if self.workspace is not None:
            await self.workspace.wait_for(Stage.PROVISIONED)
        self._state(states.AgentState.STARTING_TOOLS)
        await in_thread(self.tools.prepare)

    async def _tool_within_budget(self, inflight: asyncio.Future[Any]) -> Any:
        """The tool's result, or BudgetExceeded when the time budget ends first: the tool is
        then stopped (a command's process group killed, a search ended) and its write waited
        for, so that --max-time holds during a long command too, not only between steps."""
        try:
            return await asyncio.wait_for(asyncio.shield(inflight), self._remaining_wall())
        except TimeoutError:
            self.tools.ctx.cancel.set()
            await self._settle_inflight()
            raise BudgetExceeded(
                "time", f"time budget of {self.budgets.max_wall_s:.0f}s used up (in a tool)"
            ) from None

    async def _settle_inflight(self) -> None:
        """Wait for a tool thread still running after a cancel, so its write lands before the
        final commit (a thread cannot be stopped; run_command sees the cancel event)."""
        inflight = self._inflight
        if inflight is not None and not inflight.done():
            await asyncio.wait([inflight])

    def _finish_record(self) -> None:
        o = self.outcome
        self.emit(
            ev.AgentFinished(
                self.agent_id,
                states.AgentState(o.status),
                summary=o.summary,
                error=o.error,
                steps=o.steps,
                budget=o.budget,
                tests=(o.tests_run, o.tests_passed),
            )
        )

    async def _loop(self, messages: list[dict[str, Any]]) -> None:
        text_only = 0
        while True:
            self._check_cancel()
            self._check_budgets()
            # Messages the user sent meanwhile (`cursorish chat` from another terminal).
            conversation.deliver_queued(self.store, self.agent_id, messages, self.emit)
            self._state(states.AgentState.PLANNING, step=self.outcome.steps + 1)
            reply, assistant = await self._ask(messages)  # stored with the reply
            self.outcome.steps += 1
            messages.append(assistant)
            if (
                not reply.tool_calls
                and self.planning
                and conversation.looks_like_plan(reply.content)
            ):
                self.outcome.status, self.outcome.summary = DONE, reply.content.strip()
                return  # the plan came as text instead of through finish: it is the plan
            if not reply.tool_calls:
                text_only += 1
                if text_only >= MAX_TEXT_ONLY_REPLIES:
                    self.outcome.status = GAVE_UP
                    self.outcome.summary = reply.content.strip()
                    self.outcome.error = "the planner stopped calling tools without calling finish"
                    return
                nudge = {
                    "role": "user",
                    "content": "Use the tools to make the change; call finish when done.",
                }
                messages.append(nudge)
                self.emit(ev.MessagesAdded(self.agent_id, (nudge,)))
                continue
            text_only = 0
            for call in assistant["tool_calls"]:
                self._check_cancel()
                name = call["function"]["name"]
                # The tool message is stored with the tool call's record, after it ran.
                result, tool_msg = await self._run_tool(
                    name, call["function"]["arguments"], call["id"]
                )
                messages.append(tool_msg)
                if result.changed_path:
                    if result.changed_path not in self.outcome.changed_paths:
                        self.outcome.changed_paths.append(result.changed_path)
                    if self.checkpoint is not None:
                        await self.checkpoint(name, result.changed_path)
                if result.finished and conversation.has_queued(self.store, self.agent_id):
                    continue  # the user said something meanwhile: that comes first
                if result.finished:
                    self.outcome.status = DONE if result.finish_status == "done" else GAVE_UP
                    self.outcome.summary = result.summary
                    return

    async def _ask(self, messages: list[dict[str, Any]]) -> tuple[PlannerReply, dict[str, Any]]:
        """The planner's reply and the assistant message it becomes (both stored by now)."""
        step = self.outcome.steps + 1

        def on_text(delta: str) -> None:
            self.emit(ev.PlannerText(self.agent_id, delta))

        started = time.perf_counter()
        # A planning agent keeps the tools that only read (Tool.read_only).
        schemas = self.tools.schemas(read_only=self.planning)
        work = self.planner.complete(messages, schemas, on_text=on_text)
        if self.workspace is not None:
            work = self.workspace.alongside(work)
        try:
            reply = await asyncio.wait_for(work, timeout=self._remaining_wall())
        except WorkspaceFailed:
            raise  # not the planner's failure: the worktree's (the agent records it)
        except TimeoutError:
            raise BudgetExceeded(
                "time", f"time budget of {self.budgets.max_wall_s:.0f}s used up"
            ) from None
        except Exception as exc:
            failed = ev.PlannerCall(
                step=step,
                model=getattr(getattr(self.planner, "settings", None), "model", ""),
                request=json.dumps({"messages": len(messages)}),
                response="",
                elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
                error=getattr(exc, "message", str(exc)),
            )
            self.emit(ev.PlannerFailed(self.agent_id, failed))
            raise
        u = reply.usage
        self.outcome.prompt_tokens += u.prompt_tokens
        self.outcome.completion_tokens += u.completion_tokens
        self.outcome.cost_usd += u.cost_usd
        call = ev.PlannerCall(
            step=step,
            model=reply.model,
            request=json.dumps({"messages": len(messages), "last": messages[-1]}, default=str),
            response=json.dumps(
                {
                    "content": reply.content,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments}
                        for c in reply.tool_calls
                    ],
                    "finish_reason": reply.finish_reason,
                }
            ),
            prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens,
            cost_usd=u.cost_usd,
            elapsed_ms=round(reply.elapsed_s * 1000, 1),
            retries=reply.retries,
            error="",
        )
        assistant = _assistant_message(reply)
        self.emit(
            ev.PlannerReply(
                self.agent_id,
                step=step,
                content=(reply.content or "")[:4000],
                tool_calls=[c.name for c in reply.tool_calls],
                prompt_tokens=u.prompt_tokens,
                completion_tokens=u.completion_tokens,
                cost_usd=u.cost_usd,
                call=call,
                message=assistant,
            )
        )
        return reply, assistant

    async def _run_tool(
        self, name: str, arguments: str, call_id: str
    ) -> tuple[Any, dict[str, Any]]:
        """The tool's result and the tool message it becomes (both stored by now)."""
        tool = self.tools.about(name)
        if self.workspace is not None and not self.workspace.ready_for(tool.stage):
            self._state(states.AgentState.PROVISIONING, tool=name)
            await self.workspace.wait_for(tool.stage)
        self._state(tool.busy, tool=name)
        target = self.tools.target(name, arguments)
        self.emit(ev.ToolCalled(self.agent_id, name, call_id, arguments[:500], target))
        started = time.perf_counter()
        # Shielded: a cancel must not abandon a write half-way; _settle_inflight waits for it.
        call: Callable[[str, str], Any] = self.tools.call
        if self.planning and not tool.read_only:
            call = conversation.refuse_in_plan_mode
        if tool.slotted:  # not run_command nor edit_file: see cpu_slots
            call = cpu_slots.TOOL_SLOTS.run(call)
        self._inflight = in_thread(call, name, arguments)
        result = await self._tool_within_budget(self._inflight)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        tests: tuple[int, int] | None = None
        if result.command is not None and is_test_command(result.command):
            self.outcome.tests_run += 1
            self.outcome.tests_passed += int(result.exit_code == 0)
            tests = (self.outcome.tests_run, self.outcome.tests_passed)
        tool_msg = {"role": "tool", "tool_call_id": call_id, "content": result.text}
        self.emit(
            ev.ToolReturned(
                self.agent_id,
                name,
                call_id,
                result.ok,
                result.text[:300],
                elapsed,
                step=self.outcome.steps,
                arguments=arguments,
                full_result=result.text,
                message=tool_msg,
                tests=tests,
            )
        )
        return result, tool_msg


def _assistant_message(reply: PlannerReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.tool_calls
        ]
    return message


def _drop_dangling_tool_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A crash can leave an assistant tool call without its result: answer it so APIs accept it."""
    out = list(messages)
    answered = {m.get("tool_call_id") for m in out if m.get("role") == "tool"}
    last = out[-1] if out else None
    if last and last.get("role") == "assistant" and last.get("tool_calls"):
        for call in last["tool_calls"]:
            if call["id"] not in answered:
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "content": "interrupted: this call did not complete; check the file "
                        "state and repeat it if needed",
                    }
                )
    return out
