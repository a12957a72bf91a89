"""Per-file change statistics between two commits (or a commit and a working tree)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cursorish.gitops.runner import add_all, copy_index, git_out, run_git


@dataclass(frozen=True)
class FileStat:
    path: str  # new path (for a rename: where the file is now)
    added: int | None  # None for binary files
    deleted: int | None
    status: str  # one letter: A M D R C T (git's --name-status, score dropped)
    old_path: str | None = None  # set for renames and copies


def diff_stats(repo_root_or_wt: Path, base: str, head: str | None = "HEAD") -> list[FileStat]:
    """`git diff --numstat -M base..head` as FileStats, in git's (path) order.

    `head=None` compares `base` with the current working tree of `repo_root_or_wt`,
    untracked-but-not-ignored files included (see `worktree_tree`).
    """
    cwd = Path(repo_root_or_wt)
    target = worktree_tree(cwd) if head is None else head
    spec = (base, target)
    _, numstat, _ = run_git(cwd, "diff", "--numstat", "-z", "-M", "--no-ext-diff", *spec, "--")
    _, names, _ = run_git(cwd, "diff", "--name-status", "-z", "-M", "--no-ext-diff", *spec, "--")
    statuses = _parse_name_status(names)
    stats: list[FileStat] = []
    fields = numstat.split(b"\0")
    i = 0
    while i < len(fields):
        record = fields[i]
        i += 1
        if not record:
            continue
        added_s, deleted_s, path_b = record.split(b"\t", 2)
        old_path: str | None = None
        if path_b:
            path = os.fsdecode(path_b)
        else:  # rename/copy: the two paths follow as separate fields
            old_path, path = os.fsdecode(fields[i]), os.fsdecode(fields[i + 1])
            i += 2
        added = None if added_s == b"-" else int(added_s)
        deleted = None if deleted_s == b"-" else int(deleted_s)
        status = statuses.get(path, "R" if old_path else "M")
        stats.append(FileStat(path, added, deleted, status, old_path))
    return stats


def _parse_name_status(data: bytes) -> dict[str, str]:
    fields = [os.fsdecode(f) for f in data.split(b"\0")]
    out: dict[str, str] = {}
    i = 0
    while i < len(fields) and fields[i]:
        letter = fields[i][0]
        if letter in "RC":
            out[fields[i + 2]] = letter
            i += 3
        else:
            out[fields[i + 1]] = letter
            i += 2
    return out


def worktree_tree(wt_path: Path) -> str:
    """The tree sha of the worktree's current files (tracked + untracked, not ignored).

    Built in a throwaway copy of the index, so the worktree's own index (what the user
    accepted in review) is left exactly as it was.
    """
    wt_path = Path(wt_path)
    index = Path(git_out(wt_path, "rev-parse", "--path-format=absolute", "--git-path", "index"))
    with tempfile.TemporaryDirectory(prefix="cursorish-index-") as tmp:
        tmp_index = Path(tmp) / "index"
        if index.exists():
            copy_index(index, tmp_index)
        env = {"GIT_INDEX_FILE": str(tmp_index)}
        add_all(wt_path, env=env)
        return git_out(wt_path, "write-tree", env=env)
