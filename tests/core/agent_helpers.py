"""Helpers for agent-level tests: scripted turns, run settings aimed at a ScriptedServer, and
running the real orchestrator (real litellm over HTTP, real git worktrees, real SQLite)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cursorish.core.command_runner import DEFAULT_ALLOWLIST
from cursorish.core.events import Event
from cursorish.core.orchestrator import Orchestrator, RunSettings
from cursorish.core.profiles import Budgets, load_profile
from cursorish.core.provision import ProvisionSpec
from cursorish.core.report import AgentReport
from cursorish.core.sandbox import SandboxPolicy
from cursorish.gitops.agent_commits import commit_all
from cursorish.gitops.repo import RepoInfo, open_repo
from cursorish.gitops.worktrees import create_worktree
from cursorish.planner.client import PlannerSettings
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir

# For tests of process handling that talk to their command through files outside the
# worktree or host pids, both of which the sandbox hides; test_sandbox.py has the sandboxed
# equivalents (timeouts, cancels and background processes inside the sandbox).
UNSANDBOXED = SandboxPolicy(enabled=False)

# litellm must use its bundled price table, never fetch one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted turn with one tool call."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def finish(summary: str = "done") -> dict[str, Any]:
    return call("finish", summary=summary)


def settings_for(
    server: ScriptedServer,
    *,
    model: str = "scripted",
    concurrency: int = 8,
    command_policy: str = "allowlist",
    allow: tuple[str, ...] = (),
    command_timeout_s: float = 30.0,
    sandbox: SandboxPolicy | None = None,
    **budgets: Any,
) -> RunSettings:
    profile = load_profile("default", None)
    return RunSettings(
        planner=PlannerSettings(
            model=model,
            api_base=server.base_url,
            timeout_s=20.0,
            max_retries=1,
            backoff_base_s=0.01,
            backoff_max_s=0.02,
        ),
        profile=profile,
        budgets=replace(Budgets(), **budgets),
        apply_engine="deterministic",
        command_policy=command_policy,
        command_allowlist=DEFAULT_ALLOWLIST + allow,
        command_timeout_s=command_timeout_s,
        concurrency=concurrency,
        sandbox=sandbox or SandboxPolicy(),
    )


@dataclass
class Recorder:
    """An event sink that keeps every event."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def kinds(self, agent_id: str | None = None) -> list[str]:
        return [e.kind for e in self.events if agent_id is None or e.agent_id == agent_id]


def orchestrator_for(
    repo_root: Path,
    settings: RunSettings,
    sink: Recorder | None = None,
    provision: ProvisionSpec | None = None,
) -> tuple[Orchestrator, Store]:
    repo = open_repo(repo_root)
    store = Store.for_repo(repo.git_common_dir)
    orch = Orchestrator(
        repo,
        store,
        settings,
        sink if sink is not None else Recorder(),
        provision_spec=provision or ProvisionSpec(),
        handle_signals=False,
    )
    return orch, store


def run_tasks(
    repo_root: Path,
    tasks: list[str],
    settings: RunSettings,
    sink: Recorder | None = None,
    provision: ProvisionSpec | None = None,
) -> tuple[list[AgentReport], Store]:
    orch, store = orchestrator_for(repo_root, settings, sink, provision)
    return asyncio.run(orch.run(tasks)), store


async def wait_for_state(store: Store, agent_id: str, state: str, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        row = store.agent(agent_id)
        if row is not None and row["state"] == state:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"agent {agent_id} never reached {state}")


def finished_agent(
    repo: RepoInfo,
    store: Store,
    agent_id: str,
    edits: Mapping[str, str | bytes | None],
    *,
    task: str = "improve the app",
    task_id: int | None = None,
    commit: bool = True,
    **fields: Any,
) -> dict[str, Any]:
    """An agent as the orchestrator leaves it, without a planner: a store row (state done,
    then `fields`), its worktree, and `edits` (None deletes) committed on its branch unless
    `commit` is false. Returns the store row."""
    dest = worktrees_dir(repo.git_common_dir) / agent_id
    wt = create_worktree(repo, agent_id=agent_id, base_commit=repo.head_commit, dest=dest)
    for rel, data in edits.items():
        path = dest / rel
        if data is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
    if commit:
        commit_all(dest, f"{task}\n\nCursorish-Agent: {agent_id}")
    if task_id is None:
        task_id = store.create_task(task, str(repo.root))
    store.create_agent(
        agent_id=agent_id,
        task_id=task_id,
        profile="default",
        branch=wt.branch,
        worktree=str(dest),
        base_commit=wt.base_commit,
        planner_model="openai/scripted-planner",
        apply_engine="deterministic",
        state="done",
    )
    if fields:
        store.update_agent(agent_id, **fields)
    row = store.agent(agent_id)
    assert row is not None
    return row


def process_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, waiting for its parent to reap it, counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def wait_until(condition: Callable[[], bool], seconds: float, poll: float = 0.02) -> bool:
    """Poll `condition` until it holds or `seconds` pass; whether it holds in the end."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(poll)
    return condition()


def gone_within(pid: int, seconds: float = 5.0) -> bool:
    """Whether `pid` ends within `seconds` (a killed process group takes a moment to die)."""
    return wait_until(lambda: not process_alive(pid), seconds, poll=0.05)
