"""Events the engine emits: one frozen dataclass per kind.

The headless printer, the TUI and the store recorder (core/recorder.py) are all consumers;
they `match` on the class. Every event has the agent it is about (None: the whole run) and a
timestamp. `kind` is the name the public `--json` output gives it; `to_json()` prints the
common keys, then the event's public fields in declaration order. Two kinds of fields are left
out of that output:

- `optional()` fields are printed only when they are not None (some kinds carry different
  keys depending on where they come from, as the JSON format always had them);
- `private()` fields are for the recorder only (full transcript messages, request bodies,
  store-only columns): they ride along so that the store write happens where it always did,
  at the moment the event is emitted.

A few events are `internal`: they exist only for the recorder (a write that no front end ever
saw an event for) and `recorded()` does not pass them on to the front ends.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cursorish.core.states import AgentState

Message = dict[str, Any]


def optional() -> Any:
    """A field printed in the JSON output only when it is set (not None)."""
    return field(default=None, metadata={"optional": True})


def private(default: Any = None) -> Any:
    """A field for the store recorder only: never printed, never shown."""
    return field(default=default, metadata={"private": True}, repr=False, kw_only=True)


@dataclass(frozen=True)
class Event:
    """Something that happened to an agent (or to the run, when agent_id is None)."""

    kind: ClassVar[str] = ""
    # Only for the store recorder: not passed on to the front ends (see `recorded`).
    internal: ClassVar[bool] = False

    agent_id: str | None
    ts: float = field(default_factory=time.time, kw_only=True)

    @property
    def data(self) -> dict[str, Any]:
        """The public fields, as the JSON output carries them after the common keys."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("agent_id", "ts") or f.metadata.get("private"):
                continue
            value = getattr(self, f.name)
            if value is None and f.metadata.get("optional"):
                continue
            out[f.name] = value
        return out

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, "agent": self.agent_id, "ts": round(self.ts, 3), **self.data}


EventSink = Callable[[Event], None]


def null_sink(event: Event) -> None:
    """A sink that drops everything (library use, tests)."""


# -- the run and the orchestrator -----------------------------------------------------------


@dataclass(frozen=True)
class Notice(Event):
    kind = "notice"
    message: str


@dataclass(frozen=True)
class Queued(Event):
    kind = "queued"
    task: str
    branch: str
    base: str
    base_ref: str | None


@dataclass(frozen=True)
class WorktreeReady(Event):
    kind = "worktree_ready"
    worktree: str
    branch: str


@dataclass(frozen=True)
class Provisioned(Event):
    kind = "provisioned"
    copied: list[str]
    setup_exit: int | None
    setup_output: str | None = private()  # None: there was no setup command


@dataclass(frozen=True)
class Revising(Event):
    """The user's review feedback continues an ended agent."""

    kind = "revising"
    feedback: str
    messages: tuple[Message, ...] = private(())  # appended to its transcript


@dataclass(frozen=True)
class Cancelling(Event):
    kind = "cancelling"


@dataclass(frozen=True)
class Plan(Event):
    kind = "plan"
    plan: str


@dataclass(frozen=True)
class Committed(Event):
    kind = "committed"
    commit: str | None
    branch: str


@dataclass(frozen=True)
class Checkpoint(Event):
    kind = "checkpoint"
    commit: str
    path: str


@dataclass(frozen=True)
class Asking(Event):
    """The agent asks the user whether it may run a command."""

    kind = "asking"
    command: str


@dataclass(frozen=True)
class Answered(Event):
    kind = "answered"
    command: str
    allowed: bool
    network: bool


# -- the agent loop -------------------------------------------------------------------------


@dataclass(frozen=True)
class StateChanged(Event):
    kind = "state"
    state: AgentState
    step: int | None = optional()  # planning: the step it plans
    tool: str | None = optional()  # a tool's state: which tool


@dataclass(frozen=True)
class AgentStarted(Event):
    kind = "agent_started"
    task: str
    resumed: bool
    messages: tuple[Message, ...] = private(())  # new transcript messages, stored first


@dataclass(frozen=True)
class AgentFinished(Event):
    """The agent ended (the one place its end is written to the store).

    `summary` and `steps` are set when the agent loop itself ended; `error` None means it
    ended without a reason of its own (cancelled while queued): the store keeps the status."""

    kind = "agent_finished"
    status: AgentState
    summary: str | None = optional()
    error: str | None = optional()
    steps: int | None = optional()
    budget: str = private("")  # which budget ran out
    tests: tuple[int, int] | None = private()  # (run, passed), when the loop counted them


