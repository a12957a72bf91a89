"""finish: the planner says the task is done (or cannot be done), with a summary."""

from __future__ import annotations

from typing import Any

from cursorish.core.tools.base import Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext


def finish(_ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    summary = str(args.get("summary") or "").strip()
    status = str(args.get("status") or "done")
    if status not in ("done", "gave_up"):
        return ToolResult("error: status must be 'done' or 'gave_up'", ok=False)
    return ToolResult("finished", finished=True, finish_status=status, summary=summary)


TOOL = Tool(
    name="finish",
    description="Call when the task is done (status 'done') or cannot be done ('gave_up').",
    parameters=arguments(
        {
            "summary": {"type": "string", "description": "what you changed and why"},
            "status": {"type": "string", "enum": ["done", "gave_up"]},
        },
        ["summary"],
    ),
    handler=finish,
    # Waits for the provisioned worktree (the default stage): the agent's work is committed
    # once it finishes, and that must not race the setup command.
    read_only=True,
    order=100,
)
