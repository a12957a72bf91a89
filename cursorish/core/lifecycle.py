"""Agent lifecycle outside a run: who owns an agent, interrupted detection, cancel, discard, gc.

No printing here: the front ends (`cursorish agents`, `cursorish gc`, the TUI) render what
these functions return.

An agent's owner is the process running it: its pid and that process's start time (so a
recycled pid is never mistaken for the owner) are recorded when the run starts. An agent
in a non-final state whose owner is gone was interrupted (kill -9, power loss): its
worktree and branch are intact and `resume` continues it from the stored transcript.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cursorish.core import states
from cursorish.core.agent import CANCELLED
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.repo import RepoInfo, branch_exists
from cursorish.gitops.runner import run_git
from cursorish.gitops.worktrees import (
    BRANCH_PREFIX,
    list_worktrees,
    prune_worktrees,
    remove_worktree,
)
from cursorish.store.db import Store, now
from cursorish.store.paths import worktrees_dir

INTERRUPTED: str = states.AgentState.INTERRUPTED
FINAL_STATES = states.FINAL_STATES
ENDED_STATES = states.ENDED_STATES  # nothing runs any more (interrupted needs a resume)
RESUMABLE_STATES = states.RESUMABLE_STATES
# The signal `cursorish agents cancel` sends the owner: "look at the cancel flags now".
CANCEL_SIGNAL = signal.SIGUSR1


# -- owners --------------------------------------------------------------------------------


def process_start(pid: int) -> str | None:
    """The start time of process `pid` in clock ticks since boot (Linux), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Field 22; the command name (field 2) may contain spaces and parentheses.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def owner_token() -> tuple[int, str]:
    """(pid, start time) of this process, as recorded on the agents it runs."""
    return os.getpid(), process_start(os.getpid()) or ""


def owner_alive(pid: int | None, start: str | None) -> bool:
    """True when the process that recorded (pid, start) is still running."""
    if not pid:
        return False
    if pid == os.getpid():
        return start in (None, "", process_start(pid))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    current = process_start(pid)
    if current is None or not start:
        return current is not None or not Path("/proc").is_dir()
    return current == start


def is_interrupted(row: dict[str, Any]) -> bool:
    """A non-final agent whose owner is gone (or that never got one)."""
    if row["state"] in ENDED_STATES:
        return False
    return not owner_alive(row.get("pid"), row.get("owner_start"))


def refresh_interrupted(store: Store) -> list[str]:
    """Record `interrupted` for every agent whose owner died mid-run; returns their ids."""
    found = []
    for row in store.agents():
        if is_interrupted(row):
            store.update_agent(
                row["id"],
                state=INTERRUPTED,
                error=f"the process running it (pid {row.get('pid')}) ended during "
                f"{row['state']}; resume with `cursorish agents resume {row['id']}`",
            )
            found.append(row["id"])
    return found


# -- listing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentView:
    """One row of `cursorish agents`."""

    id: str
    task: str
    profile: str
    state: str
    branch: str
    worktree: str
    steps: int
    tokens: int
    cost_usd: float
    age_s: float
    discarded: bool
    worktree_exists: bool
    tests_run: int
    tests_passed: int
    error: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "task": self.task,
            "profile": self.profile,
            "state": self.state,
            "branch": self.branch,
            "worktree": self.worktree,
            "worktree_exists": self.worktree_exists,
            "steps": self.steps,
            "tokens": self.tokens,
            "cost_usd": round(self.cost_usd, 6),
            "age_s": round(self.age_s, 1),
            "discarded": self.discarded,
            "tests_run": self.tests_run,
            "tests_passed": self.tests_passed,
            "error": self.error,
        }


def _age(stamp: str | None) -> float:
    if not stamp:
        return 0.0
    try:
        return (datetime.now(UTC) - datetime.fromisoformat(stamp)).total_seconds()
    except ValueError:
        return 0.0


def list_agents(store: Store) -> list[AgentView]:
    """Every agent of the repository, newest first, interrupted ones detected and recorded."""
    refresh_interrupted(store)
    tasks: dict[int, str] = {}
    views = []
    for row in store.agents():
        task_id = row.get("task_id")
        if task_id is not None and task_id not in tasks:
            task = store.task(task_id)
            tasks[task_id] = str(task["text"]) if task else ""
        views.append(
            AgentView(
                id=row["id"],
                task=tasks.get(task_id, "") if task_id is not None else "",
                profile=row["profile"],
                state=row["state"],
                branch=row["branch"],
                worktree=row["worktree"],
                steps=int(row["steps"] or 0),
                tokens=int(row["prompt_tokens"] or 0) + int(row["completion_tokens"] or 0),
                cost_usd=float(row["cost_usd"] or 0.0),
                age_s=_age(row["created_at"]),
                discarded=bool(row.get("discarded_at")),
                worktree_exists=Path(row["worktree"]).is_dir(),
                tests_run=int(row.get("tests_run") or 0),
                tests_passed=int(row.get("tests_passed") or 0),
                error=str(row.get("error") or ""),
            )
        )
    return views