@dataclass(frozen=True)
class PlannerText(Event):
    kind = "planner_text"
    text: str


@dataclass(frozen=True)
class PlannerCall:
    """A planner request as the store's planner_calls table keeps it (a failed one has no
    usage: its columns stay NULL)."""

    step: int
    model: str
    request: str
    response: str
    elapsed_ms: float
    error: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    retries: int = 0


@dataclass(frozen=True)
class PlannerReply(Event):
    kind = "planner_reply"
    step: int
    content: str
    tool_calls: list[str]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    call: PlannerCall | None = private()
    message: Message | None = private()  # the assistant message it becomes


@dataclass(frozen=True)
class PlannerFailed(Event):
    """A planner request that failed (the error reaches the front ends as the agent's end)."""

    kind = "planner_failed"
    internal = True
    call: PlannerCall


@dataclass(frozen=True)
class MessagesAdded(Event):
    """Transcript messages no other event carries (the nudge after a text-only reply)."""

    kind = "messages_added"
    internal = True
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class ToolCalled(Event):
    kind = "tool_call"
    tool: str
    call_id: str
    arguments: str  # cut to 500 characters
    target: str


@dataclass(frozen=True)
class ToolReturned(Event):
    kind = "tool_result"
    tool: str
    call_id: str
    ok: bool
    result: str  # cut to 300 characters
    ms: float
    step: int = private(0)
    arguments: str = private("")  # whole
    full_result: str = private("")
    message: Message | None = private()  # the tool message it becomes
    tests: tuple[int, int] | None = private()  # it ran a test suite: (run, passed) so far


@dataclass(frozen=True)
class MessageDelivered(Event):
    """A message the user queued for the agent reached it."""

    kind = "message_delivered"
    id: int
    text: str
    message: Message | None = private()


# -- tools ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Applying(Event):
    kind = "applying"
    path: str


@dataclass(frozen=True)
class ApplyProgress(Event):
    kind = "apply_progress"
    path: str
    text: str
    chars: int


@dataclass(frozen=True)
class ApplyRefused(Event):
    kind = "apply_refused"
    path: str
    reason: str


@dataclass(frozen=True)
class ApplyAttempt:
    """One apply as the store's apply_attempts table keeps it."""

    path: str
    engine: str
    sketch_format: str
    outcome: str
    reason: str
    sketch: str
    elapsed_ms: float


@dataclass(frozen=True)
class ApplyDone(Event):
    kind = "apply_done"
    path: str
    outcome: str
    engine: str
    ms: float
    attempt: ApplyAttempt | None = private()


@dataclass(frozen=True)
class FileChanged(Event):
    kind = "file_changed"
    path: str
    added: int | None = optional()
    removed: int | None = optional()
    engine: str | None = optional()
    deleted: bool | None = optional()


@dataclass(frozen=True)
class RunningCommand(Event):
    kind = "running_command"
    command: str


@dataclass(frozen=True)
class CommandDone(Event):
    kind = "command_done"
    command: str
    exit_code: int | None
    timed_out: bool


@dataclass(frozen=True)
class McpUnavailable(Event):
    kind = "mcp_unavailable"
    server: str
    error: str


@dataclass(frozen=True)
class McpListed(Event):
    kind = "mcp_listed"
    server: str
    tools: int


# -- front ends (the user's messages, shown in the transcript) ------------------------------


@dataclass(frozen=True)
class UserMessage(Event):
    kind = "message"
    text: str


@dataclass(frozen=True)
class MessageQueued(Event):
    kind = "message_queued"
    id: int
    text: str


# -- store-only -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Starting(Event):
    """The agent got its slot and starts (new, resumed or revised)."""

    kind = "starting"
    internal = True


@dataclass(frozen=True)
class TakenOver(Event):
    """This process owns an ended agent again (resume, revise): its end is cleared."""

    kind = "taken_over"
    internal = True
    pid: int
    owner_start: str
    worktree: str | None = None  # it works in another worktree now (a review's)


@dataclass(frozen=True)
class OutcomeRevised(Event):
    """After its commit, the agent's end says more (its worktree's failure, no change)."""

    kind = "outcome_revised"
    internal = True
    error: str
    state: AgentState | None = None


@dataclass(frozen=True)
class ProvisionFailed(Event):
    kind = "provision_failed"
    internal = True
    setup_output: str
