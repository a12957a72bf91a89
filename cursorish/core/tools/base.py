"""What a tool is: one `Tool` object holds everything the engine needs to know about it.

The planner sees `Tool.schema`; the agent loop reads the rest: which stage of the worktree the
tool waits for, whether it takes a CPU slot, the state the agent shows while it runs and what
the one-line progress output names. A built-in tool is one module of `builtins/` that defines
`TOOL`; MCP tools are made at run time by a `ToolProvider`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from cursorish.core.states import AgentState
from cursorish.core.workspace import Stage

if TYPE_CHECKING:
    from cursorish.core.tools.tool_context import ToolContext

# The argument whose value names what a call is about, first match wins.
TARGET_KEYS = ("path", "pattern", "command", "directory", "glob")
PATH_ARG = {"type": "string", "description": "path relative to the repository root"}


@dataclass
class ToolResult:
    text: str
    ok: bool = True
    finished: bool = False
    finish_status: str = ""
    summary: str = ""
    changed_path: str | None = None
    command: str | None = None  # run_command: the command line and how it ended
    exit_code: int | None = None


Handler = Callable[["ToolContext", dict[str, Any]], ToolResult]


def arguments(props: Mapping[str, Any], required: Iterable[str] = ()) -> dict[str, Any]:
    """The JSON schema of a tool's arguments: an object with these properties."""
    return {"type": "object", "properties": dict(props), "required": list(required)}


def target_of(args: Mapping[str, Any]) -> str:
    """The path, pattern or command a call is about, for one-line progress output."""
    for key in TARGET_KEYS:
        if isinstance(args.get(key), str):
            return str(args[key])[:120]
    return ""


def _no_handler(_ctx: ToolContext, _args: dict[str, Any]) -> ToolResult:
    return ToolResult("error: this tool cannot be called", ok=False)


@dataclass(frozen=True, eq=False)
class Tool:
    """One tool. The defaults are those of a tool nobody knows (a name the planner made up, an
    MCP tool): it waits for the provisioned worktree, holds no CPU slot, and the agent stays
    `planning` while it runs."""

    name: str
    description: str
    parameters: Mapping[str, Any]  # the JSON schema of its arguments (see `arguments`)
    handler: Handler = _no_handler
    stage: Stage = Stage.PROVISIONED
    # Short CPU-bound work holds one of core/cpu_slots.TOOL_SLOTS (see there for why a
    # command or an edit never does).
    slotted: bool = False
    busy: AgentState = AgentState.PLANNING  # the agent's state while it runs
    read_only: bool = False  # changes nothing and starts nothing: kept in plan mode
    starts_processes: bool = False  # an untrusted repository's profile never gets it
    order: int = 1000  # where the planner sees it among the built-ins; ties by name
    target: Callable[[Mapping[str, Any]], str] = target_of

    @cached_property
    def schema(self) -> dict[str, Any]:
        """The function schema the planner is sent (the same dict each time)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def target_of_call(self, raw_arguments: str) -> str:
        """`target` of a call's raw JSON arguments ("" when they are not a JSON object)."""
        try:
            args = json.loads(raw_arguments)
        except (json.JSONDecodeError, TypeError):
            return ""
        return self.target(args) if isinstance(args, dict) else ""


def reading_tool(
    name: str, description: str, parameters: Mapping[str, Any], handler: Handler, order: int
) -> Tool:
    """A tool that only reads the worktree: it needs the checkout only, holds a CPU slot (short
    CPU-bound work) and stays available in plan mode."""
    return Tool(
        name,
        description,
        parameters,
        handler,
        stage=Stage.CHECKED_OUT,
        slotted=True,
        read_only=True,
        order=order,
    )


class ToolProvider(Protocol):
    """Tools that are not built in (an agent's MCP servers): named at run time. `prepare` runs
    (in a thread, once the worktree is ready) before the planner's first request when
    `needs_prepare`; `close` when the agent ends."""

    def needs_prepare(self) -> bool: ...

    def prepare(self) -> None: ...

    def tools(self) -> Iterable[Tool]: ...

    def close(self) -> None: ...
