"""MCP tools as agent tools: named `server__tool`, chosen by the profile, approved like commands.

`McpTools` is a tool provider (`core.tools.ToolProvider`) for `core.tools.ToolBox`: its tools
are `core.tools.Tool` objects like the built-ins. The planner's first request needs every
schema, so the tools come from each server's cached listing (`mcp/cache.py`); only a server
never listed before is started before that request (`prepare`). The others start when
one of their tools is first called. Every failure - a server that cannot start, crashes, times
out, answers nonsense or too much - comes back as a tool error the planner reads; the agent
never fails because of a server.

Approval follows the command policy: `deny` refuses every MCP call, `allow` allows them, `ask`
asks the user (the app's prompt), `allowlist` (headless) allows the tools a server's
`autoApprove`/`alwaysAllow` list or a `command_allowlist` entry `mcp:PATTERN` names.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cursorish.mcp import cache
from cursorish.mcp.config import ServerSpec
from cursorish.mcp.hub import McpFailure, McpHub, ToolInfo, Wrap

if TYPE_CHECKING:
    from cursorish.core.orchestrator import RunSettings
    from cursorish.core.tools import Tool, ToolContext, ToolResult

SEP = "__"
MAX_NAME = 64  # what OpenAI and Anthropic accept for a function name
MAX_DESCRIPTION = 1024
OUTPUT_CAP = 20_000
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class McpTool:
    exposed: str  # the name the planner sees
    spec: ServerSpec
    info: ToolInfo

    def tool(self, call: Callable[[str, dict[str, Any]], ToolResult]) -> Tool:
        """The agent tool, whose handler is `call(exposed name, arguments)`. Its other traits
        are `Tool`'s defaults: it waits for the provisioned worktree, holds no CPU slot and is
        left out in plan mode."""
        from cursorish.core.tools import Tool

        params = self.info.input_schema
        if params.get("type") != "object":
            params = {"type": "object", "properties": {}}
        desc = f"[MCP server {self.spec.name}] {self.info.description}".strip()
        if len(desc) > MAX_DESCRIPTION:
            desc = desc[: MAX_DESCRIPTION - 3] + "..."
        exposed = self.exposed
        return Tool(exposed, desc, params, handler=lambda _ctx, args: call(exposed, args))


def exposed_name(spec: ServerSpec, tool: str) -> str:
    """`key__tool`, with characters APIs refuse replaced and long names shortened by a hash."""
    name = f"{spec.key}{SEP}{_BAD_CHARS.sub('_', tool)}"
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(tool.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def server_selected(spec: ServerSpec, allow: Sequence[str], deny: Sequence[str]) -> bool:
    """Whether a profile's allow/deny patterns (on `server__tool`) can select any of the
    server's tools, so it is worth starting at all."""
    if _matches(spec.key, deny) or _matches(f"{spec.key}{SEP}*", deny):
        return False
    for pattern in allow:
        head = pattern.split(SEP, 1)[0]
        if fnmatch.fnmatchcase(spec.key, head) or pattern == "*":
            return True
    return False


def tool_selected(name: str, allow: Sequence[str], deny: Sequence[str]) -> bool:
    return _matches(name, allow) and not _matches(name, deny)


def select(
    servers: Sequence[ServerSpec], allow: Sequence[str], deny: Sequence[str]
) -> list[ServerSpec]:
    return [
        s for s in servers if not s.disabled and not s.problem and server_selected(s, allow, deny)
    ]


