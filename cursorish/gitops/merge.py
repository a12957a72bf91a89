"""Bringing a reviewed branch into the user's current branch (`cursorish merge`).

The one place cursorish writes the user's checkout, and only on their explicit command. Two
steps, so that every refusal happens before anything is written:

1. `plan_merge` only reads: the checkout must be on a branch, with no change to a tracked file
   and no operation (merge, rebase, cherry-pick...) in progress; the branch must be ahead and
   must bring a change; `git merge-tree --write-tree` computes the merged tree in the object
   database alone and names the conflicting files; untracked or ignored files where the merge
   would write (git would refuse, or silently overwrite ignored ones) are refused too.
2. `execute_merge` writes the commit object with `git commit-tree` (two parents, or one for
   --squash) and fast-forwards the user's branch to it with `git merge --ff-only`, which
   updates their index and files and itself refuses rather than overwrite local changes
   that appeared meanwhile. Nothing else is touched: the agent's branch and worktree stay.

Hooks are off here as for every git command cursorish runs (see gitops/agent_commits.py): the
commit is the content the user reviewed, not something a hook may rewrite.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.diffs import FileStat, diff_stats
from cursorish.gitops.repo import branch_exists, status_entries
from cursorish.gitops.runner import NO_HOOKS, GitError, git_out, run_git, split_z

# Shown in a refusal before "and N more".
_LIST_LIMIT = 20
# Files of the git dir that say an operation is in progress in the checkout.
_IN_PROGRESS = {
    "MERGE_HEAD": "a merge",
    "CHERRY_PICK_HEAD": "a cherry-pick",
    "REVERT_HEAD": "a revert",
    "rebase-merge": "a rebase",
    "rebase-apply": "a rebase or `git am`",
    "BISECT_LOG": "a bisect",
}


class MergeRefused(CursorishError):
    """The merge cannot be done safely; nothing was written. `paths` names the files at issue."""

    def __init__(self, message: str, paths: tuple[str, ...] = ()) -> None:
        super().__init__(message, ExitCode.BAD_ARGS)
        self.paths = paths


@dataclass(frozen=True)
class Conflict:
    path: str
    kind: str  # git's conflict type, e.g. "CONFLICT (contents)", "CONFLICT (modify/delete)"
    message: str


@dataclass(frozen=True)
class MergePlan:
    """Everything `execute_merge` needs, computed without writing the checkout."""

    root: Path
    branch: str  # the branch brought in
    target: str  # the user's current branch
    head: str  # the target's tip when planned
    tip: str  # the branch's tip when planned
    merge_base: str
    tree: str  # the merged tree
    squash: bool
    files: tuple[FileStat, ...]  # what the merge changes in the user's branch

    @property
    def added(self) -> int:
        return sum(f.added or 0 for f in self.files)

    @property
    def deleted(self) -> int:
        return sum(f.deleted or 0 for f in self.files)


def _listing(paths: list[str] | tuple[str, ...]) -> str:
    shown = ", ".join(paths[:_LIST_LIMIT])
    more = len(paths) - _LIST_LIMIT
    return shown + (f" and {more} more" if more > 0 else "")


def current_branch(root: Path) -> str | None:
    """The checked-out branch of `root` (short name), None when HEAD is detached."""
    status, out, _ = run_git(root, "symbolic-ref", "--quiet", "HEAD", check=False)
    ref = os.fsdecode(out).strip()
    if status != 0 or not ref.startswith("refs/heads/"):
        return None
    return ref.removeprefix("refs/heads/")


def changed_tracked_files(root: Path) -> list[str]:
    """Tracked files with staged or unstaged changes (unmerged included), in git's order."""
    return [path for _xy, path in status_entries(root, untracked=False)]


def operation_in_progress(root: Path) -> str | None:
    for name, what in _IN_PROGRESS.items():
        path = git_out(root, "rev-parse", "--path-format=absolute", "--git-path", name)
        if os.path.lexists(path):
            return what
    return None


