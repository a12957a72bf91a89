"""The engine inside the app: runs orchestrators in the app's asyncio loop and turns their
events into Textual messages.

Agents run as tasks of the app's own event loop (the orchestrator is asyncio already; its
git and tool work runs in threads), so there is no second loop and no polling. Events can
come from any thread (tools emit from their worker threads): `EngineBridge.sink` numbers
them, keeps the little live state the store does not hold yet (text streamed since the last
planner reply, the file being applied, a pending question), and queues them; at most once
every `flush_s` the queue goes to the app as one `EngineEvents` message. Eight agents
streaming tokens thus cost the UI twenty messages a second, not thousands.

Each event carries its sequence number so a view rebuilt from the store plus `snapshot()`
can skip the events it already shows (see `Transcript`).

An agent's `ask` request to run a command arrives on a tool thread: the bridge posts it to
the app as an `AskRequest` message carrying a `concurrent.futures.Future` and waits for the
answer (allow once / allow always for this command / deny). Cancelling the agent, or
quitting, answers deny, so no tool thread is ever left waiting.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from cursorish.core import events as ev
from cursorish.core.command_runner import WITH_NETWORK, Approval
from cursorish.core.events import Event
from cursorish.errors import CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.core.orchestrator import Orchestrator, RunSettings
    from cursorish.core.report import AgentReport
    from cursorish.gitops.repo import RepoInfo
    from cursorish.planner.client import Planner, PlannerSettings
    from cursorish.store.db import Store

T = TypeVar("T")

# Answers to an `ask` request.
ALLOW_ONCE, ALLOW_ALWAYS, DENY = "once", "always", "deny"
ALLOW_NETWORK = "network"  # once, with the sandbox's network opened for that command
FLUSH_S = 0.05
MAX_LIVE_TEXT = 20_000  # characters of streamed text kept per agent for a rebuilt view
SHUTDOWN_WAIT_S = 15.0


@dataclass(frozen=True)
class TrustRequest:
    """The repository's own files ask for values that stay off until the user trusts it."""

    repo: Path
    lines: tuple[str, ...]  # one ignored value per line, escaped for display
    # Records the trust (in the file contents shown) and returns the new settings factory.
    accept: Callable[[], Callable[[str | None], RunSettings]]


@dataclass
class EngineSetup:
    """What the app needs to run agents on one repository."""

    repo: RepoInfo
    store: Store
    # profile name (None: the configured one) -> settings; raises CursorishError (for
    # instance when no planner is configured: the app then still opens, for review).
    settings_for: Callable[[str | None], RunSettings]
    profiles: tuple[str, ...] = ("default",)
    default_profile: str = "default"
    planner_factory: Callable[[PlannerSettings], Planner] | None = None
    notice: str = ""  # shown once the app is up (e.g. "no planner is configured ...")
    trust: TrustRequest | None = None  # asked once the app is up
    index_checkout: bool = True  # keep the checkout's context index current (a watcher)


@dataclass
class LiveState:
    """What an agent is doing right now that the store does not hold (yet)."""

    text: str = ""  # planner text streamed since the last planner reply
    apply_path: str = ""  # the file whose apply step runs ("" when none)
    apply_text: str = ""  # the model route's output so far (tail)
    asking: str = ""  # the command waiting for the user's answer


class EngineEvents(Message):
    """A batch of engine events, oldest first, each with its sequence number."""

    def __init__(self, events: list[tuple[int, Event]]) -> None:
        super().__init__()
        self.events = events


class AskRequest(Message):
    """An agent asks to run `command`; set `future` to ALLOW_ONCE, ALLOW_ALWAYS or DENY."""

    def __init__(self, agent_id: str, command: str, future: Future[str]) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.command = command
        self.future = future


class RunFailed(Message):
    """A run, resume or revision could not start or ended with an error."""

    def __init__(self, error: str, agent_id: str | None = None) -> None:
        super().__init__()
        self.error = error
        self.agent_id = agent_id