def sandbox_wrap(ctx: ToolContext, spec: ServerSpec) -> Wrap | None:
    """The agent's sandbox around a stdio server (the rules of its commands; `network` from
    the server's entry), or None with the sandbox off."""
    if not ctx.sandbox.enabled:
        return None
    from cursorish.core.sandbox import default_cache_dir, sandbox_argv

    policy = dataclasses.replace(ctx.sandbox, network=ctx.sandbox.network or spec.network)

    def wrap(argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        cwd = (ctx.root / spec.cwd) if spec.cwd else ctx.root
        return sandbox_argv(
            argv,
            worktree=ctx.root,
            repo_root=ctx.repo_root,
            policy=policy,
            cache_dir=default_cache_dir(ctx.root),
            cwd=cwd,
        )

    return wrap


class McpTools:
    """The MCP tools of one agent: a `core.tools.ToolProvider`."""

    def __init__(
        self,
        servers: Sequence[ServerSpec],
        ctx: ToolContext,
        *,
        allow: Sequence[str] = ("*",),
        deny: Sequence[str] = (),
    ) -> None:
        self.ctx = ctx
        self.allow = tuple(allow)
        self.deny = tuple(deny)
        self.servers = select(servers, self.allow, self.deny)
        self.hubs: dict[str, McpHub] = {}  # one per server: each has its own sandbox rules
        self.offered: dict[str, McpTool] = {}
        self.unavailable: dict[str, str] = {}  # server -> why it offers no tools now
        self._fresh: set[str] = set()  # servers listed for real by this agent
        self._cached: set[str] = set()  # servers offered from their cached listing
        for spec in self.servers:
            listed = cache.load(spec)
            if listed is not None:
                self._cached.add(spec.name)
                self._offer(spec, listed)

    # -- ToolProvider ------------------------------------------------------------------------

    def needs_prepare(self) -> bool:
        return any(s.name not in self._listed_servers() for s in self.servers)

    def prepare(self) -> None:
        """List the servers no cached listing covers (starting them), before the planner's
        first request; one that fails is noted and offers no tools."""
        todo = [
            s
            for s in self.servers
            if s.name not in self._listed_servers() and s.name not in self.unavailable
        ]
        if len(todo) <= 1:
            for spec in todo:
                self._refresh(spec)
            return
        # Each server has its own hub thread: start them side by side.
        with ThreadPoolExecutor(len(todo), thread_name_prefix="cursorish-mcp-list") as pool:
            errors = list(pool.map(self._list_only, todo))
        for spec, (listed, error) in zip(todo, errors, strict=True):
            self._store_listing(spec, listed, error)

    def tools(self) -> list[Tool]:
        return [tool.tool(self.call) for tool in self.offered.values()]

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        from cursorish.core.tools import ToolResult

        tool = self.offered[name]
        refusal = self._approve(tool, args)
        if refusal is not None:
            return ToolResult(refusal, ok=False)
        spec = tool.spec
        if spec.name not in self._fresh:
            # Started from a cached listing: check the tool still exists, refresh the cache.
            error = self._refresh(spec)
            if error is not None:
                return ToolResult(f"error: {error}", ok=False)
            if name not in self.offered:
                left = ", ".join(t for t in self.offered if self.offered[t].spec is spec) or "none"
                return ToolResult(
                    f"error: the MCP server {spec.name!r} no longer offers {tool.info.name}; "
                    f"its tools now: {left}",
                    ok=False,
                )
            tool = self.offered[name]
        try:
            outcome = self._hub(spec).call_tool(spec, tool.info.name, args)
        except McpFailure as exc:
            return ToolResult(f"error: {exc.message}", ok=False)
        text = _cap("\n".join(outcome.parts).strip() or "(no output)")
        if outcome.is_error:
            return ToolResult(f"error from the MCP tool {name}: {text}", ok=False)
        return ToolResult(text)

    def close(self) -> None:
        for hub in self.hubs.values():
            hub.close()

    # -- inside ----------------------------------------------------------------------------

    def _listed_servers(self) -> set[str]:
        return self._cached | self._fresh

    def _hub(self, spec: ServerSpec) -> McpHub:
        hub = self.hubs.get(spec.name)
        if hub is None:
            wrap = sandbox_wrap(self.ctx, spec) if spec.transport == "stdio" else None
            hub = McpHub(cwd=self.ctx.root, wrap=wrap, cancel=self.ctx.cancel)
            self.hubs[spec.name] = hub
        return hub

    def _list_only(self, spec: ServerSpec) -> tuple[list[ToolInfo], str | None]:
        try:
            return self._hub(spec).list_tools(spec), None
        except McpFailure as exc:
            return [], exc.message

    def _refresh(self, spec: ServerSpec) -> str | None:
        """List `spec`'s tools for real; the error text, or None."""
        listed, error = self._list_only(spec)
        return self._store_listing(spec, listed, error)

    def _store_listing(
        self, spec: ServerSpec, listed: list[ToolInfo], error: str | None
    ) -> str | None:
        from cursorish.core.events import McpListed, McpUnavailable

        if error is not None:
            self.unavailable[spec.name] = error
            # Front ends and the --json event stream say why its tools are missing.
            self.ctx.emit(McpUnavailable(self.ctx.agent_id, spec.name, error))
            return error
        self.unavailable.pop(spec.name, None)
        self._fresh.add(spec.name)
        cache.save(spec, listed)
        self.ctx.emit(McpListed(self.ctx.agent_id, spec.name, len(listed)))
        for name in [n for n, t in self.offered.items() if t.spec is spec]:
            del self.offered[name]
        self._offer(spec, listed)
        return None

    def _offer(self, spec: ServerSpec, listed: list[ToolInfo]) -> None:
        for info in listed:
            name = exposed_name(spec, info.name)
            if tool_selected(name, self.allow, self.deny) and name not in self.offered:
                self.offered[name] = McpTool(name, spec, info)

    def _approve(self, tool: McpTool, args: dict[str, Any]) -> str | None:
        """None when the call may go ahead, else the refusal the planner reads."""
        ctx, spec = self.ctx, tool.spec
        policy = ctx.command_policy
        if policy == "deny":
            return "error: MCP tools are disabled by policy (command_policy = deny)"
        if (
            policy == "allow"
            or _matches(tool.info.name, spec.auto_approve)
            or _matches(tool.exposed, spec.auto_approve)
            or _matches(
                tool.exposed, [a[4:] for a in ctx.command_allowlist if a.startswith("mcp:")]
            )
        ):
            return None
        if policy == "ask":
            shown = json.dumps(args, ensure_ascii=False)
            shown = shown if len(shown) <= 300 else shown[:297] + "..."
            if ctx.ask is not None and ctx.ask(f"MCP {tool.exposed} {shown}"):
                return None
            return "the user did not allow this MCP tool call"
        return (
            f"error: the MCP tool {tool.exposed} is not approved for headless runs; allow it "
            f'with "autoApprove": ["{tool.info.name}"] in the server\'s entry ({spec.source}) '
            f'or command_allowlist = ["mcp:{spec.key}{SEP}*"] in the config'
        )


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    half = OUTPUT_CAP // 2
    return (
        f"{text[:half]}\n... [MCP output truncated: {len(text)} characters in all] ...\n"
        f"{text[-half:]}"
    )


def mcp_tools_for(ctx: ToolContext, settings: RunSettings) -> McpTools | None:
    """The agent's MCP tools (None when no server is configured or the profile selects none
    of them): the `PROVIDER` of run-time tools that core/tools/registry.py discovers."""
    allow, deny = settings.profile.mcp_allow, settings.profile.mcp_deny
    if not allow or not settings.mcp_servers:
        return None
    tools = McpTools(list(settings.mcp_servers), ctx, allow=allow, deny=deny)
    return tools if tools.servers else None


PROVIDER = mcp_tools_for
