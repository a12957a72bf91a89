"""Agent worktrees and branches: ids, create/remove/prune, listing worktrees and their files.

Each agent works in its own linked worktree on its own branch (`cursorish/<agent-id>`),
created from a fixed base commit. The user's checkout is never touched: `git worktree add`
only adds a branch ref and an entry under `.git/worktrees/`, and every other command here
runs inside the agent's worktree. Committing in an agent worktree is gitops/agent_commits.py.

Hooks are disabled for these commands (`core.hooksPath=/dev/null`), as for every git command
cursorish runs: post-checkout on `worktree add` could run arbitrary project tooling in a
worktree whose content the agent has not produced yet.
"""

from __future__ import annotations

import os
import secrets
import shutil
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from cursorish.errors import CursorishError
from cursorish.gitops.repo import RepoInfo, branch_exists, rev_parse_commit
from cursorish.gitops.runner import NO_HOOKS, GitError, run_git, split_z

BRANCH_PREFIX = "cursorish/"


class BranchExistsError(CursorishError):
    """The agent's branch name is taken; pick another agent id (see `unused_agent_id`)."""


@dataclass(frozen=True)
class Worktree:
    path: Path
    branch: str
    base_commit: str  # full sha


def new_agent_id() -> str:
    """6 random hex characters, e.g. "a3f9c2"."""
    return secrets.token_hex(3)


def branch_name(agent_id: str) -> str:
    return f"{BRANCH_PREFIX}{agent_id}"


def unused_agent_id(repo_root: Path) -> str:
    """A new agent id whose branch does not exist yet in the repository."""
    while True:
        agent_id = new_agent_id()
        if not branch_exists(repo_root, branch_name(agent_id)):
            return agent_id


def create_worktree(
    repo: RepoInfo,
    *,
    agent_id: str,
    base_commit: str,
    dest: Path,
    branch: str | None = None,
) -> Worktree:
    """`git worktree add -b <branch> <dest> <base_commit>`.

    An existing branch is an error (BranchExistsError), never reused or renamed: reusing
    would silently build on someone else's commits, and a suffixed name would no longer
    match the branch recorded for the agent. An existing `dest` is an error too.
    """
    branch = branch or branch_name(agent_id)
    dest = Path(dest)
    if dest.exists() or dest.is_symlink():
        raise CursorishError(
            f"cannot create the worktree of agent {agent_id}: {dest} already exists"
        )
    try:
        sha = rev_parse_commit(repo.root, base_commit)
    except GitError:
        raise CursorishError(
            f"cannot create the worktree of agent {agent_id}: {base_commit!r} is not a commit "
            f"in {repo.root}"
        ) from None
    if branch_exists(repo.root, branch):
        raise BranchExistsError(
            f"cannot create the worktree of agent {agent_id}: branch {branch!r} already exists "
            f"in {repo.root} (use another agent id, or delete it: git branch -D {branch})"
        )
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CursorishError(
            f"cannot create the worktree of agent {agent_id}: cannot create {dest.parent}: "
            f"{exc.strerror or exc}"
        ) from None
    try:
        _register(repo.root, agent_id=agent_id, branch=branch, dest=dest, sha=sha)
        # Fills the index and the files from the branch tip (= base); no hooks run.
        run_git(dest, "reset", "--hard", "--quiet", config=NO_HOOKS)
    except _NotOurs:
        raise  # the branch or directory is someone else's: nothing of ours to clean up
    except BaseException:
        # A failed creation leaves no directory, git record or branch behind.
        _cleanup_failed(repo.root, dest, branch)
        raise
    return Worktree(path=dest, branch=branch, base_commit=sha)


# `git worktree add` is not safe to run concurrently in one repository: while one is writing
# `.git/worktrees/<id>`, another can read the half-written entry and fail ("failed to read
# .git/worktrees/<id>/commondir"). Registration (with --no-checkout, fast) is therefore
# serialised in this process and retried against other processes; the checkout, the slow
# part, runs in parallel.
_REGISTER_LOCK = threading.Lock()
_RACE_RETRIES = 4


class _NotOurs(CursorishError):
    """git refused because the branch or directory appeared meanwhile: nothing to clean up."""


def _register(root: Path, *, agent_id: str, branch: str, dest: Path, sha: str) -> None:
    for attempt in range(_RACE_RETRIES):
        try:
            with _REGISTER_LOCK:
                run_git(
                    root,
                    "worktree",
                    "add",
                    "--quiet",
                    "--no-checkout",
                    "--no-track",
                    "-b",
                    branch,
                    str(dest),
                    sha,
                    config=NO_HOOKS,
                )
            return
        except GitError as exc:
            message = (
                f"cannot create the worktree of agent {agent_id} at {dest}: {exc.stderr.strip()}"
            )
            if "already exists" in exc.stderr:
                raise _NotOurs(message) from None
            racing = "failed to read" in exc.stderr or "could not lock" in exc.stderr
            if not racing or attempt == _RACE_RETRIES - 1:
                raise CursorishError(message) from None
            _cleanup_failed(root, dest, branch)  # only what this attempt created
            time.sleep(0.05 * (attempt + 1))


