"""Front end of a headless run (`cursorish --task/--tasks`), `cursorish config` and `cursorish log`.

Each handler turns parsed arguments into calls on the engine and prints the result; the
other subcommands have front ends of their own (agents_cli, review_cli, chat_cli, ...), and
none of them imports another (import-linter contracts in pyproject.toml).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.config.settings import flags_from
from cursorish.errors import CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.core.orchestrator import RunSettings


def read_tasks(ns: argparse.Namespace) -> list[str]:
    if ns.task is not None:
        if not ns.task.strip():
            raise CursorishError("--task is empty", ExitCode.BAD_ARGS)
        try:
            ns.task.encode("utf-8")
        except UnicodeEncodeError as exc:  # a byte that is not UTF-8, kept by surrogateescape
            byte = ord(ns.task[exc.start]) - 0xDC00
            raise CursorishError(
                f"--task is not UTF-8 text (byte {byte:#04x} at character {exc.start}); "
                "check the terminal's or the script's encoding",
                ExitCode.BAD_ARGS,
            ) from None
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
    from cursorish.config.settings import build_settings
    from cursorish.core.repo_store import open_repo_store
    from cursorish.headless import Printer, run_headless, warn, warn_untrusted

    tasks = read_tasks(ns)
    with open_repo_store(ns.repo, flags_from(ns)) as opened:
        repo = opened.repo
        settings = build_settings(opened.cfg, repo.root, warn=warn)
        warn_untrusted(repo.root)
        mode = "json" if ns.json else "quiet" if ns.quiet else "text"
        return run_headless(
            repo,
            opened.store,
            settings,
            tasks,
            Printer(mode=mode),
            base=getattr(ns, "base", None),
            plan=plan_mode(ns, settings),
        )


def cmd_config(ns: argparse.Namespace) -> int:
    from cursorish.config import load_config
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


def cmd_log(ns: argparse.Namespace) -> int:
    from cursorish.core.lifecycle import find_agent
    from cursorish.core.repo_store import open_repo_store

    with open_repo_store(ns.repo) as opened:
        store = opened.store
        agent = find_agent(store, ns.agent) if ns.agent else store.last_agent()
        if agent is None:
            raise CursorishError(
                "no agent has run in this repository (see `cursorish agents`)", ExitCode.BAD_ARGS
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
