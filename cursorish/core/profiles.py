"""Agent profiles: prompt, allowed tools, model roles and budgets, loaded from TOML data files.

Built-in profiles live in the top-level `agents/` folder; a repository's `.cursorish/agents/`
overrides them by name.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.core.resources import data_dir
from cursorish.core.tools import ALL_TOOLS
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
    return parse_profile(profiles[name])


def parse_profile(path: Path) -> Profile:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read agent profile: {exc}") from None
    tools = tuple(data.get("tools", ALL_TOOLS))
    unknown = [t for t in tools if t not in ALL_TOOLS]
    if unknown:
        raise ConfigError(
            f"{path}: unknown tool(s) {', '.join(unknown)}; known: {', '.join(ALL_TOOLS)}"
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
    return Profile(
        name=str(data.get("name", path.stem)),
        description=str(data.get("description", "")),
        system_prompt=prompt,
        tools=tools,
        planner=str(models.get("planner", "")),
        apply_engine=str(models.get("apply_engine", "")),
        budgets=budgets,
        source=path,
    )


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
