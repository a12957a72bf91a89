"""An agent's branch over its life: checkpoint commits while it works, one final commit when it
ends, and its worktree re-attached when it is resumed.

Git only (the orchestrator keeps the store and the scheduling). After every tool call that
changed a file the worktree is committed as a *checkpoint*; when the agent ends, what is left
is committed and the trailing checkpoints are squashed, in the agent's worktree only
(`git reset --soft` + commit), into one commit carrying the task, the summary and the status.
Every commit goes through the agent's private index (`agent_commits.agent_index_env`): the
worktree's real index belongs to review (base + what the user accepted).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.agent_commits import commit_all, commit_paths, commit_staged
from cursorish.gitops.diffs import diff_stats
from cursorish.gitops.repo import branch_exists
from cursorish.gitops.runner import NO_HOOKS, GitError, git_out, run_git
from cursorish.gitops.worktrees import list_worktrees

CHECKPOINT_PREFIX = "cursorish checkpoint:"
# What holds a CPU slot around a commit's staging (core/cpu_slots.py); none by default.
Hold = Callable[[], AbstractContextManager[Any]]


def commit_checkpoint(dest: Path, tool: str, path: str) -> str | None:
    """Commit `path` after `tool` changed it; the sha, or None when nothing changed."""
    return commit_paths(dest, [path], f"{CHECKPOINT_PREFIX} {tool} {path}", private_index=True)


def finalize_branch(
    dest: Path, base: str, message: str, *, hold: Hold = contextlib.nullcontext
) -> str | None:
    """Commit what is left, then squash this run's trailing checkpoint commits into one commit.

    Only checkpoint commits are squashed (a commit the user made on the branch in review is
    kept). Returns the branch's final commit when the branch moved past `base`, else None.
    `hold` is held while the worktree is staged (the scan of every file).
    """
    with hold():
        commit_all(dest, f"{CHECKPOINT_PREFIX} final", private_index=True)
    squash_to = _trailing_checkpoints_parent(dest, base)
    if squash_to is not None:
        run_git(dest, "reset", "--soft", "--quiet", squash_to)
        commit_staged(dest, message, private_index=True)
    head = git_out(dest, "rev-parse", "HEAD")
    return None if head == base else head


def _trailing_checkpoints_parent(dest: Path, base: str) -> str | None:
    """The parent of the oldest checkpoint in the unbroken run of them ending at HEAD."""
    _, out, _ = run_git(dest, "log", "--format=%H%x00%P%x00%s%x1e", f"{base}..HEAD")
    squash_to: str | None = None
    for record in out.decode("utf-8", "replace").split("\x1e"):
        parts = record.strip().split("\x00")
        if len(parts) < 3:
            continue
        _sha, parents, subject = parts
        if not subject.startswith(CHECKPOINT_PREFIX) or len(parents.split()) != 1:
            break
        squash_to = parents
    return squash_to


def file_stats(dest: Path, base: str) -> list[dict[str, Any]]:
    """The files the branch changed since `base`, as the report and `--json` list them."""
    return [
        {"path": s.path, "added": s.added, "deleted": s.deleted, "status": s.status}
        for s in diff_stats(dest, base, "HEAD")
    ]


def final_message(task: str, agent_id: str, status: str, summary: str, error: str) -> str:
    """The final commit's message: the task's first line, the summary (or error), trailers."""
    title = next((ln.strip() for ln in task.splitlines() if ln.strip()), "") or "cursorish agent"
    if len(title) > 72:
        title = title[:69] + "..."
    body = summary.strip() or error.strip()
    trailer = f"Cursorish-Agent: {agent_id}\nCursorish-Status: {status}"
    return f"{title}\n\n{body}\n\n{trailer}" if body else f"{title}\n\n{trailer}"


def reattach_worktree(repo_root: Path, dest: Path, branch: str, agent_id: str) -> None:
    """Make sure the agent's worktree exists on its branch (re-adding it if it is gone)."""
    # A worktree whose directory is gone (prunable) holds its branch no more: the prune below
    # forgets it, so the agent's own deleted worktree is re-added, not reported as a holder.
    known = {w.real_path: w.branch for w in list_worktrees(repo_root) if not w.prunable}
    real = Path(os.path.realpath(dest))
    if real in known and dest.is_dir():
        if known[real] != branch:
            raise CursorishError(
                f"the worktree {dest} of agent {agent_id} is not on its branch {branch} "
                f"(it is on {known[real] or 'a detached HEAD'}); check it out there first",
                ExitCode.BAD_ARGS,
            )
        return
    if not branch_exists(repo_root, branch):
        raise CursorishError(
            f"agent {agent_id} cannot be resumed: its worktree {dest} and its branch "
            f"{branch} are both gone",
            ExitCode.BAD_ARGS,
        )
    for path, other in known.items():
        if other == branch:
            raise CursorishError(
                f"agent {agent_id} cannot be resumed: its branch {branch} is checked out in "
                f"{path}; switch that checkout to another branch first",
                ExitCode.BAD_ARGS,
            )
    run_git(repo_root, "worktree", "prune")
    try:
        run_git(repo_root, "worktree", "add", "--quiet", str(dest), branch, config=NO_HOOKS)
    except GitError as exc:
        raise CursorishError(
            f"cannot re-create the worktree of agent {agent_id}: {exc.stderr.strip()}"
        ) from None
