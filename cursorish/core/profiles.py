"""Agent profiles: prompt, allowed tools, model roles and budgets, loaded from TOML data files.

Built-in profiles live in the top-level `agents/` folder; a repository's `.cursorish/agents/`
overrides them by name.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.core.resources import data_dir
from cursorish.core.tools import REGISTRY
from cursorish.core.trust import (
    AGENTS_DIR,
    WIDENING_CONFIG_KEYS,
    content_trusted,
    untrusted_profile_tools,
)
from cursorish.errors import ConfigError


@dataclass(frozen=True)
class Budgets:
    max_steps: int = 40
    max_tokens: int = 500_000
    max_cost_usd: float = 3.0
    max_wall_s: float = 1800.0


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...]
    planner: str
    apply_engine: str
    budgets: Budgets
    source: Path
    # What an untrusted repository profile asked for and did not get (see core/trust.py).
    ignored: tuple[str, ...] = ()
    # Network inside the command sandbox; honoured only from a built-in or user profile,
    # never from a repository's (see build_settings).
    sandbox_network: bool = False
    # Plan first (issue 15): read and search only, end with a plan the user approves.
    plan: bool = False
    # MCP tools offered (globs on `server__tool`, table [mcp] allow/deny; see cursorish/mcp).
    mcp_allow: tuple[str, ...] = ("*",)
    mcp_deny: tuple[str, ...] = ()
    # Tokens of the repo map in the first message ([context] repo_map_tokens; 0: none).
    repo_map_tokens: int = 1500


def profile_dirs(repo_root: Path | None) -> list[Path]:
    dirs = [data_dir("agents")]
    if repo_root is not None:
        dirs.append(repo_root / ".cursorish" / "agents")
    return dirs


def available_profiles(repo_root: Path | None) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in profile_dirs(repo_root):  # later folders override earlier ones
        if folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                found[path.stem] = path
    return found


def load_profile(name: str, repo_root: Path | None) -> Profile:
    profiles = available_profiles(repo_root)
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(f"no agent profile named {name!r} (available: {known})")
    path = profiles[name]
    if repo_root is None or path.parent != repo_root / AGENTS_DIR:
        return parse_profile(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read agent profile: {exc.strerror}") from None
    # The bytes parsed are the bytes whose trust is checked: no change in between.
    trusted = content_trusted(repo_root, f"{AGENTS_DIR}/{path.name}", raw)
    return parse_profile(path, raw, trusted=trusted)


def parse_profile(path: Path, raw: bytes | None = None, *, trusted: bool = True) -> Profile:
    """Parse a profile file; an untrusted (repository) one keeps no tool that widens power."""
    try:
        data: dict[str, Any] = tomllib.loads(
            (path.read_bytes() if raw is None else raw).decode("utf-8")
        )
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read agent profile: {exc}") from None
    ignored: tuple[str, ...] = ()
    if not trusted:
        data, ignored = _untrusted_view(path.stem, data)
    known = REGISTRY.names()
    tools = tuple(data.get("tools", known))
    unknown = [t for t in tools if t not in known]
    if unknown:
        raise ConfigError(
            f"{path}: unknown tool(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    if "finish" not in tools:
        tools = (*tools, "finish")
    prompt = str(data.get("prompt", {}).get("system", "")).strip()
    if not prompt:
        raise ConfigError(f"{path}: [prompt] system is empty")
    models = data.get("models", {})
    b = data.get("budgets", {})
    defaults = Budgets()
    try:
        budgets = Budgets(
            max_steps=int(b.get("max_steps", defaults.max_steps)),
            max_tokens=int(b.get("max_tokens", defaults.max_tokens)),
            max_cost_usd=float(b.get("max_cost_usd", defaults.max_cost_usd)),
            max_wall_s=float(b.get("max_wall_s", defaults.max_wall_s)),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: bad [budgets] value: {exc}") from None
    for key, value in vars(budgets).items():
        if not math.isfinite(value) or value < 0:  # 0: no limit; below it, or nan, a mistake
            raise ConfigError(f"{path}: [budgets] {key} must be a number >= 0, got {value!r}")
    return Profile(
        name=str(data.get("name", path.stem)),
        description=str(data.get("description", "")),
        system_prompt=prompt,
        tools=tools,
        planner=str(models.get("planner", "")),
        apply_engine=str(models.get("apply_engine", "")),
        budgets=budgets,
        source=path,
        ignored=ignored,
        sandbox_network=data.get("sandbox_network") is True,
        plan=data.get("plan") is True,
        mcp_allow=_patterns(path, data, "allow", ("*",)),
        mcp_deny=_patterns(path, data, "deny", ()),
        repo_map_tokens=_repo_map_tokens(path, data),
    )


def _repo_map_tokens(path: Path, data: dict[str, Any]) -> int:
    table = data.get("context", {})
    value = table.get("repo_map_tokens", 1500) if isinstance(table, dict) else None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 50_000:
        raise ConfigError(f"{path}: [context] repo_map_tokens must be an integer 0-50000")
    return value


def _patterns(
    path: Path, data: dict[str, Any], key: str, default: tuple[str, ...]
) -> tuple[str, ...]:
    table = data.get("mcp", {})
    value = table.get(key, list(default)) if isinstance(table, dict) else None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [mcp] {key} must be a list of tool-name patterns")
    return tuple(value)


def _untrusted_view(name: str, data: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """`data` without what an untrusted profile may not have, and a note of each removal."""
    view = dict(data)
    notes: list[str] = []
    tools = data.get("tools", REGISTRY.names())
    if isinstance(tools, list | tuple):
        asked = tuple(str(t) for t in tools)
        kept = untrusted_profile_tools(name, asked)
        dropped = [t for t in asked if t not in kept and t != "finish"]
        if dropped:
            notes.append(f"tools {', '.join(dropped)}")
        view["tools"] = list(kept)
    for key in list(view):
        if key.startswith("sandbox") or key in WIDENING_CONFIG_KEYS:
            notes.append(key)
            del view[key]
    # MCP tools act with the user's servers: an untrusted profile offers none.
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and mcp.get("allow"):
        notes.append("mcp tools")
    view["mcp"] = {"allow": []}
    return view, tuple(notes)


PROJECT_INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", ".cursorrules")
MAX_INSTRUCTIONS = 20_000


def project_instructions(texts: dict[str, bytes]) -> str:
    """The repository's own instructions for agents, from the instruction files' contents
    (`texts`: file name -> bytes, for the names of PROJECT_INSTRUCTION_FILES that exist)."""
    parts = []
    for name in PROJECT_INSTRUCTION_FILES:
        text = texts[name].decode("utf-8", errors="replace").strip() if name in texts else ""
        if text:
            parts.append(f"## {name}\n{text[:MAX_INSTRUCTIONS]}")
    return "\n\n".join(parts)
