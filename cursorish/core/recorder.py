"""The store recorder: the one place an agent's run is written to the store.

The agent loop, its tools and the orchestrator only emit events (core/events.py); `recorded()`
puts a `StoreRecorder` in front of the front end's sink, so every event is persisted first,
synchronously, in the thread that emitted it, before any front end sees it. Writes therefore
happen in exactly the order the events are emitted, which is what resume after a `kill -9`
relies on (an assistant message with tool calls is stored before its tools run, each tool's
message after it ran).

Rows created before an agent runs (its task and agents row) and reads (a transcript to resume)
stay with their callers: the recorder writes what happens during a run.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from cursorish.core import events as ev
from cursorish.core.states import AgentState
from cursorish.store.db import now

if TYPE_CHECKING:
    from cursorish.store.db import Store


class StoreRecorder:
    """Persists the events of agent runs (transcript, usage, planner and tool calls, states,
    apply attempts, ends) to one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __call__(self, event: ev.Event) -> None:
        agent = event.agent_id
        if agent is None:
            return
        match event:
            case ev.AgentStarted(messages=messages) | ev.MessagesAdded(messages=messages):
                self._messages(agent, messages)
            case ev.Revising(messages=messages):
                self._messages(agent, messages)
            case ev.StateChanged(state=state):
                self.store.update_agent(agent, state=state)
            case ev.PlannerReply():
                self._planner_reply(agent, event)
            case ev.PlannerFailed(call=call):
                self._planner_call(agent, call)
            case ev.ToolReturned():
                self._tool_returned(agent, event)
            case ev.MessageDelivered(message=message) if message is not None:
                self.store.add_message(agent, message)
            case ev.ApplyDone(attempt=attempt) if attempt is not None:
                self.store.add_apply_attempt(agent, **dataclasses.asdict(attempt))
            case ev.AgentFinished():
                self.finish(agent, event)
            case ev.Starting():
                self.store.update_agent(agent, state=AgentState.STARTING, started_at=now())
            case ev.TakenOver():
                self._taken_over(agent, event)
            case ev.Provisioned(setup_output=output):
                fields: dict[str, Any] = {"provisioned_at": now()}
                if output is not None:
                    fields["setup_output"] = output
                self.store.update_agent(agent, **fields)
            case ev.ProvisionFailed(setup_output=output):
                self.store.update_agent(agent, setup_output=output)
            case ev.Plan(plan=plan):
                self.store.update_agent(agent, plan=plan)
            case ev.OutcomeRevised(error=error, state=state):
                if state is None:
                    self.store.update_agent(agent, error=error)
                else:
                    self.store.update_agent(agent, state=state, error=error)

    def _messages(self, agent: str, messages: tuple[ev.Message, ...]) -> None:
        for message in messages:
            self.store.add_message(agent, message)

    def _planner_reply(self, agent: str, event: ev.PlannerReply) -> None:
        self.store.add_usage(agent, event.prompt_tokens, event.completion_tokens, event.cost_usd)
        if event.call is not None:
            self._planner_call(agent, event.call)
        if event.message is not None:
            self.store.add_message(agent, event.message)

    def _planner_call(self, agent: str, call: ev.PlannerCall) -> None:
        fields = {k: v for k, v in dataclasses.asdict(call).items() if v is not None}
        self.store.add_planner_call(agent, **fields)

    def _tool_returned(self, agent: str, event: ev.ToolReturned) -> None:
        if event.tests is not None:
            run, passed = event.tests
            self.store.update_agent(agent, tests_run=run, tests_passed=passed)
        self.store.add_tool_call(
            agent,
            step=event.step,
            call_id=event.call_id,
            name=event.tool,
            arguments=event.arguments,
            result=event.full_result,
            ok=event.ok,
            elapsed_ms=event.ms,
        )
        if event.message is not None:
            self.store.add_message(agent, event.message)

    def _taken_over(self, agent: str, event: ev.TakenOver) -> None:
        fields: dict[str, Any] = {} if event.worktree is None else {"worktree": event.worktree}
        self.store.update_agent(
            agent,
            pid=event.pid,
            owner_start=event.owner_start,
            cancel_requested=0,
            state=AgentState.STARTING,
            error="",
            finished_at=None,
            **fields,
        )

    def finish(self, agent: str, event: ev.AgentFinished) -> None:
        """The agent's end: state, reason and counters, whichever part of the engine saw it."""
        fields: dict[str, Any] = {
            "state": event.status,
            "error": event.status if event.error is None else event.error,
            "exit_reason": event.budget or event.status,
        }
        if event.steps is not None:
            fields["steps"] = event.steps
        if event.summary is not None:
            fields["summary"] = event.summary
        if event.tests is not None:
            fields["tests_run"], fields["tests_passed"] = event.tests
        self.store.update_agent(agent, **fields, finished_at=now())


def recorded(store: Store, sink: ev.EventSink) -> ev.EventSink:
    """`sink` behind a StoreRecorder: each event is stored first, then (unless it is internal,
    for the store only) passed on."""
    recorder = StoreRecorder(store)

    def emit(event: ev.Event) -> None:
        recorder(event)
        if not event.internal:
            sink(event)

    return emit