class EngineBridge:
    """Runs agents for the app; see the module docstring."""

    def __init__(
        self,
        setup: EngineSetup,
        target: MessagePump,
        *,
        answers_asks: bool = True,
        flush_s: float = FLUSH_S,
    ) -> None:
        self.setup = setup
        self.target = target
        self.answers_asks = answers_asks  # False: every ask is denied (nobody to answer)
        self.flush_s = flush_s
        self.always_allowed: set[str] = set()  # "allow always" answers of this session
        self.closed = False
        self._lock = threading.Lock()
        self._seq = 0
        self._queue: list[tuple[int, Event]] = []
        self._scheduled = False
        self._live: dict[str, LiveState] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self._orchestrators: dict[str, Orchestrator] = {}
        self._owner: dict[str, Orchestrator] = {}
        self._semaphore: asyncio.Semaphore | None = None
        self._runs: set[asyncio.Task[Any]] = set()
        self._asks: dict[str, Future[str]] = {}

    # -- events ------------------------------------------------------------------------------

    def start(self) -> None:
        """Bind to the running loop (call from the app's on_mount)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        with self._lock:
            pending = bool(self._queue) and not self._scheduled
            self._scheduled = self._scheduled or pending
        if pending:
            self._schedule()

    def sink(self, event: Event, owner: Orchestrator | None = None) -> None:
        """The EventSink of every orchestrator (thread-safe)."""
        with self._lock:
            self._seq += 1
            self._queue.append((self._seq, event))
            if event.agent_id is not None:
                self._track(event)
                if owner is not None and isinstance(event, ev.Queued):
                    self._owner[event.agent_id] = owner
            schedule = not self._scheduled
            self._scheduled = True
        if schedule:
            self._schedule()

    def _schedule(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self._loop_thread:
            loop.call_later(self.flush_s, self.flush)
        else:
            loop.call_soon_threadsafe(loop.call_later, self.flush_s, self.flush)

    def flush(self) -> None:
        """Send the queued events to the app now (one message)."""
        with self._lock:
            batch, self._queue = self._queue, []
            self._scheduled = False
        if batch:
            self.target.post_message(EngineEvents(batch))

    def _track(self, event: Event) -> None:
        assert event.agent_id is not None
        live = self._live.setdefault(event.agent_id, LiveState())
        match event:
            case ev.PlannerText(text=text):
                live.text = (live.text + text)[-MAX_LIVE_TEXT:]
            case ev.PlannerReply() | ev.AgentFinished():
                live.text, live.apply_path, live.apply_text, live.asking = "", "", "", ""
            case ev.Applying(path=path):
                live.apply_path, live.apply_text = path, ""
            case ev.ApplyProgress(text=text):
                live.apply_text = (live.apply_text + text)[-MAX_LIVE_TEXT:]
            case ev.ApplyDone():
                live.apply_path, live.apply_text = "", ""
            case ev.Asking(command=command):
                live.asking = command
            case ev.Answered():
                live.asking = ""

    def snapshot(self, agent_id: str) -> tuple[int, LiveState]:
        """(last sequence number, live state): a view built now from the store plus this
        state shows every event numbered up to that sequence number."""
        with self._lock:
            return self._seq, replace(self._live.get(agent_id) or LiveState())

    # -- runs --------------------------------------------------------------------------------

    def orchestrator(self, profile: str | None = None) -> Orchestrator:
        """The orchestrator of a profile, created on first use (this is when the planner
        settings are resolved; litellm itself is imported by the first planner call)."""
        from cursorish.core.orchestrator import Orchestrator

        key = profile or self.setup.default_profile
        orch = self._orchestrators.get(key)
        if orch is not None:
            return orch
        settings = self.setup.settings_for(key)
        kwargs: dict[str, Any] = {}
        if self.setup.planner_factory is not None:
            kwargs["planner_factory"] = self.setup.planner_factory

        def emit(event: Event) -> None:
            self.sink(event, created)

        if self._semaphore is None:  # one concurrency limit for the whole app
            self._semaphore = asyncio.Semaphore(max(1, settings.concurrency))
        created = Orchestrator(
            self.setup.repo,
            self.setup.store,
            settings,
            emit,
            handle_signals=False,
            ask=self.ask,
            semaphore=self._semaphore,
            **kwargs,
        )
        self._orchestrators[key] = created
        return created

    def start_agents(
        self, task: str, *, profile: str | None = None, count: int = 1, plan: bool = False
    ) -> asyncio.Task[list[AgentReport] | None]:
        """Start `count` agents on `task` (best-of-N when count > 1); they show up through
        `queued` events. Raises CursorishError when no agent can start (no planner, ...)."""
        if not task.strip():
            raise CursorishError("the task is empty", ExitCode.BAD_ARGS)
        if not 1 <= count <= 8:
            raise CursorishError("best-of-N takes 1 to 8 agents", ExitCode.BAD_ARGS)
        self._check_open()
        orch = self.orchestrator(profile)
        return self._spawn(self._run(orch, [task.strip()] * count, plan=plan))

    async def _run(
        self, orch: Orchestrator, tasks: list[str], *, plan: bool = False
    ) -> list[AgentReport]:
        from cursorish.gitops.repo import open_repo

        # Agents start from the checkout's HEAD of now, not of when the app opened (git
        # runs in a thread: a big checkout's status must not freeze the app).
        repo = await asyncio.to_thread(open_repo, self.setup.repo.root)
        if repo.dirty:
            message = (
                f"your checkout has uncommitted changes ({repo.dirty_summary}); agents start "
                f"from HEAD {repo.head_commit[:10]} and do not see them"
            )
            self.sink(ev.Notice(None, message))
        return await orch.run(tasks, repo=repo, plan=plan)

    def resume(self, agent_id: str) -> asyncio.Task[AgentReport | None]:
        """Continue an interrupted, cancelled, failed or out-of-budget agent."""
        from cursorish.core.lifecycle import find_agent

        self._check_open()
        row = find_agent(self.setup.store, agent_id)
        orch = self.orchestrator(row["profile"])
        self._owner[row["id"]] = orch
        return self._spawn(orch.resume(row["id"]), row["id"])

    async def revise(self, agent_id: str, feedback: str) -> None:
        """Send review feedback to a finished agent and wait until it has revised its work.

        Raises CursorishError when it cannot (unknown agent, still running, ...)."""
        from cursorish.core.lifecycle import find_agent

        self._check_open()
        row = find_agent(self.setup.store, agent_id)
        orch = self.orchestrator(row["profile"])
        self._owner[row["id"]] = orch
        task = asyncio.get_running_loop().create_task(orch.revise(row["id"], feedback))
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)
        await task

    def chat(self, agent_id: str, text: str, *, approve: bool = False) -> str:
        """A follow-up message (core/conversation.py): "queued" when a run of the agent is
        going on (here or in another process; delivered at its next planner turn), "sent"
        when the agent continues now, here. With `approve`, its plan is approved (`text`,
        when given, is the edited plan). Raises CursorishError when it cannot be sent."""
        from cursorish.core.conversation import plan_waits_if_not_started, prepare_message
        from cursorish.core.lifecycle import find_agent

        self._check_open()
        store = self.setup.store
        row = find_agent(store, agent_id)
        agent_id = str(row["id"])
        message, running = prepare_message(store, self.setup.repo.root, row, text, approve=approve)
        if running:
            msg_id = store.queue_message(agent_id, message)
            self.sink(ev.MessageQueued(agent_id, msg_id, message))
            return "queued"
        with plan_waits_if_not_started(store, agent_id, approve=approve):
            orch = self.orchestrator(row["profile"])
        self._owner[agent_id] = orch
        self.sink(ev.UserMessage(agent_id, message))
        self._spawn(self._continue(orch, agent_id, message, approve=approve), agent_id)
        return "sent"

    async def _continue(
        self, orch: Orchestrator, agent_id: str, message: str, *, approve: bool
    ) -> AgentReport:
        """Continue an ended agent; an approval whose run never started leaves the plan waiting
        (revise raises before the agent starts: its worktree, its transcript)."""
        from cursorish.core.conversation import plan_waits_if_not_started

        with plan_waits_if_not_started(self.setup.store, agent_id, approve=approve):
            return await orch.revise(agent_id, message)

    def cancel(self, agent_id: str) -> str:
        """Cancel an agent: "cancelling" (ours), "signalled" (another process runs it) or
        "marked" (nobody runs it). Raises CursorishError when it already ended."""
        from cursorish.core.lifecycle import request_cancel

        self._answer(agent_id, DENY)
        orch = self._owner.get(agent_id)
        if orch is not None and orch.cancel(agent_id):
            return "cancelling"
        return request_cancel(self.setup.store, agent_id).how

    async def discard(self, agent_id: str) -> list[str]:
        """Remove an ended agent's worktree and branch (git work runs in a thread)."""
        from cursorish.core.lifecycle import discard

        return await asyncio.to_thread(discard, self.setup.store, self.setup.repo, agent_id)

    def owns(self, agent_id: str) -> bool:
        """True for an agent this app started, resumed or revised (its events come here)."""
        with self._lock:
            return agent_id in self._owner

    @property
    def busy(self) -> bool:
        """True while a run, resume or revision of this app has not finished."""
        return any(not task.done() for task in self._runs)

    async def settle(self, timeout_s: float) -> bool:
        """Wait (bounded) for this app's runs to finish; True when none is left."""
        runs = [task for task in self._runs if not task.done()]
        if runs:
            await asyncio.wait(runs, timeout=timeout_s)
        return not self.busy

    async def shutdown(self, timeout_s: float = SHUTDOWN_WAIT_S) -> None:
        """Cancel every agent of this app and wait (bounded) for their work to be committed."""
        self.closed = True
        with self._lock:
            waiting = list(self._asks)
        for agent_id in waiting:
            self._answer(agent_id, DENY)
        for orch in self._orchestrators.values():
            orch.cancel_all()
        await self.settle(timeout_s)
        self.flush()

    def _check_open(self) -> None:
        if self.closed:
            raise CursorishError("the app is closing", ExitCode.BAD_ARGS)

    def _spawn(
        self, work: Coroutine[Any, Any, T], agent_id: str | None = None
    ) -> asyncio.Task[T | None]:
        task = asyncio.get_running_loop().create_task(self._guard(work, agent_id))
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)
        return task

    async def _guard(self, work: Coroutine[Any, Any, T], agent_id: str | None) -> T | None:
        try:
            return await work
        except CursorishError as exc:
            self.target.post_message(RunFailed(exc.message, agent_id))
        except Exception as exc:  # a bug must show, not kill the app's loop silently
            self.target.post_message(RunFailed(f"internal error: {exc!r}", agent_id))
        return None

    # -- ask ---------------------------------------------------------------------------------

    def ask(self, agent_id: str, command: str) -> Approval:
        """The orchestrators' `ask` callback: called on a tool thread, blocks for the answer."""
        if command in self.always_allowed:
            return True
        if not self.answers_asks:
            return False
        future: Future[str] = Future()
        with self._lock:
            if self.closed:
                return False
            self._asks[agent_id] = future
        try:
            posted = self.target.post_message(AskRequest(agent_id, command, future))
            answer = future.result() if posted else DENY
        finally:
            with self._lock:
                if self._asks.get(agent_id) is future:
                    del self._asks[agent_id]
        if answer == ALLOW_ALWAYS:
            self.always_allowed.add(command)
        if answer == ALLOW_NETWORK:
            return WITH_NETWORK
        return answer in (ALLOW_ONCE, ALLOW_ALWAYS)

    def _answer(self, agent_id: str, answer: str) -> None:
        with self._lock:
            future = self._asks.get(agent_id)
        if future is not None and not future.done():
            future.set_result(answer)