def _merge_tree(root: Path, head: str, tip: str) -> tuple[str, list[Conflict]]:
    """`git merge-tree --write-tree`: the merged tree and its conflicts (objects only)."""
    status, out, err = run_git(
        root, "merge-tree", "--write-tree", "--name-only", "-z", head, tip, check=False
    )
    if status not in (0, 1):
        raise GitError(f"git merge-tree failed: {err.strip()}", stderr=err, status=status)
    fields = [os.fsdecode(f) for f in out.split(b"\0")]
    tree = fields[0].strip()
    if status == 0:
        return tree, []
    i = 1
    conflicted: list[str] = []
    while i < len(fields) and fields[i]:
        conflicted.append(fields[i])
        i += 1
    i += 1  # the empty field between the file list and the messages
    messages: dict[str, list[tuple[str, str]]] = {}
    while i < len(fields) and fields[i]:
        count = int(fields[i])
        paths = fields[i + 1 : i + 1 + count]
        kind, text = fields[i + 1 + count], fields[i + 2 + count].strip()
        i += 3 + count
        if kind.startswith("CONFLICT"):
            for p in paths:
                messages.setdefault(p, []).append((kind, text))
    conflicts = []
    for path in dict.fromkeys(conflicted):
        kind, text = (messages.get(path) or [("CONFLICT", f"conflict in {path}")])[0]
        conflicts.append(Conflict(path, kind, text))
    return tree, conflicts


def _obstructions(root: Path, files: list[FileStat]) -> list[str]:
    """Untracked or ignored files at (or under, or above) a path the merge writes.

    `git merge` refuses to overwrite untracked files but treats ignored ones as expendable;
    either could be the user's work, so both are refused before anything happens.
    """
    specs: list[str] = []
    for f in files:
        if f.status == "D":
            continue
        specs.append(f":(literal){f.path}")
        parent = os.path.dirname(f.path)
        while parent:  # a file where the merge needs a directory
            full = root / parent
            if os.path.lexists(full) and not full.is_dir():
                specs.append(f":(literal){parent}")
            parent = os.path.dirname(parent)
    found: list[str] = []
    for start in range(0, len(specs), 500):  # keep the command line bounded
        _, out, _ = run_git(root, "ls-files", "--others", "-z", "--", *specs[start : start + 500])
        found.extend(split_z(out))
    return sorted(set(found))


