"""grep: search the worktree's files with a regular expression (or plain text)."""

from __future__ import annotations

import re
from typing import Any

from cursorish.core.tools.base import ToolResult, arguments, reading_tool
from cursorish.core.tools.tool_context import ToolContext


def grep(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from cursorish.context.search import PatternError, search_worktree

    pattern = args.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return ToolResult("error: 'pattern' must be a non-empty string", ok=False)
    glob = args.get("glob")
    try:
        matches, cut = search_worktree(
            ctx.root,
            pattern,
            regex=not args.get("fixed_string", False),
            ignore_case=bool(args.get("ignore_case", False)),
            glob=glob if isinstance(glob, str) and glob else None,
            list_files=ctx.list_files_fn,
            cancel=ctx.cancel,
        )
    except re.error as exc:
        return ToolResult(f"error: invalid regular expression: {exc}", ok=False)
    except PatternError as exc:
        return ToolResult(f"error: {exc}", ok=False)
    secrets = ctx.secrets()
    hidden = {m.path for m in matches if m.path in secrets}
    lines = [f"{m.path}:{m.line}: {m.text}" for m in matches if m.path not in hidden]
    if hidden:
        lines.append(
            f"(matches in {', '.join(sorted(hidden))} not shown: local secret files, "
            "their content is kept from the planner)"
        )
    if cut:
        lines.append("... more matches cut off; narrow the pattern or glob")
    return ToolResult("\n".join(lines) or "no matches")


TOOL = reading_tool(
    name="grep",
    description="Search file contents with a regular expression; returns path:line: text.",
    parameters=arguments(
        {
            "pattern": {"type": "string"},
            "glob": {"type": "string", "description": "only files matching this glob"},
            "ignore_case": {"type": "boolean"},
            "fixed_string": {"type": "boolean", "description": "treat pattern as plain text"},
        },
        ["pattern"],
    ),
    handler=grep,
    order=30,
)