def find_agent(store: Store, agent_id: str) -> dict[str, Any]:
    row = store.agent(agent_id)
    if row is None:
        raise CursorishError(
            f"no agent {agent_id!r} in this repository (see `cursorish agents`)", ExitCode.BAD_ARGS
        )
    return row


# -- cancel --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CancelResult:
    agent_id: str
    how: str  # "signalled" (the owner will stop it) | "marked" (no owner: now cancelled)


def request_cancel(store: Store, agent_id: str) -> CancelResult:
    """Ask the agent's owner to cancel it; with no live owner, mark it cancelled at once."""
    row = find_agent(store, agent_id)
    if row["state"] in FINAL_STATES:
        raise CursorishError(
            f"agent {row['id']} already ended ({row['state']}); nothing to cancel",
            ExitCode.BAD_ARGS,
        )
    store.update_agent(row["id"], cancel_requested=1)
    pid = int(row.get("pid") or 0)
    if row["state"] != INTERRUPTED and owner_alive(pid, row.get("owner_start")):
        if pid != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, CANCEL_SIGNAL)
        return CancelResult(row["id"], "signalled")
    store.update_agent(
        row["id"], state=CANCELLED, exit_reason=CANCELLED, error="cancelled", finished_at=now()
    )
    return CancelResult(row["id"], "marked")


# -- discard and gc ------------------------------------------------------------------------


# Review worktrees (`<state dir>/worktrees/review-<slug>`, see core/review/) live next to the
# agents' worktrees; they belong to a branch, not to an agent.
REVIEW_PREFIX = "review-"


def _review_worktrees(store: Store, repo: RepoInfo, branch: str) -> list[Path]:
    """Review worktrees in our folder that have `branch` checked out (or are recorded as its
    review worktree and still exist)."""
    base = Path(os.path.realpath(worktrees_dir(repo.git_common_dir)))
    found = [
        path
        for path, on in git_worktrees(repo).items()
        if on == branch and path.parent == base and path.name.startswith(REVIEW_PREFIX)
    ]
    review = store.review(branch)
    if review is not None:
        recorded = Path(os.path.realpath(review["worktree"]))
        if recorded.name.startswith(REVIEW_PREFIX) and recorded.exists() and recorded not in found:
            found.append(recorded)
    return found


def _remove_worktree_dir(repo: RepoInfo, wt: Path) -> None:
    if wt.exists() or _git_knows(repo, wt):
        remove_worktree(repo.root, wt)
        if wt.exists():  # git refused or did not know it: the directory is ours alone
            shutil.rmtree(wt, ignore_errors=True)


def _remove_agent_files(
    store: Store, repo: RepoInfo, row: dict[str, Any], removed: list[str]
) -> None:
    # Review worktrees first: git will not delete a branch checked out in one.
    for review_wt in _review_worktrees(store, repo, row["branch"]):
        _remove_worktree_dir(repo, review_wt)
        removed.append(f"review worktree {review_wt}")
    store.delete_review(row["branch"])
    wt = Path(row["worktree"])
    if wt.exists() or _git_knows(repo, wt):
        _remove_worktree_dir(repo, wt)
        removed.append(f"worktree {wt}")
    if branch_exists(repo.root, row["branch"]):
        run_git(repo.root, "branch", "-D", "--end-of-options", row["branch"])
        removed.append(f"branch {row['branch']}")


def discard(store: Store, repo: RepoInfo, agent_id: str) -> list[str]:
    """Mark the agent discarded and remove its worktree and branch; returns what was removed."""
    row = find_agent(store, agent_id)
    if row["state"] not in ENDED_STATES and owner_alive(row.get("pid"), row.get("owner_start")):
        raise CursorishError(
            f"agent {row['id']} is still running ({row['state']}); "
            f"cancel it first: cursorish agents cancel {row['id']}",
            ExitCode.BAD_ARGS,
        )
    if row["state"] not in ENDED_STATES:
        store.update_agent(row["id"], state=INTERRUPTED)
    store.update_agent(row["id"], discarded_at=row.get("discarded_at") or now())
    removed: list[str] = []
    _remove_agent_files(store, repo, row, removed)
    store.update_agent(row["id"], removed_at=now())
    return removed


@dataclass
class GcReport:
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # noticed but left alone, with the reason


def git_worktrees(repo: RepoInfo) -> dict[Path, str | None]:
    """Linked worktrees git knows: real path -> branch (None when detached)."""
    return {w.real_path: w.branch for w in list_worktrees(repo.root)}


def _git_knows(repo: RepoInfo, path: Path) -> bool:
    return Path(os.path.realpath(path)) in git_worktrees(repo)