def resolve_ref(root: Path, branch: str) -> str:
    try:
        return git_out(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
    except GitError:
        raise MergeRefused(f"no branch {branch!r} in {root}") from None


def plan_merge(root: Path, branch: str, *, squash: bool = False) -> MergePlan:
    """Check that `branch` can be merged into the checkout at `root`; write nothing.

    Raises MergeRefused with a precise message (and the files at issue) otherwise.
    """
    root = Path(root)
    if not branch_exists(root, branch):
        raise MergeRefused(f"no branch {branch!r} in {root}")
    target = current_branch(root)
    if target is None:
        raise MergeRefused(
            f"{root} has a detached HEAD: check out the branch to merge into first "
            f"(git switch BRANCH), then run cursorish merge {branch} again"
        )
    if target == branch:
        raise MergeRefused(
            f"{branch} is the branch checked out in {root}: switch to the branch that should "
            "receive it first"
        )
    busy = operation_in_progress(root)
    if busy:
        raise MergeRefused(f"{root} is in the middle of {busy}: finish or abort it first")
    dirty = changed_tracked_files(root)
    if dirty:
        raise MergeRefused(
            f"{root} has uncommitted changes in {len(dirty)} file(s): {_listing(dirty)}; "
            "commit or stash them first (nothing was changed)",
            tuple(dirty),
        )
    head = git_out(root, "rev-parse", "--verify", "HEAD^{commit}")
    tip = resolve_ref(root, branch)
    ahead = int(git_out(root, "rev-list", "--count", f"{head}..{tip}"))
    if ahead == 0:
        raise MergeRefused(f"{branch} is not ahead of {target}: it has no commit {target} lacks")
    status, out, _ = run_git(root, "merge-base", head, tip, check=False)
    if status != 0:
        raise MergeRefused(f"{branch} and {target} have no common history")
    merge_base = os.fsdecode(out).strip()
    tree, conflicts = _merge_tree(root, head, tip)
    if conflicts:
        lines = "\n".join(f"  {c.path}: {c.message}" for c in conflicts[:_LIST_LIMIT])
        raise MergeRefused(
            f"merging {branch} into {target} would conflict in {len(conflicts)} file(s) "
            f"(nothing was changed):\n{lines}\n"
            f"resolve by hand (git merge {branch}), or review {branch} again without those "
            "hunks",
            tuple(c.path for c in conflicts),
        )
    files = tuple(diff_stats(root, head, tree))
    if not files:
        raise MergeRefused(
            f"{branch} brings no change into {target}: what it holds is already there "
            "(or every hunk was rejected)"
        )
    blocked = _obstructions(root, list(files))
    if blocked:
        raise MergeRefused(
            f"the merge would overwrite untracked or ignored files in {root}: "
            f"{_listing(blocked)}; move them away first (nothing was changed)",
            tuple(blocked),
        )
    return MergePlan(root, branch, target, head, tip, merge_base, tree, squash, files)


def execute_merge(plan: MergePlan, message: str) -> str:
    """Commit `plan.tree` and fast-forward the user's branch (index and files) to it.

    Returns the new commit's sha. The commit uses the user's own git identity. Raises
    CursorishError when the checkout changed since planning; git then changed nothing.
    """
    root = plan.root
    if git_out(root, "rev-parse", "--verify", "HEAD^{commit}") != plan.head:
        raise MergeRefused(f"{plan.target} moved since the merge was checked; run it again")
    parents = ["-p", plan.head] if plan.squash else ["-p", plan.head, "-p", plan.tip]
    try:
        sha = git_out(root, "commit-tree", plan.tree, *parents, "-m", message)
    except GitError as exc:
        raise CursorishError(
            f"cannot create the merge commit: {exc.stderr.strip()} (nothing was changed)",
            ExitCode.BAD_ARGS,
        ) from None
    how = "squash" if plan.squash else "merge"
    env = {"GIT_REFLOG_ACTION": f"cursorish {how} {plan.branch}"}  # added to the environment
    status, _, err = run_git(
        root,
        "merge",
        "--ff-only",
        "--quiet",
        "--no-autostash",
        "--no-edit",
        "--no-stat",
        "--no-verify-signatures",
        sha,
        env=env,
        config=NO_HOOKS,
        check=False,
    )
    if status != 0:
        raise CursorishError(
            f"git refused to update {plan.target} (nothing was changed; the commit is "
            f"{sha[:12]}): {err.strip()}",
            ExitCode.BAD_ARGS,
        )
    return sha


def trailer_lines(fields: dict[str, str]) -> list[str]:
    """`Key: value` lines; values made single-line (a trailer cannot span lines)."""
    lines = []
    for key, value in fields.items():
        flat = " ".join(str(value).split())
        if flat:
            lines.append(f"{key}: {flat[:200]}")
    return lines


def merge_message(
    plan: MergePlan, *, title: str | None = None, task: str = "", trailers: dict[str, str]
) -> str:
    """The commit message: `title` (or one made from the task), a stat line, trailers."""
    lines = trailer_lines(trailers)
    if title is not None and title.strip():  # the user's own message, as they wrote it
        parts = [title.strip()]
    else:
        first_task_line = next((ln.strip() for ln in task.splitlines() if ln.strip()), "")
        if plan.squash:
            title = first_task_line or f"Squashed {plan.branch}"
        else:
            title = f"Merge {plan.branch} into {plan.target}"
            if first_task_line:
                title += f": {first_task_line}"
        how = "squashed from" if plan.squash else "merged from"
        stat = (
            f"{len(plan.files)} file(s) changed, +{plan.added} -{plan.deleted} "
            f"({how} {plan.branch} at {plan.tip[:12]})"
        )
        parts = [title, stat]
    if lines:
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
