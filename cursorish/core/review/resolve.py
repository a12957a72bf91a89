"""What the user named, resolved once for every front end: a branch (`refs/heads/` allowed),
an agent id or unique id prefix, or nothing (the latest agent); and the base its changes are
measured against. Review, merge, compare, `branches` and the app all resolve through here.
"""

from __future__ import annotations

import os
from typing import Any

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.repo import RepoInfo, branch_exists
from cursorish.gitops.runner import run_git
from cursorish.store.db import Store


def resolve_branch(
    repo: RepoInfo, store: Store, ref: str | None
) -> tuple[str, dict[str, Any] | None]:
    """(branch, agent row or None) for what the user named: a branch (`refs/heads/` allowed),
    an agent id or unique id prefix, or None (the latest agent). CursorishError (exit 2) when
    it names nothing that exists. Review, merge, compare and the app all resolve through here.
    """
    row: dict[str, Any] | None
    if ref is None:
        row = store.last_agent()
        if row is None:
            raise CursorishError(
                'no agent has run in this repository yet (run: cursorish --task "...")',
                ExitCode.BAD_ARGS,
            )
    else:
        name = ref.removeprefix("refs/heads/")
        if name and branch_exists(repo.root, name):
            return name, agent_of_branch(store, name)
        row = store.agent(name)
        if row is None:
            raise CursorishError(
                f"no branch or agent {ref!r} in {repo.root} (see `cursorish branches`)",
                ExitCode.BAD_ARGS,
            )
    if row.get("discarded_at"):
        raise CursorishError(
            f"agent {row['id']} was discarded: its branch is gone", ExitCode.BAD_ARGS
        )
    if not branch_exists(repo.root, row["branch"]):
        raise CursorishError(
            f"the branch {row['branch']} of agent {row['id']} no longer exists",
            ExitCode.BAD_ARGS,
        )
    return str(row["branch"]), row


def agent_of_branch(store: Store, branch: str) -> dict[str, Any] | None:
    """The newest agent (not discarded) whose branch is `branch`, if any."""
    rows = store.agents()  # newest first
    return next((r for r in rows if r["branch"] == branch and not r.get("discarded_at")), None)


def base_of(repo: RepoInfo, branch: str, row: dict[str, Any] | None) -> str:
    """The agent's recorded base, else the merge base of `branch` with the user's HEAD."""
    if row and row.get("base_commit"):
        return str(row["base_commit"])
    status, out, _ = run_git(repo.root, "merge-base", "HEAD", f"refs/heads/{branch}", check=False)
    if status != 0:
        raise CursorishError(f"{branch} has no common history with your HEAD", ExitCode.BAD_ARGS)
    return os.fsdecode(out).strip()