def _cleanup_failed(root: Path, dest: Path, branch: str) -> None:
    import contextlib

    if dest.exists():
        shutil.rmtree(dest, ignore_errors=True)
    with contextlib.suppress(CursorishError):
        run_git(root, "worktree", "prune")
        if branch_exists(root, branch):
            run_git(root, "branch", "-D", "--end-of-options", branch)


def remove_worktree(
    repo_root: Path, wt_path: Path, *, delete_branch: str | None = None, force: bool = True
) -> None:
    """Remove an agent worktree (and optionally its branch).

    `force` removes it even with uncommitted changes. A worktree whose directory is already
    gone is pruned instead (`git worktree prune`, which also forgets any other worktree
    whose directory is gone). Deleting a branch that does not exist is not an error.
    """
    wt_path = Path(wt_path)
    if wt_path.exists():
        run_git(repo_root, "worktree", "remove", *(["--force"] if force else []), str(wt_path))
    else:
        run_git(repo_root, "worktree", "prune")
    if delete_branch and branch_exists(repo_root, delete_branch):
        run_git(repo_root, "branch", "-D", "--end-of-options", delete_branch)


@dataclass(frozen=True)
class ListedWorktree:
    """One entry of `git worktree list --porcelain` (the main checkout first)."""

    path: str  # as git prints it
    ref: str | None  # the checked-out ref (`refs/heads/...`); None when detached or bare
    prunable: bool  # its directory is gone: `git worktree prune` would forget it

    @property
    def real_path(self) -> Path:
        return Path(os.path.realpath(self.path))

    @property
    def branch(self) -> str | None:
        """The checked-out branch's short name (None when detached or not a local branch)."""
        if self.ref is None or not self.ref.startswith("refs/heads/"):
            return None
        return self.ref.removeprefix("refs/heads/")


def list_worktrees(repo_root: Path) -> list[ListedWorktree]:
    """Every worktree git knows of, from its one machine-readable listing."""
    _, out, _ = run_git(repo_root, "worktree", "list", "--porcelain", "-z")
    found: list[ListedWorktree] = []
    for item in split_z(out):
        if item.startswith("worktree "):
            found.append(ListedWorktree(item.removeprefix("worktree "), None, False))
        elif found and item.startswith("branch "):
            found[-1] = replace(found[-1], ref=item.removeprefix("branch "))
        elif found and (item == "prunable" or item.startswith("prunable ")):
            found[-1] = replace(found[-1], prunable=True)
    return found


def prune_worktrees(repo_root: Path) -> list[str]:
    """`git worktree prune`; returns the paths of the worktrees it forgot (dirs gone)."""
    prunable = [w.path for w in list_worktrees(repo_root) if w.prunable]
    run_git(repo_root, "worktree", "prune")
    return prunable


def tracked_files(wt_path: Path, *, scan: bool = True) -> list[str]:
    """Files of the worktree as git sees them: tracked plus untracked-but-not-ignored.

    POSIX relative paths, sorted. Files deleted from disk, submodules and skip-worktree
    entries are left out, so every entry can be opened as a file (or is a symlink).
    `scan=False` reads the index alone, without looking at the files: right for a worktree
    just checked out, where the two agree, at a fraction of the cost.
    """
    # One git call, and no stat per file from Python: git checks the 5,000 files of a big
    # repository in C, while a Python loop over them holds the GIL that the other agents'
    # threads need (eight agents listing at once made that loop their main cost).
    _, out, _ = run_git(
        wt_path,
        "ls-files",
        "-z",
        "-t",
        "--stage",
        "--cached",
        *(("--deleted", "--others", "--exclude-standard") if scan else ()),
    )
    present: set[str] = set()
    gone: set[str] = set()
    for entry in split_z(out):
        # "? path" for untracked files; "<tag> <mode> <sha> <stage>\tpath" for the index.
        tag, rest = entry[:1], entry[2:]
        if tag == "?":
            present.add(rest)
            continue
        meta, _, name = rest.partition("\t")
        if tag == "R":
            gone.add(name)
        elif tag in ("H", "M") and not meta.startswith("160000"):  # M: unmerged
            present.add(name)
    return sorted(present - gone)


def gitlinks(wt_path: Path, paths: list[str]) -> list[str]:
    """Which of `paths` (directories, relative to the worktree) are submodules in HEAD."""
    _, out, _ = run_git(wt_path, "ls-tree", "-z", "HEAD", "--", *paths)
    # "<mode> <type> <sha>\t<path>": a submodule is a gitlink, mode 160000.
    return [entry.partition("\t")[2] for entry in split_z(out) if entry.startswith("160000 ")]