def gc(store: Store, repo: RepoInfo, *, dry_run: bool = False) -> GcReport:
    """Remove discarded agents' leftovers and orphans of crashes; `dry_run` only reports."""
    report = GcReport()
    refresh_interrupted(store)
    rows = {row["id"]: row for row in store.agents()}
    base = Path(os.path.realpath(worktrees_dir(repo.git_common_dir)))
    verb = "would remove" if dry_run else "removed"

    # 1. Discarded agents whose worktree or branch is still there.
    for row in rows.values():
        if not row.get("discarded_at"):
            continue
        leftovers = [f"review worktree {p}" for p in _review_worktrees(store, repo, row["branch"])]
        if Path(row["worktree"]).exists():
            leftovers.append(f"worktree {row['worktree']}")
        if branch_exists(repo.root, row["branch"]):
            leftovers.append(f"branch {row['branch']}")
        if not leftovers:
            continue
        if dry_run:
            report.removed += [f"{verb} {x} (agent {row['id']} was discarded)" for x in leftovers]
            continue
        done: list[str] = []
        _remove_agent_files(store, repo, row, done)
        store.update_agent(row["id"], removed_at=now())
        report.removed += [f"{verb} {x} (agent {row['id']} was discarded)" for x in done]

    # 2. Git worktrees in our folder whose agent (or review) the store does not know.
    known_to_git = git_worktrees(repo)
    for path, branch in known_to_git.items():
        if path.parent != base or path.name in rows:
            continue
        if path.name.startswith(REVIEW_PREFIX):
            review = store.review(branch) if branch else None
            if review is not None and Path(os.path.realpath(review["worktree"])) == path:
                continue  # the branch is being reviewed there
            report.removed.append(
                f"{verb} review worktree {path} (no review of {branch or 'a detached HEAD'} "
                "in the store)"
            )
            if not dry_run:
                remove_worktree(repo.root, path)
            continue
        report.removed.append(f"{verb} worktree {path} (no agent {path.name} in the store)")
        if not dry_run:
            remove_worktree(repo.root, path)
        if branch and branch == f"{BRANCH_PREFIX}{path.name}":
            if _has_unique_commits(repo, branch):
                report.kept.append(f"kept branch {branch}: it has commits no other branch has")
            else:
                report.removed.append(f"{verb} branch {branch}")
                if not dry_run:
                    run_git(repo.root, "branch", "-D", "--end-of-options", branch)

    # 3. Directories in our folder git does not know (a crash during `git worktree add`).
    if base.is_dir():
        for entry in sorted(base.iterdir()):
            real = Path(os.path.realpath(entry))
            if real in known_to_git:
                continue
            owner = rows.get(entry.name)
            if owner is not None and owner["state"] not in ENDED_STATES:
                report.kept.append(f"kept {entry}: agent {entry.name} is {owner['state']}")
                continue
            report.removed.append(f"{verb} {entry} (a directory git does not know as a worktree)")
            if not dry_run:
                _remove_entry(entry)

    # 4. Git's records of worktrees whose directory is gone.
    stale = [w.path for w in list_worktrees(repo.root) if w.prunable]
    for gone in stale:
        report.removed.append(f"{verb} git's stale record of worktree {gone} (directory gone)")
    if stale and not dry_run:
        prune_worktrees(repo.root)

    # 5. Agents that ended before their worktree was created (interrupted during `git worktree
    # add`, or a worktree that could not be made): with no worktree and no branch there is
    # nothing to resume, review or merge, only a row `cursorish agents` would list forever.
    for row in list(rows.values()):
        if row["state"] not in ENDED_STATES or row.get("discarded_at"):
            continue  # running, or discarded on purpose (its row is the history)
        wt = Path(row["worktree"])
        if _git_knows(repo, wt) or branch_exists(repo.root, row["branch"]):
            continue
        if wt.exists() and Path(os.path.realpath(wt.parent)) != base:
            continue  # not in our folder (step 3 removes, or would, a half-made one there)
        report.removed.append(
            f"{verb} the store record of agent {row['id']} ({row['state']}; it has no worktree "
            "and no branch: its worktree was never created)"
        )
        if not dry_run:
            store.delete_agent(row["id"])
            del rows[row["id"]]

    # 6. Sandbox caches (pip, npm, ruff... of an agent's commands) of agents that were discarded
    # or are no longer in the store: kept agents keep theirs, their commands may run again.
    caches = base.parent / "sandbox-cache"
    if caches.is_dir():
        for entry in sorted(caches.iterdir()):
            owner = rows.get(entry.name)
            if owner is not None and not owner.get("discarded_at"):
                continue
            why = "was discarded" if owner is not None else "is not in the store"
            report.removed.append(f"{verb} sandbox cache {entry} (agent {entry.name} {why})")
            if not dry_run:
                _remove_entry(entry)
    return report


def _remove_entry(entry: Path) -> None:
    """Remove a directory tree, or a file or symlink (never what a symlink points to)."""
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)


def _has_unique_commits(repo: RepoInfo, branch: str) -> bool:
    """True when `branch` has commits reachable from no other branch or tag."""
    _, out, _ = run_git(
        repo.root,
        "rev-list",
        "--max-count=1",
        f"refs/heads/{branch}",
        "--not",
        f"--exclude={branch}",  # relative to refs/heads/ for --branches
        "--branches",
        "--tags",
    )
    return bool(out.strip())
