"""`cursorish branches`: every agent branch with its task, state, diffstat and the review
decisions so far, read from git and the store without setting anything up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.core.review.resolve import base_of
from cursorish.gitops.diffs import diff_stats
from cursorish.gitops.hunks import diff_files
from cursorish.gitops.repo import RepoInfo, branch_exists
from cursorish.gitops.runner import git_out, run_git, split_z
from cursorish.gitops.worktrees import BRANCH_PREFIX
from cursorish.store.db import Store


@dataclass(frozen=True)
class BranchView:
    """One row of `cursorish branches`."""

    branch: str
    agent_id: str | None
    task: str
    state: str  # the agent's state; "-" for a branch the store does not know
    base: str
    tip: str
    merged: bool  # the tip is already in the user's HEAD
    files: int
    added: int
    deleted: int
    reviewed: bool
    pending: int
    accepted: int
    rejected: int


def _review_counts(
    repo: RepoInfo, store: Store, branch: str, base: str
) -> tuple[bool, dict[str, int]]:
    """(reviewed, counts). Nothing is set up just to count: a branch never reviewed is all
    pending (its hunks base..tip); one whose review worktree is gone counts the decisions in
    the store and, as pending, what its tip holds beyond the last review commit."""
    from cursorish.gitops import review_git as rg

    review = store.review(branch)
    if review is None:
        return False, {"pending": _hunk_count(repo, base, branch), "accepted": 0, "rejected": 0}
    if rg.is_worktree_on(Path(review["worktree"]), branch):
        from cursorish.core.review.session import ReviewSession

        return True, ReviewSession.open(repo, store, branch).counts()
    rows = store.review_decisions(branch, since=str(review["started_at"]))
    last = rg.last_review_commit(repo.root, str(review["base"]), branch)
    return True, {
        "pending": _hunk_count(repo, last or str(review["base"]), branch),
        "accepted": sum(1 for r in rows if r["decision"] == "accepted"),
        "rejected": sum(1 for r in rows if r["decision"] == "rejected"),
    }


def _hunk_count(repo: RepoInfo, base: str, branch: str) -> int:
    # A file without text hunks (binary, mode, rename) is one whole-file decision.
    return sum(len(f.hunks) or 1 for f in diff_files(repo.root, base, f"refs/heads/{branch}"))


def list_branches(repo: RepoInfo, store: Store) -> list[BranchView]:
    """Every agent branch that exists (store rows, newest first; then other cursorish/* ones)."""
    rows: dict[str, dict[str, Any] | None] = {}
    for agent in store.agents():
        if agent["branch"] not in rows and branch_exists(repo.root, agent["branch"]):
            rows[agent["branch"]] = agent
    _, out, _ = run_git(
        repo.root, "for-each-ref", "--format=%(refname)", f"refs/heads/{BRANCH_PREFIX}"
    )
    for ref in sorted(split_z(out.replace(b"\n", b"\0"))):
        rows.setdefault(ref.removeprefix("refs/heads/"), None)
    views = []
    for branch, row in rows.items():
        base = base_of(repo, branch, row)
        tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
        stats = diff_stats(repo.root, base, tip)
        reviewed, counts = _review_counts(repo, store, branch, base)
        merged = run_git(repo.root, "merge-base", "--is-ancestor", tip, "HEAD", check=False)[0] == 0
        views.append(
            BranchView(
                branch=branch,
                agent_id=row["id"] if row else None,
                task=store.task_text(row),
                state=str(row["state"]) if row else "-",
                base=base,
                tip=tip,
                merged=merged,
                files=len(stats),
                added=sum(s.added or 0 for s in stats),
                deleted=sum(s.deleted or 0 for s in stats),
                reviewed=reviewed,
                pending=counts.get("pending", 0),
                accepted=counts.get("accepted", 0),
                rejected=counts.get("rejected", 0),
            )
        )
    return views
