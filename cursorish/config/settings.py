"""The settings of a run, built from the layered configuration: one place for every front end.

The headless CLI, the app, the demo, `agents resume`, review feedback and `chat` all turn a
`Config` (flags > environment > repository > user > defaults, see config/layers.py) and the
chosen agent profile into the same `RunSettings`. Everything that can be wrong with them
(no planner, an unknown profile or engine, a sandbox that cannot start, a malformed MCP file)
is raised here, before any worktree exists. Nothing is printed: a warning goes to the `warn`
callback of the front end.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.errors import ConfigError

if TYPE_CHECKING:
    from cursorish.config.layers import Config
    from cursorish.core.orchestrator import RunSettings
    from cursorish.core.profiles import Profile
    from cursorish.core.sandbox import SandboxPolicy

# The run options a front end may give as flags (names of config keys); they win over
# every configuration file and the environment.
FLAG_KEYS = (
    "planner",
    "api_base",
    "apply_model",
    "apply_engine",
    "profile",
    "max_steps",
    "max_tokens",
    "max_cost_usd",
    "max_wall_s",
    "concurrency",
    "command_policy",
    "sandbox",
    "sandbox_network",
)


def flags_from(ns: object) -> dict[str, Any]:
    """The FLAG_KEYS given (not None) on `ns`, e.g. an argparse Namespace."""
    return {k: getattr(ns, k) for k in FLAG_KEYS if getattr(ns, k, None) is not None}


def agent_flags(row: Mapping[str, Any], flags: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`flags` (those the user gave) and, where not given, the planner and profile the agent
    `row` started with: resuming an agent or sending it review feedback runs it as it began."""
    out = dict(flags or {})
    if "planner" not in out and row.get("planner_model"):
        out["planner"] = row["planner_model"]
    if "profile" not in out and row.get("profile"):
        out["profile"] = row["profile"]
    return out


def build_settings(cfg: Config, repo_root: Path, *, warn: Callable[[str], None]) -> RunSettings:
    """Resolve planner, profile, budgets and policies: config values win over profile values.

    `warn` gets the lines a user must see on every run (the sandbox is off)."""
    from cursorish.apply.engines import ENGINES
    from cursorish.config.layers import require_planner
    from cursorish.core.command_runner import DEFAULT_ALLOWLIST
    from cursorish.core.orchestrator import RunSettings
    from cursorish.core.profiles import Budgets, load_profile
    from cursorish.planner.client import PlannerSettings

    profile = load_profile(cfg.get_str("profile"), repo_root)
    if not cfg.get_str("planner") and profile.planner:
        cfg.override("planner", profile.planner, str(profile.source))
    model = require_planner(cfg)
    engine = cfg.get_str("apply_engine")
    if cfg.is_default("apply_engine") and profile.apply_engine:
        engine = profile.apply_engine
    if engine not in ENGINES:
        choices = f"{', '.join(ENGINES[:-1])} or {ENGINES[-1]}"
        raise ConfigError(f"apply_engine must be {choices}, not {engine!r}")
    b = profile.budgets
    budgets = Budgets(
        max_steps=cfg.get_int("max_steps") or b.max_steps,
        max_tokens=cfg.get_int("max_tokens") or b.max_tokens,
        max_cost_usd=cfg.get_float("max_cost_usd") or b.max_cost_usd,
        max_wall_s=cfg.get_float("max_wall_s") or b.max_wall_s,
    )
    policy = cfg.get_str("command_policy")
    if policy == "ask":
        policy = "allowlist"  # nobody can answer a prompt headless
    configure_apply(cfg)
    return RunSettings(
        planner=PlannerSettings(
            model=model,
            api_base=cfg.get_str("api_base") or None,
            api_key=cfg.get_str("api_key") or None,
            timeout_s=cfg.get_float("planner_timeout_s"),
            max_retries=cfg.get_int("planner_retries"),
            stream=cfg.get_bool("stream"),
        ),
        profile=profile,
        budgets=budgets,
        apply_engine=engine,
        command_policy=policy,
        command_allowlist=DEFAULT_ALLOWLIST + cfg.get_list("command_allowlist"),
        command_timeout_s=cfg.get_float("command_timeout_s"),
        concurrency=max(1, cfg.get_int("concurrency")),
        expose_local_files=cfg.get_list("expose_local_files"),
        sandbox=sandbox_settings(cfg, profile, repo_root, warn=warn),
        mcp_servers=mcp_servers(repo_root),
    )


def mcp_servers(repo_root: Path) -> tuple[Any, ...]:
    """The run's MCP servers, read once (a malformed file is exit 8 before any worktree);
    nothing is started here: each agent starts what it uses (cursorish/mcp)."""
    from cursorish.mcp.config import load_mcp_config

    return tuple(load_mcp_config(repo_root).servers.values())


def sandbox_settings(
    cfg: Config, profile: Profile, repo_root: Path, *, warn: Callable[[str], None]
) -> SandboxPolicy:
    """The sandbox policy of a run: checked here, before any worktree exists, so that a
    sandbox that cannot start is exit 9 up front; off is a warning on every run."""
    from cursorish.core.sandbox import OFF_WARNING, check_available, policy_from_config

    network: bool | None = None
    repo_profile = Path(profile.source).parent == repo_root / ".cursorish" / "agents"
    if cfg.is_default("sandbox_network") and profile.sandbox_network:
        network = not repo_profile  # a repository never opens the network itself
    policy = policy_from_config(cfg, network=network)
    if policy.enabled:
        check_available()
    else:
        warn(OFF_WARNING)
    return policy


def configure_apply(cfg: Config) -> None:
    """Tell the apply router which local/remote model backs `--engine auto|model`."""
    model_path = cfg.get_str("apply_model")
    remote = cfg.get_str("apply_api_base")
    remote_format = cfg.get_str("apply_remote_format")
    if not model_path and not remote and not remote_format:
        return
    from cursorish.apply.router import configure

    configure(
        model_path=model_path or None,
        remote_api_base=remote or None,
        remote_model=cfg.get_str("apply_remote_model") or None,
        remote_api_key=cfg.get_str("apply_api_key") or None,
        remote_format=remote_format or None,
        remote_timeout_s=cfg.get_float("apply_timeout_s"),
    )
