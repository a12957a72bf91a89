"""Front end of `cursorish agents [list|cancel|resume|discard] [ID]` and `cursorish gc`.

The logic lives in cursorish.core.lifecycle (and the orchestrator for resume); this module
only opens the repository and store, calls it, and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from cursorish.core.repo_store import open_repo_store
from cursorish.core.text import escape_controls, first_line
from cursorish.errors import CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.core.lifecycle import AgentView


def format_age(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f}m"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


def format_table(views: list[AgentView]) -> str:
    if not views:
        return 'no agents in this repository yet (run: cursorish --task "...")'
    head = (
        f"{'id':6}  {'state':17} {'profile':9} {'steps':>5} {'tokens':>8} {'cost':>8} "
        f"{'age':>4}  {'branch':18} task"
    )
    rows = [head]
    for v in views:
        state = v.state + (" (discarded)" if v.discarded else "")
        task = escape_controls(first_line(v.task), keep_lines=False)  # shown, never run
        rows.append(
            f"{v.id:6}  {state:17} {v.profile[:9]:9} {v.steps:>5} {v.tokens:>8,} "
            f"${v.cost_usd:>7.4f} {format_age(v.age_s):>4}  {v.branch:18} {task[:60]}"
        )
    worktrees = [f"  {v.id}  {v.worktree}" for v in views if v.worktree_exists]
    if worktrees:
        rows.append("\nworktrees:")
        rows.extend(worktrees)
    return "\n".join(rows)


def run_agents_command(ns: argparse.Namespace) -> int:
    action = getattr(ns, "action", "list") or "list"
    if action != "list" and not ns.id:
        raise CursorishError(f"cursorish agents {action} needs an agent ID", ExitCode.BAD_ARGS)
    if action == "resume":
        return _resume(ns)
    from cursorish.core import lifecycle

    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
        if action == "list":
            views = lifecycle.list_agents(store)
            if ns.json:
                print(json.dumps([v.to_json() for v in views], default=str))
            else:
                print(format_table(views))
            return 0
        if action == "cancel":
            result = lifecycle.request_cancel(store, ns.id)
            if ns.json:
                print(json.dumps({"agent": result.agent_id, "cancel": result.how}))
            elif result.how == "signalled":
                print(
                    f"agent {result.agent_id}: cancel requested; its process stops it after "
                    "the current step and commits its work on its branch"
                )
            else:
                print(f"agent {result.agent_id}: cancelled (no process was running it)")
            return 0
        if action == "discard":
            row = store.agent(ns.id)
            agent_id = row["id"] if row else ns.id  # the full id, when given a prefix
            removed = lifecycle.discard(store, repo, ns.id)
            if ns.json:
                print(json.dumps({"agent": agent_id, "removed": removed}))
            else:
                print(f"agent {agent_id}: discarded")
                for item in removed:
                    print(f"  removed {item}")
            return 0
        raise CursorishError(f"unknown agents action {action!r}", ExitCode.BAD_ARGS)


def _resume(ns: argparse.Namespace) -> int:
    import asyncio

    from cursorish.config import load_config
    from cursorish.config.settings import agent_flags, build_settings, flags_from
    from cursorish.core.lifecycle import find_agent
    from cursorish.core.orchestrator import Orchestrator
    from cursorish.headless import Printer, print_reports, warn, warn_untrusted

    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
        row = find_agent(store, ns.id)
        cfg = load_config(repo.root, agent_flags(row, flags_from(ns)))
        settings = build_settings(cfg, repo.root, warn=warn)
        warn_untrusted(repo.root)
        printer = Printer(mode="json" if ns.json else "text")
        orchestrator = Orchestrator(repo, store, settings, printer)
        try:
            report = asyncio.run(orchestrator.resume(row["id"]))
        except KeyboardInterrupt:
            printer.clear()
            return int(ExitCode.INTERRUPTED)
        printer.clear()
        code = print_reports([report], repo.root, printer)
        return int(ExitCode.INTERRUPTED) if orchestrator.signalled else code


def run_gc_command(ns: argparse.Namespace) -> int:
    from cursorish.core.lifecycle import gc

    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
        report = gc(store, repo, dry_run=ns.dry_run)
    for line in report.removed:
        print(line)
    for line in report.kept:
        print(line, file=sys.stderr)
    if not report.removed:
        print("nothing to remove")
    return 0
