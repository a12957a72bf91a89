"""`cursorish mcp list` and `cursorish mcp tools NAME`: what is configured, what each offers.

`list` reads the configuration only (nothing is started); it shows the servers an untrusted
repository's files name and that are ignored. `tools` starts the server, as an agent would
(stdio in the sandbox, here around an empty scratch directory), lists its tools with the names
the planner sees, stops it, and refreshes the listing cache agents start from.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from cursorish.errors import ConfigError, CursorishError, ExitCode
from cursorish.mcp import cache
from cursorish.mcp.config import McpConfig, ServerSpec, load_mcp_config


def cmd_mcp(ns: argparse.Namespace) -> int:
    from cursorish.gitops.repo import open_repo

    root = open_repo(Path(ns.repo).expanduser()).root
    cfg = load_mcp_config(root)
    if ns.action == "list":
        return _list(cfg, ns.json)
    if not ns.name:
        raise CursorishError("give the server: cursorish mcp tools NAME", ExitCode.BAD_ARGS)
    return _tools(cfg, ns.name, root, ns.json)


def _status(spec: ServerSpec) -> str:
    if spec.disabled:
        return "disabled"
    return f"problem: {spec.problem}" if spec.problem else "ok"


def _list(cfg: McpConfig, as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for spec in cfg.servers.values():
        listed = cache.load(spec)
        rows.append(
            {
                "name": spec.name,
                "prefix": f"{spec.key}__",
                "transport": spec.transport,
                "target": spec.describe(),
                "source": spec.source,
                "status": _status(spec),
                "auto_approve": list(spec.auto_approve),
                "tools": None if listed is None else len(listed),
            }
        )
    ignored = [{"name": i.name, "source": i.source, "why": i.why} for i in cfg.ignored]
    if as_json:
        print(json.dumps({"servers": rows, "ignored": ignored}, indent=2))
        return 0
    if not rows and not ignored:
        print("no MCP servers configured (see README: MCP servers)")
        return 0
    for r in rows:
        tools = "tools not listed yet" if r["tools"] is None else f"{r['tools']} tools"
        print(f"{r['name']}  ({r['transport']}, {tools}, tools named {r['prefix']}*)")
        print(f"    {r['target']}")
        print(f"    from {r['source']}")
        if r["status"] != "ok":
            print(f"    {r['status']}")
    for i in ignored:
        print(f"{i['name']}  ignored")
        print(f"    from {i['source']}: {i['why']}")
    return 0


def _tools(cfg: McpConfig, name: str, root: Path, as_json: bool) -> int:
    from cursorish.mcp.hub import McpFailure, McpHub
    from cursorish.mcp.tools import exposed_name

    spec = cfg.find(name)
    if spec is None:
        for ignored in cfg.ignored:
            if ignored.name == name:
                raise ConfigError(f"the MCP server {name!r} ({ignored.source}) is {ignored.why}")
        known = ", ".join(cfg.servers) or "none"
        raise CursorishError(
            f"no MCP server named {name!r} (configured: {known})", ExitCode.BAD_ARGS
        )
    if spec.problem:
        raise ConfigError(f"the MCP server {spec.name!r} ({spec.source}): {spec.problem}")
    with tempfile.TemporaryDirectory(prefix="cursorish-mcp-") as scratch:
        hub = McpHub(cwd=Path(scratch), wrap=_wrap(root, Path(scratch), spec))
        try:
            listed = hub.list_tools(spec)
        except McpFailure as exc:
            raise ConfigError(exc.message) from None
        finally:
            hub.close(wait=10)
    cache.save(spec, listed)
    rows: list[dict[str, Any]] = [
        {
            "name": exposed_name(spec, t.name),
            "tool": t.name,
            "description": t.description,
            "input_schema": t.input_schema,
        }
        for t in listed
    ]
    if as_json:
        print(json.dumps({"server": spec.name, "tools": rows}, indent=2))
        return 0
    print(f"{spec.name}: {len(rows)} tools ({spec.describe()})")
    for r in rows:
        desc = " ".join(str(r["description"]).split())
        desc = desc if len(desc) <= 100 else desc[:97] + "..."
        params = ", ".join(r["input_schema"].get("properties", {}) or {})
        print(f"  {r['name']}({params})")
        if desc:
            print(f"      {desc}")
    return 0


def _wrap(root: Path, scratch: Path, spec: ServerSpec) -> Any:
    """The sandbox of the user's configuration around a stdio server, or None."""
    if spec.transport != "stdio":
        return None
    import dataclasses

    from cursorish.config import load_config
    from cursorish.core.sandbox import policy_from_config, sandbox_argv

    policy = policy_from_config(load_config(root))
    if not policy.enabled:
        return None
    policy = dataclasses.replace(policy, network=policy.network or spec.network)

    def wrap(argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        return sandbox_argv(
            argv,
            worktree=scratch,
            repo_root=root,
            policy=policy,
            cache_dir=scratch / ".cache",
        )

    return wrap
