"""create_file: write a new file (never over an existing one)."""

from __future__ import annotations

from typing import Any

from cursorish.apply.textio import write_atomic
from cursorish.core.containment import relative_name, resolve_in_worktree
from cursorish.core.events import FileChanged
from cursorish.core.states import AgentState
from cursorish.core.tools.base import PATH_ARG, Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext


def create_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    path = ctx.write_path(args)
    name = relative_name(ctx.root, path)
    content = ctx.text(args, "content")
    if path.exists():
        return ToolResult(f"error: {name} already exists; use edit_file", ok=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkdir may have followed nothing odd, but re-check containment of the final location.
    resolve_in_worktree(ctx.root, name)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ToolResult(
            f"error: the content is not text (a lone surrogate at character {exc.start}); "
            "send the file as UTF-8 text",
            ok=False,
        )
    write_atomic(path, data)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    ctx.emit(FileChanged(ctx.agent_id, name, added=lines, removed=0))
    return ToolResult(f"created {name} ({lines} lines)", changed_path=name)


TOOL = Tool(
    name="create_file",
    description="Create a new file with the given full content (fails if it exists).",
    parameters=arguments({"path": PATH_ARG, "content": {"type": "string"}}, ["path", "content"]),
    handler=create_file,
    slotted=True,
    busy=AgentState.APPLYING,
    order=70,
)
