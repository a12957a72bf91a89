"""The tools there are: registered by name, the built-ins found by importing `builtins/`.

A tool is added by writing one module that defines `TOOL` in a package the registry discovers
(`cursorish.core.tools.builtins`, or any package given to `discover`); a profile's `tools` list
selects from the registered names. The built-ins are discovered on first use, so importing
the registry costs nothing.

Tools known only at run time (an agent's MCP servers) come through the same registry as
providers: a module that defines `PROVIDER`, a function of the agent's `ToolContext` and the
run's settings (core/orchestrator.RunSettings) that returns a `ToolProvider`, or None when the
run offers none of its tools.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cursorish.core.tools.base import Tool, ToolProvider
from cursorish.core.tools.tool_context import ToolContext
from cursorish.errors import CursorishError

BUILTINS = "cursorish.core.tools.builtins"
PROVIDERS = ("cursorish.mcp.tools",)

# (the agent's context, the run's settings) -> its provider, or None
ProviderFactory = Callable[[ToolContext, Any], ToolProvider | None]


class ToolRegistry:
    def __init__(
        self, packages: Iterable[str] = (BUILTINS,), providers: Iterable[str] = PROVIDERS
    ) -> None:
        self._pending = list(packages)
        self._tools: dict[str, Tool] = {}
        self._provider_modules = list(providers)
        self._factories: list[ProviderFactory] = []
        self._lock = threading.RLock()

    def register(self, tool: Tool) -> Tool:
        """Add `tool`; a second, different tool of the same name is a programming error."""
        with self._lock:
            known = self._tools.get(tool.name)
            if known is not None and known is not tool:
                raise ValueError(f"two tools are called {tool.name!r}")
            self._tools[tool.name] = tool
        return tool

    def unregister(self, name: str) -> None:
        with self._lock:
            self._tools.pop(name, None)

    def discover(self, package: str) -> list[Tool]:
        """Import every module of `package` and register the `TOOL` each defines."""
        found = []
        with self._lock:
            found_in = importlib.import_module(package)
            for module in pkgutil.iter_modules(found_in.__path__, f"{package}."):
                tool = getattr(importlib.import_module(module.name), "TOOL", None)
                if not isinstance(tool, Tool):
                    raise TypeError(f"{module.name} defines no TOOL (a core.tools.base.Tool)")
                found.append(self.register(tool))
        return found

    def add_provider(self, factory: ProviderFactory) -> ProviderFactory:
        with self._lock:
            if factory not in self._factories:
                self._factories.append(factory)
        return factory

    def remove_provider(self, factory: ProviderFactory) -> None:
        with self._lock:
            if factory in self._factories:
                self._factories.remove(factory)

    def factories(self) -> tuple[ProviderFactory, ...]:
        """The provider factories, the `PROVIDERS` modules' loaded on first use."""
        with self._lock:
            while self._provider_modules:
                module = importlib.import_module(self._provider_modules[0])
                self.add_provider(module.PROVIDER)
                self._provider_modules.pop(0)
            return tuple(self._factories)

    def providers_for(self, ctx: ToolContext, settings: Any) -> tuple[ToolProvider, ...]:
        """The providers of one agent's run-time tools, in registration order."""
        found = (factory(ctx, settings) for factory in self.factories())
        return tuple(provider for provider in found if provider is not None)

    def _ready(self) -> dict[str, Tool]:
        if self._pending:
            with self._lock:
                while self._pending:
                    self.discover(self._pending[0])
                    self._pending.pop(0)
        return self._tools

    def get(self, name: str) -> Tool | None:
        return self._ready().get(name)

    def tools(self) -> tuple[Tool, ...]:
        """Every registered tool, in the order the planner sees them."""
        return tuple(sorted(self._ready().values(), key=lambda t: (t.order, t.name)))

    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools())

    def select(self, names: Iterable[str]) -> tuple[Tool, ...]:
        """The tools a profile names, in registry order; unknown names are the user's error."""
        wanted = tuple(names)
        unknown = [n for n in wanted if self.get(n) is None]
        if unknown:
            raise CursorishError(f"unknown tool(s) in profile: {', '.join(unknown)}")
        return tuple(t for t in self.tools() if t.name in wanted)


# The process's tools: the built-ins, and whatever a test or a plugin registers.
REGISTRY = ToolRegistry()
