"""Opening the user's repository: validation with precise messages, HEAD, dirtiness.

Read-only with respect to the user's checkout: nothing here writes the working tree,
the index or HEAD (status runs with `--no-optional-locks`, which stops git from
refreshing the index file as a side effect).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import git
from git.exc import InvalidGitRepositoryError, NoSuchPathError

from cursorish.errors import NotARepoError
from cursorish.gitops.runner import git_out, run_git


@dataclass(frozen=True)
class RepoInfo:
    root: Path  # toplevel of the checkout (of the linked worktree, when opened inside one)
    git_common_dir: Path  # shared .git dir: the key of the per-repo state dir
    head_commit: str
    head_branch: str | None  # None when HEAD is detached
    dirty: bool  # tracked changes or untracked, non-ignored files
    dirty_summary: str  # "2 modified, 1 untracked" or "clean"


def open_repo(path: Path) -> RepoInfo:
    """Validate `path` as a non-bare git checkout with at least one commit and describe it."""
    path = Path(path).expanduser()
    if not path.exists():
        raise NotARepoError(f"not a git repository: {path} does not exist (pass --repo)")
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise NotARepoError(
            f"not a git repository: {path} (run `git init` or pass --repo)"
        ) from None
    try:
        if repo.bare or repo.working_tree_dir is None:
            raise NotARepoError(
                f"{repo.git_dir} is a bare repository: cursorish needs a checkout "
                "(clone it, or pass --repo pointing at a working tree)"
            )
        root = Path(repo.working_tree_dir)
        if not repo.head.is_valid():
            raise NotARepoError(
                f"{root} has no commits yet: make a first commit, cursorish branches from HEAD"
            )
        head_commit = repo.head.commit.hexsha
        head_branch = None if repo.head.is_detached else repo.active_branch.name
        common = Path(repo.common_dir)
        if not common.is_absolute():
            common = Path(repo.git_dir) / common
        common = Path(os.path.realpath(common))
    finally:
        repo.close()
    counts = status_counts(root)
    return RepoInfo(
        root=root,
        git_common_dir=common,
        head_commit=head_commit,
        head_branch=head_branch,
        dirty=bool(counts),
        dirty_summary=summarize(counts),
    )


# Order in which categories appear in the summary.
_CATEGORIES = ("modified", "added", "deleted", "renamed", "unmerged", "untracked")


def status_counts(root: Path) -> dict[str, int]:
    """Count of changed paths per category (empty when clean), from `git status`."""
    counts: dict[str, int] = {}
    for xy, _path in status_entries(root, untracked=True):
        counts[_category(xy)] = counts.get(_category(xy), 0) + 1
    return counts


def status_entries(root: Path, *, untracked: bool) -> list[tuple[str, str]]:
    """`git status --porcelain=v1 -z` as (XY, path) pairs in git's order (for a rename or
    copy, the new path). Read-only: `--no-optional-locks` (run_git) keeps git from
    refreshing the index file."""
    _, out, _ = run_git(
        root,
        "status",
        "--porcelain=v1",
        "-z",
        f"--untracked-files={'normal' if untracked else 'no'}",
        "--ignore-submodules=none",
    )
    found: list[tuple[str, str]] = []
    entries = out.split(b"\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        xy = entry[:2].decode("ascii", "replace")
        found.append((xy, os.fsdecode(entry[3:])))
        if xy[0] in "RC":
            i += 1  # a rename/copy is followed by its source path
    return found


def _category(xy: str) -> str:
    if xy == "??":
        return "untracked"
    if "U" in xy or xy in ("AA", "DD"):
        return "unmerged"
    if "R" in xy or "C" in xy:
        return "renamed"
    if "D" in xy:
        return "deleted"
    if xy[0] == "A":
        return "added"
    return "modified"


def summarize(counts: dict[str, int]) -> str:
    parts = [f"{counts[c]} {c}" for c in _CATEGORIES if counts.get(c)]
    return ", ".join(parts) if parts else "clean"


def rev_parse_commit(cwd: Path, rev: str) -> str:
    """The full sha of the commit `rev` names; GitError when it names none."""
    return git_out(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")


def branch_exists(cwd: Path, branch: str) -> bool:
    status, _, _ = run_git(
        cwd, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}", check=False
    )
    return status == 0


def init_committed_repo(root: Path, message: str, *, author: str, email: str) -> None:
    """`git init` (branch main) in `root` and commit everything in it: sample and bench repos.

    The identity is given explicitly so this works where the user has none configured.
    """
    import subprocess

    from cursorish.errors import CursorishError

    ident = ["-c", f"user.name={author}", "-c", f"user.email={email}"]
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", *ident, "commit", "-q", "--no-verify", "-m", message],
    ):
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CursorishError(f"cannot create the repository {root}: {done.stderr.strip()}")
