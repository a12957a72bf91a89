"""The tools an agent's planner can call.

- `base.py`: `Tool` (name, schema, stage, CPU slot, busy state, target, handler), `ToolResult`
  and `ToolProvider` (tools made at run time, e.g. an agent's MCP servers);
- `context.py`: `ToolContext`, what a handler gets (worktree, policies, event sink, path checks);
- `registry.py`: the registered tools; the built-ins are the modules of `builtins/`, one tool
  each, found by importing the package, so adding a tool is writing one file;
- `box.py`: `ToolBox`, one agent's tools (the profile's selection plus its providers').

Every tool runs inside one worktree; every path goes through `resolve_in_worktree`.
"""

from __future__ import annotations

from cursorish.core.tools.base import Tool, ToolProvider, ToolResult
from cursorish.core.tools.box import ToolBox
from cursorish.core.tools.registry import REGISTRY, ToolRegistry
from cursorish.core.tools.tool_context import ToolContext

__all__ = [
    "REGISTRY",
    "Tool",
    "ToolBox",
    "ToolContext",
    "ToolProvider",
    "ToolRegistry",
    "ToolResult",
]
