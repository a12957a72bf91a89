"""Reading a commit's files straight from the object store, without a checkout.

A new agent's planner is asked its first question while the agent's worktree is still being
checked out, so what that question needs (the list of files, the project's instruction files)
is read from the base commit instead: a checkout of that commit will hold exactly these.
"""

from __future__ import annotations

from pathlib import Path

from cursorish.gitops.runner import run_git, split_z

_REGULAR_MODES = frozenset({"100644", "100755"})
_SUBMODULE_MODE = "160000"


def _entries(root: Path, commit: str, *args: str) -> list[tuple[str, str, str]]:
    """(mode, object id, path) for each entry `git ls-tree` lists at `commit`."""
    _, out, _ = run_git(root, "ls-tree", "-z", "--full-tree", *args, commit, "--")
    rows = []
    for entry in split_z(out):
        # "<mode> SP <type> SP <object> TAB <path>"
        meta, _, path = entry.partition("\t")
        mode, _, rest = meta.partition(" ")
        rows.append((mode, rest.rpartition(" ")[2], path))
    return rows


def files_at(root: Path, commit: str) -> list[str]:
    """The files of `commit` (POSIX paths, sorted), submodules left out.

    What `tracked_files(worktree, scan=False)` lists in a fresh checkout of `commit`.
    """
    return sorted(path for mode, _, path in _entries(root, commit, "-r") if mode != _SUBMODULE_MODE)


def regular_files_at(root: Path, commit: str, names: tuple[str, ...]) -> dict[str, bytes]:
    """The content of each of the top-level `names` that is a regular file at `commit`.

    Symlinks, directories and absent names are left out (a symlink could point anywhere).
    """
    if not names:
        return {}
    wanted = set(names)
    found: dict[str, bytes] = {}
    for mode, oid, path in _entries(root, commit):
        if path in wanted and mode in _REGULAR_MODES:
            _, blob, _ = run_git(root, "cat-file", "blob", oid)
            found[path] = blob
    return found
