"""`cursorish demo`: the whole real pipeline on a sample repository, with no key and no network.

The planner is a local OpenAI-compatible server replaying a scripted conversation (announced as a
replay); everything else is real: litellm over HTTP, the agent loop and tools, the apply engine,
git worktrees and branches, and the SQLite store.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode

DATA = Path(__file__).resolve().parent / "demo_data"
REPLAY_NOTICE = (
    "REPLAY: the planner in this demo is a local scripted server replaying a recorded "
    "conversation (tool calls included); no model and no network are used. litellm, the agent "
    "loop, the apply engine, git worktrees and the store are the real ones."
)


def sample_files() -> dict[str, str]:
    """The sample repository: a little Python CLI with tests and a JavaScript helper."""
    data: dict[str, str] = json.loads((DATA / "sample_repo.json").read_text(encoding="utf-8"))
    return data


def demo_script() -> dict[str, Any]:
    script: dict[str, Any] = json.loads((DATA / "script.json").read_text(encoding="utf-8"))
    return script


def demo_tasks() -> list[str]:
    return [conv["task"] for conv in demo_script().values()]


def create_sample_repo(dest: Path) -> Path:
    if dest.exists() and any(dest.iterdir()):
        raise CursorishError(
            f"{dest} exists and is not empty; pick another --dir", ExitCode.BAD_ARGS
        )
    dest.mkdir(parents=True, exist_ok=True)
    for name, text in sample_files().items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    from cursorish.gitops.repo import init_committed_repo

    init_committed_repo(
        dest, "Sample project", author="cursorish demo", email="demo@cursorish.invalid"
    )
    return dest


def cmd_demo(ns: argparse.Namespace) -> int:
    from cursorish.config.settings import build_settings
    from cursorish.core.repo_store import open_repo_store
    from cursorish.headless import Printer, run_headless, warn
    from cursorish.replay.scripted_server import ScriptedServer

    target = Path(ns.dir) if ns.dir else Path(tempfile.mkdtemp(prefix="cursorish-demo-"))
    mode = "json" if ns.json else "quiet" if ns.quiet else "text"
    notice_stream = sys.stderr if mode == "json" else sys.stdout
    print(REPLAY_NOTICE, file=notice_stream)
    create_sample_repo(target)
    print(f"sample repository: {target}", file=notice_stream)
    script = {name: {"match": c["task"], "turns": c["turns"]} for name, c in demo_script().items()}
    with (
        ScriptedServer(script, latency_s=ns.latency) as server,
        open_repo_store(
            target.absolute(),
            {"planner": "openai/scripted-demo", "api_base": server.base_url, "profile": "default"},
        ) as opened,
    ):
        repo, cfg = opened.repo, opened.cfg
        cfg.override("api_key", "demo-no-key", "demo")
        # The demo shows the default apply route; a configured local model is not needed.
        cfg.override("apply_engine", "deterministic", "demo")
        # The replayed planner calls only built-in tools: the user's MCP servers stay out.
        settings = dataclasses.replace(build_settings(cfg, repo.root, warn=warn), mcp_servers=())
        code = run_headless(repo, opened.store, settings, demo_tasks(), Printer(mode=mode))
        agents = [a for a in opened.store.agents() if a.get("branch")]
    if mode != "json":
        print("\nHow to review what the agents did:")
        print(f"  cd {target}")
        print("  cursorish                              # the app: agents, transcripts, review")
        print("  cursorish branches                     # agent branches, diffstat, decisions")
        for agent in agents:
            print(f"  cursorish review {agent['branch']}   # hunk by hunk (or: git log -p main..)")
        print("  cursorish merge <branch>               # bring what you accepted into main")
    return code
