"""search_code: the files most relevant to a description (context/agent_context.py ranks them)."""

from __future__ import annotations

from typing import Any

from cursorish.core.tools.base import ToolResult, arguments, reading_tool
from cursorish.core.tools.tool_context import ToolContext


def search_code(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from cursorish.context.agent_context import search_code as ranked

    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolResult("error: 'query' must be a non-empty string", ok=False)
    k = args.get("k", 10)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        return ToolResult("error: 'k' must be an integer from 1 to 50", ok=False)
    return ToolResult(ranked(ctx.root, query, k, ctx.secrets()))


TOOL = reading_tool(
    name="search_code",
    description="Find the files most relevant to a description, identifiers or words (ranked: "
    "text match, names in paths, definitions, the call graph); returns paths with matching "
    "lines.",
    parameters=arguments(
        {
            "query": {"type": "string", "description": "what you look for, in words or names"},
            "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "files (10)"},
        },
        ["query"],
    ),
    handler=search_code,
    order=40,
)
