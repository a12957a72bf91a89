"""The merge policy: only what a review accepted and committed on an agent branch may be
merged into the user's branch, with the agent's task and models as trailers. The git side
(plan, conflicts found before anything changes, the merge itself) is gitops/merge.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.core.review.resolve import resolve_branch
from cursorish.core.text import first_line
from cursorish.gitops.repo import RepoInfo
from cursorish.gitops.runner import git_out, run_git, split_z
from cursorish.store.db import Store

if TYPE_CHECKING:
    from cursorish.gitops.merge import MergePlan


def check_reviewed(repo: RepoInfo, store: Store, branch: str) -> None:
    """Only what a review accepted and committed on the branch may be merged: the branch tip
    must be the last review commit, and the review worktree's index (what is accepted now)
    must hold the same tree. Read-only (the index is read through a throwaway copy)."""
    from cursorish.gitops import review_git as rg
    from cursorish.gitops.merge import MergeRefused

    review = store.review(branch)
    if review is None:
        raise MergeRefused(
            f"{branch} was never reviewed: review it first, hunk by hunk (cursorish review "
            f"{branch}) or all at once: cursorish review {branch} --accept-all --commit"
        )
    base_tree = rg.tree_of(repo.root, str(review["base"]))
    tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
    last = rg.last_review_commit(repo.root, str(review["base"]), branch)
    committed_tree = rg.tree_of(repo.root, last) if last else base_tree
    wt = Path(review["worktree"])
    accepted = rg.index_tree(wt) if rg.is_worktree_on(wt, branch) else committed_tree
    if last == tip and accepted == rg.tree_of(repo.root, tip):
        return
    if accepted == base_tree:
        raise MergeRefused(
            f"nothing was accepted in the review of {branch} yet: accept hunks and commit "
            f"them first (cursorish review {branch}, or cursorish review {branch} "
            "--accept-all --commit)"
        )
    if last is not None and last != tip and accepted == committed_tree:
        raise MergeRefused(
            f"{branch} changed after its review was committed (the agent revised it?): "
            f"review the new hunks and commit them first: cursorish review {branch}"
        )
    _, out, _ = run_git(
        wt if wt.is_dir() else repo.root,
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        accepted,
        tip,
        "--",
    )
    differ = split_z(out)
    shown = ", ".join(differ[:10]) + (f" and {len(differ) - 10} more" if len(differ) > 10 else "")
    raise MergeRefused(
        f"the review of {branch} has decisions not committed yet"
        + (f" ({len(differ)} file(s): {shown})" if differ else "")
        + f": commit them first: cursorish review {branch} --commit",
        tuple(differ),
    )


def merge_trailers(store: Store, row: dict[str, Any] | None) -> dict[str, str]:
    if row is None:
        return {}
    return {
        "Cursorish-Agent": str(row["id"]),
        "Cursorish-Task": first_line(store.task_text(row)),
        "Cursorish-Planner": str(row.get("planner_model") or ""),
        "Cursorish-Apply-Engine": str(row.get("apply_engine") or ""),
    }


@dataclass(frozen=True)
class Merged:
    """What `merge_reviewed` did: `branch` brought into `plan.target` as commit `sha`."""

    branch: str
    plan: MergePlan
    sha: str


def merge_reviewed(
    repo: RepoInfo, store: Store, ref: str, *, squash: bool, title: str | None
) -> Merged:
    """Merge (or squash) what was accepted on the branch `ref` names into the user's branch;
    MergeRefused (nothing changed) when the policy or git says no. The agent's history gets
    a `merged` event."""
    from cursorish.gitops.merge import execute_merge, merge_message, plan_merge

    branch, row = resolve_branch(repo, store, ref)
    check_reviewed(repo, store, branch)
    plan = plan_merge(repo.root, branch, squash=squash)
    message = merge_message(
        plan, title=title, task=store.task_text(row), trailers=merge_trailers(store, row)
    )
    sha = execute_merge(plan, message)
    if row is not None:
        store.add_event(
            row["id"],
            "merged",
            {"branch": branch, "into": plan.target, "commit": sha, "squash": plan.squash},
        )
    return Merged(branch, plan, sha)
