"""find_symbol: where a name is defined and referenced (context/agent_context.py's symbol index)."""

from __future__ import annotations

from typing import Any

from cursorish.core.tools.base import ToolResult, arguments, reading_tool
from cursorish.core.tools.tool_context import ToolContext


def find_symbol(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from cursorish.context.agent_context import find_symbol as find

    name = args.get("name")
    if not isinstance(name, str) or not name.strip():
        return ToolResult("error: 'name' must be a non-empty string", ok=False)
    return ToolResult(find(ctx.root, name.strip(), ctx.secrets()))


TOOL = reading_tool(
    name="find_symbol",
    description="Where a function, class, method, type or constant is defined and referenced.",
    parameters=arguments(
        {"name": {"type": "string", "description": "the symbol's name, e.g. parse_args"}},
        ["name"],
    ),
    handler=find_symbol,
    order=50,
)
