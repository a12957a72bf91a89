"""list_files: the files git would track, under a directory and/or matching a glob."""

from __future__ import annotations

from typing import Any

from cursorish.context.search import glob_filter
from cursorish.core.containment import relative_name, resolve_in_worktree
from cursorish.core.tools.base import PATH_ARG, ToolResult, arguments, reading_tool
from cursorish.core.tools.tool_context import ToolContext

MAX_LIST = 500


def list_files(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    files = ctx.files()
    directory = args.get("directory")
    if directory:
        base = relative_name(ctx.root, resolve_in_worktree(ctx.root, directory, allow_root=True))
        if base != ".":
            files = [f for f in files if f.startswith(base.rstrip("/") + "/")]
    glob = args.get("glob")
    if glob:
        files = glob_filter(files, glob)
    secrets = ctx.secrets()
    files = [
        f"{f}  (local secret: content kept from the planner)" if f in secrets else f for f in files
    ]
    shown = files[:MAX_LIST]
    more = f"\n... and {len(files) - MAX_LIST} more" if len(files) > MAX_LIST else ""
    return ToolResult(("\n".join(shown) or "(no files)") + more)


TOOL = reading_tool(
    name="list_files",
    description="List files git would track (respects .gitignore), optionally under a directory "
    "and/or matching a glob such as '*.py'.",
    parameters=arguments({"directory": PATH_ARG, "glob": {"type": "string"}}),
    handler=list_files,
    order=20,
)
