"""One agent's tools: the profile's built-ins and its providers' tools, dispatched by name.

A tool never raises into the agent loop: failures come back as a result text the planner can
act on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from cursorish.core.text import for_planner
from cursorish.core.tools.base import Tool, ToolProvider, ToolResult
from cursorish.core.tools.registry import REGISTRY, ToolRegistry
from cursorish.core.tools.tool_context import ToolContext
from cursorish.errors import CursorishError


class ToolBox:
    """Dispatches tool calls by name; only the tools of the agent's profile are offered."""

    def __init__(
        self,
        ctx: ToolContext,
        allowed: Iterable[str] | None = None,
        dynamic: tuple[ToolProvider, ...] = (),
        registry: ToolRegistry = REGISTRY,
    ) -> None:
        self.ctx = ctx
        self.builtin = registry.select(registry.names() if allowed is None else allowed)
        self.allowed = tuple(t.name for t in self.builtin)
        self.dynamic = dynamic

    def _provided(self) -> list[Tool]:
        return [tool for provider in self.dynamic for tool in provider.tools()]

    def schemas(self, read_only: bool = False) -> list[dict[str, Any]]:
        """The schemas the planner is offered; with `read_only`, only those of the tools that
        change nothing and start nothing (plan mode)."""
        tools = (*self.builtin, *self._provided())
        return [tool.schema for tool in tools if tool.read_only or not read_only]

    def needs_prepare(self) -> bool:
        return any(d.needs_prepare() for d in self.dynamic)

    def prepare(self) -> None:
        for d in self.dynamic:
            d.prepare()

    def close(self) -> None:
        for d in self.dynamic:
            d.close()

    def find(self, name: str) -> Tool | None:
        """The offered tool called `name`: a built-in first, then the providers' in order."""
        for tool in self.builtin:
            if tool.name == name:
                return tool
        return next((t for t in self._provided() if t.name == name), None)

    def about(self, name: str) -> Tool:
        """What the agent loop needs to know of a call to `name` (stage, slot, busy state);
        a name nobody offers gets the defaults of `Tool`."""
        return self.find(name) or Tool(name, "", {})

    def target(self, name: str, raw_arguments: str) -> str:
        """What a call is about (a path, a pattern, a command), for progress output."""
        return self.about(name).target_of_call(raw_arguments)

    def call(self, name: str, raw_arguments: str) -> ToolResult:
        """Run one tool call. Its text is valid UTF-8 whatever the bytes of the files and their
        names: an undecodable byte is written `\\xHH` (core/text.for_planner), as the planner
        and the store need, and a path given back that way names the byte again."""
        result = self._dispatch(name, raw_arguments)
        result.text = for_planner(result.text)
        return result

    def _dispatch(self, name: str, raw_arguments: str) -> ToolResult:
        tool = self.find(name)
        if tool is None:
            known = ", ".join(f["function"]["name"] for f in self.schemas())
            return ToolResult(f"error: unknown tool {name!r}; available tools: {known}", ok=False)
        try:
            args = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return ToolResult(
                f"error: the arguments of {name} are not valid JSON ({exc.msg} at char "
                f"{exc.pos}); resend the call with a JSON object",
                ok=False,
            )
        if not isinstance(args, dict):
            return ToolResult(f"error: the arguments of {name} must be a JSON object", ok=False)
        try:
            return tool.handler(self.ctx, args)
        except CursorishError as exc:
            return ToolResult(f"error: {exc.message}", ok=False)
        except (KeyError, TypeError) as exc:
            return ToolResult(f"error: bad arguments for {name}: {exc}", ok=False)
        except OSError as exc:
            return ToolResult(f"error: {exc.strerror or exc}", ok=False)
        except Exception as exc:  # a tool bug must reach the planner as a result, not crash
            return ToolResult(f"error: {name} failed: {type(exc).__name__}: {exc}", ok=False)
