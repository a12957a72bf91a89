"""Handlers of the headless subcommands: the task run, `config`, `log`, `agents`, `gc`.

Each handler turns parsed arguments into calls on the core and prints the result.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.errors import ConfigError, CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.core.config import Config
    from cursorish.core.orchestrator import RunSettings
    from cursorish.gitops.repo import RepoInfo

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


def flags_from(ns: argparse.Namespace) -> dict[str, Any]:
    return {k: getattr(ns, k) for k in FLAG_KEYS if getattr(ns, k, None) is not None}


def open_repo_and_config(ns: argparse.Namespace) -> tuple[RepoInfo, Config]:
    from cursorish.core.config import load_config
    from cursorish.gitops.repo import open_repo

    repo = open_repo(Path(ns.repo).expanduser())
    return repo, load_config(repo.root, flags_from(ns))


def build_settings(cfg: Config, repo_root: Path) -> RunSettings:
    """Resolve planner, profile, budgets and policies: config values win over profile values."""
    from cursorish.core.commands import DEFAULT_ALLOWLIST
    from cursorish.core.config import require_planner
    from cursorish.core.orchestrator import RunSettings
    from cursorish.core.profiles import Budgets, load_profile
    from cursorish.planner.client import PlannerSettings

    profile = load_profile(cfg.get_str("profile"), repo_root)
    if not cfg.get_str("planner") and profile.planner:
        cfg.values["planner"], cfg.sources["planner"] = profile.planner, str(profile.source)
    model = require_planner(cfg)
    engine = cfg.get_str("apply_engine")
    if cfg.sources["apply_engine"] == "default" and profile.apply_engine:
        engine = profile.apply_engine
    if engine not in ("auto", "deterministic", "model"):
        raise ConfigError(f"apply_engine must be auto, deterministic or model, not {engine!r}")
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
            stream=bool(cfg["stream"]),
        ),
        profile=profile,
        budgets=budgets,
        apply_engine=engine,
        command_policy=policy,
        command_allowlist=DEFAULT_ALLOWLIST + tuple(cfg["command_allowlist"]),
        command_timeout_s=cfg.get_float("command_timeout_s"),
        concurrency=max(1, cfg.get_int("concurrency")),
        expose_local_files=tuple(cfg["expose_local_files"]),
        sandbox=sandbox_settings(cfg, profile, repo_root),
        mcp_servers=mcp_servers(repo_root),
    )


def mcp_servers(repo_root: Path) -> tuple[Any, ...]:
    """The run's MCP servers, read once (a malformed file is exit 8 before any worktree);
    nothing is started here: each agent starts what it uses (cursorish/mcp)."""
    from cursorish.mcp.config import load_mcp_config

    return tuple(load_mcp_config(repo_root).servers.values())


def sandbox_settings(cfg: Config, profile: Any, repo_root: Path) -> Any:
    """The sandbox policy of a run: checked here, before any worktree exists, so that a
    sandbox that cannot start is exit 9 up front; off prints a warning on every run."""
    import sys

    from cursorish.core.sandbox import OFF_WARNING, check_available, policy_from_config

    network: bool | None = None
    repo_profile = Path(profile.source).parent == repo_root / ".cursorish" / "agents"
    if cfg.sources["sandbox_network"] == "default" and profile.sandbox_network:
        network = not repo_profile  # a repository never opens the network itself
    policy = policy_from_config(cfg, network=network)
    if policy.enabled:
        check_available()
    else:
        print(OFF_WARNING, file=sys.stderr)
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
    )


def read_tasks(ns: argparse.Namespace) -> list[str]:
    if ns.task is not None:
        if not ns.task.strip():
            raise CursorishError("--task is empty", ExitCode.BAD_ARGS)
        return [ns.task] * ns.agents
    try:
        text = Path(ns.tasks).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CursorishError(f"cannot read --tasks {ns.tasks}: {exc}", ExitCode.BAD_ARGS) from None
    tasks = [line.strip() for line in text.splitlines()]
    tasks = [t for t in tasks if t and not t.startswith("#")]
    if not tasks:
        raise CursorishError(f"--tasks {ns.tasks} holds no task", ExitCode.BAD_ARGS)
    return tasks


def plan_mode(ns: argparse.Namespace, settings: RunSettings) -> bool:
    """Plan first: the --plan flag, else the profile's `plan = true`."""
    flag = getattr(ns, "plan", None)
    return bool(settings.profile.plan if flag is None else flag)


def cmd_task(ns: argparse.Namespace) -> int:
    from cursorish.headless import Printer, run_headless
    from cursorish.store.db import Store

    tasks = read_tasks(ns)
    repo, cfg = open_repo_and_config(ns)
    settings = build_settings(cfg, repo.root)
    warn_untrusted(repo.root)
    store = Store.for_repo(repo.git_common_dir)
    mode = "json" if ns.json else "quiet" if ns.quiet else "text"
    try:
        return run_headless(
            repo,
            store,
            settings,
            tasks,
            Printer(mode=mode),
            base=getattr(ns, "base", None),
            plan=plan_mode(ns, settings),
        )
    finally:
        store.close()


