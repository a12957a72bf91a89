"""delete_file: remove a file from the worktree."""

from __future__ import annotations

from typing import Any

from cursorish.core.containment import relative_name
from cursorish.core.events import FileChanged
from cursorish.core.states import AgentState
from cursorish.core.tools.base import PATH_ARG, Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext


def delete_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    path = ctx.write_path(args)
    name = relative_name(ctx.root, path)
    if not path.is_file():
        return ToolResult(f"error: {name} does not exist or is not a file", ok=False)
    path.unlink()
    ctx.emit(FileChanged(ctx.agent_id, name, deleted=True))
    return ToolResult(f"deleted {name}", changed_path=name)


TOOL = Tool(
    name="delete_file",
    description="Delete a file.",
    parameters=arguments({"path": PATH_ARG}, ["path"]),
    handler=delete_file,
    slotted=True,
    busy=AgentState.APPLYING,
    order=80,
)