def cmd_config(ns: argparse.Namespace) -> int:
    from cursorish.core.config import load_config
    from cursorish.gitops.repo import open_repo

    try:
        root: Path | None = open_repo(Path(ns.repo).expanduser()).root
    except CursorishError:
        root = None  # outside a repository: user-level configuration only
    cfg = load_config(root, flags_from(ns))
    rows = cfg.printable()
    if ns.json:
        data: dict[str, Any] = {k: {"value": v, "source": s} for k, v, s in rows}
        for key, value, origin, why in cfg.ignored:
            data.setdefault(key, {}).setdefault("ignored", []).append(
                {"value": value, "source": origin, "why": why}
            )
        print(json.dumps(data, indent=2))
        return 0
    width = max(len(k) for k, _, _ in rows)
    vwidth = min(40, max(len(v) for _, v, _ in rows))
    for key, value, source in rows:
        print(f"{key:<{width}}  {value:<{vwidth}}  {source}")
        for ikey, ivalue, origin, why in cfg.ignored:
            if ikey == key:
                print(f"{'':<{width}}  {ivalue:<{vwidth}}  {why}: {origin}")
    files = ", ".join(str(f) for f in cfg.files) or "none"
    print(f"\nconfig files read: {files}")
    if root is not None:
        from cursorish.core.trust import notice

        line = notice(root)
        if line:
            print(line.removeprefix("cursorish: "))
    return 0


def warn_untrusted(repo_root: Path) -> None:
    """One stderr line naming the repository values ignored until the user trusts it."""
    import sys

    from cursorish.core.trust import notice

    line = notice(repo_root)
    if line:
        print(line, file=sys.stderr)


def _store_for(repo_arg: str) -> Any:
    from cursorish.gitops.repo import open_repo
    from cursorish.store.db import Store

    repo = open_repo(Path(repo_arg).expanduser())
    return repo, Store.for_repo(repo.git_common_dir)


def cmd_log(ns: argparse.Namespace) -> int:
    _repo, store = _store_for(ns.repo)
    try:
        agent = store.agent(ns.agent) if ns.agent else store.last_agent()
        if agent is None:
            what = f"no agent {ns.agent!r}" if ns.agent else "no agent has run"
            raise CursorishError(
                f"{what} in this repository (see `cursorish agents`)", ExitCode.BAD_ARGS
            )
        entries = store.transcript(agent["id"])
        if ns.json:
            for entry in entries:
                print(json.dumps(entry, default=str))
            return 0
        from cursorish.core.text import escape_controls as shown  # planner and file text

        print(f"agent {agent['id']}  {agent['state']}  branch {agent['branch']}")
        print(f"task: {shown(store.task_text(agent))}\n")
        for entry in entries:
            print(shown(render_entry(entry, full=ns.full)))
        if agent.get("setup_output"):
            print(f"--- worktree setup output\n{shown(_clip(agent['setup_output'], ns.full))}")
        if agent.get("error"):
            print(f"--- ended {agent['state']}: {shown(agent['error'])}")
        return 0
    finally:
        store.close()


def _clip(text: str, full: bool, limit: int = 800) -> str:
    if full or len(text) <= limit:
        return text
    return text[:limit] + f"\n    ... ({len(text) - limit} more characters; --full shows all)"


def render_entry(entry: dict[str, Any], *, full: bool = False) -> str:
    kind = entry.get("kind") or entry.get("type") or "?"
    body = {k: v for k, v in entry.items() if k not in ("kind", "type")}
    if kind == "message":
        role = body.get("role", "?")
        parts = [f"--- {role}"]
        if body.get("content"):
            parts.append(_clip(str(body["content"]), full))
        for call in body.get("tool_calls") or []:
            fn = call.get("function", {})
            parts.append(f"  -> {fn.get('name')}({_clip(str(fn.get('arguments')), full, 300)})")
        return "\n".join(parts)
    if kind == "apply_attempt":
        reason = f": {body.get('reason')}" if body.get("reason") else ""
        return f"    [apply {body.get('path')} {body.get('engine')} {body.get('outcome')}{reason}]"
    if kind == "planner_call":
        err = f" ERROR {body.get('error')}" if body.get("error") else ""
        return (
            f"    [planner step {body.get('step')}: {body.get('prompt_tokens')}+"
            f"{body.get('completion_tokens')} tokens, {body.get('elapsed_ms')} ms{err}]"
        )
    if kind == "tool_call":
        return (
            f"    [tool {body.get('name')} ok={bool(body.get('ok'))} {body.get('elapsed_ms')} ms]"
        )
    return f"    [{kind}] " + json.dumps(body, default=str)[:300]


def cmd_agents(ns: argparse.Namespace) -> int:
    from cursorish.agents_cli import run_agents_command

    return run_agents_command(ns)


def cmd_gc(ns: argparse.Namespace) -> int:
    from cursorish.agents_cli import run_gc_command

    return run_gc_command(ns)
