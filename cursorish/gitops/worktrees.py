"""Agent worktrees and branches: ids, create/remove/prune, listing files, committing.

Each agent works in its own linked worktree on its own branch (`cursorish/<agent-id>`),
created from a fixed base commit. The user's checkout is never touched: `git worktree add`
only adds a branch ref and an entry under `.git/worktrees/`, and every other command here
runs inside the agent's worktree.

Hooks are disabled for all of these commands (`core.hooksPath=/dev/null`):
- post-checkout on `worktree add` could run arbitrary project tooling in a worktree whose
  content the agent has not produced yet;
- pre-commit / commit-msg / post-commit on the agent's commit would reformat or reject the
  exact content the user reviewed (and can be slow, interactive or fail on partial work).
  The agent branch is a proposal; the user's hooks run when they merge or commit it
  themselves. `--no-verify` alone would still run prepare-commit-msg and post-commit.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from cursorish.errors import CursorishError
from cursorish.gitops.repo import RepoInfo, branch_exists, rev_parse_commit
from cursorish.gitops.runner import (
    NO_HOOKS,
    GitError,
    add_all,
    copy_index,
    git_out,
    run_git,
    split_z,
)

BRANCH_PREFIX = "cursorish/"
# The agent's own index file, in the worktree's git dir (see `agent_index_env`).
AGENT_INDEX = "cursorish-agent-index"
DEFAULT_AUTHOR = "cursorish <cursorish@localhost>"
# Signing would prompt for a passphrase (or fail) in an unattended agent run.
_COMMIT_CONFIG = (*NO_HOOKS, "-c", "commit.gpgsign=false")


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


def _identity_env(author: str) -> dict[str, str]:
    match = re.fullmatch(r"\s*(.*?)\s*<([^<>]*)>\s*", author)
    if not match or not match.group(1):
        raise ValueError(f"author must look like 'Name <email>', got {author!r}")
    name, email = match.groups()
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


@dataclass(frozen=True)
class _Tip:
    """An agent worktree's git dir and the commit (and tree) its branch points at."""

    git_dir: Path
    head: str
    tree: str


class _BranchMoved(CursorishError):
    """Another commit (a review commit, say) moved the branch between reading and committing."""


_COMMIT_ATTEMPTS = 3


def _check_agent_worktree(wt_path: Path) -> _Tip:
    """Refuse to commit in a main checkout or on a detached HEAD (a likely caller bug);
    returns the worktree's own git dir and its branch tip."""
    # One git process for every fact: commits happen after every agent edit.
    try:
        out = git_out(
            wt_path,
            "rev-parse",
            "HEAD",
            "HEAD^{tree}",
            "--git-dir",
            "--git-common-dir",
            "--symbolic-full-name",
            "HEAD",
        )
    except GitError:
        raise CursorishError(
            f"refusing to commit in {wt_path}: it is not a git worktree with a commit"
        ) from None
    head, tree, git_dir_s, common_s, head_ref = [*out.splitlines(), "", "", "", "", ""][:5]
    git_dir = Path(os.path.realpath(wt_path / git_dir_s))
    common = Path(os.path.realpath(wt_path / common_s))
    if git_dir == common:
        raise CursorishError(
            f"refusing to commit in {wt_path}: it is a main checkout, not an agent worktree"
        )
    if not head_ref.startswith("refs/heads/"):
        raise CursorishError(f"refusing to commit in {wt_path}: its HEAD is detached")
    return _Tip(git_dir, head, tree)


def _synced_marker(git_dir: Path) -> Path:
    """Names the commit the private index was last set to or committed as."""
    return git_dir / f"{AGENT_INDEX}.head"


def agent_index_env(
    wt_path: Path,
    *,
    git_dir: Path | None = None,
    sync: bool = True,
    head: str | None = None,
) -> dict[str, str]:
    """The env (`GIT_INDEX_FILE`) of the agent's private index in the worktree's git dir.

    An agent commits through this index, never the worktree's real one: in review the real
    index holds what the user accepted, and an agent committing through it would accept its
    own edits. The private index starts as a copy of the real one (for its stat info: git
    then re-hashes only changed files) and, with `sync`, is set to HEAD's tree first
    (`read-tree -m -i`: stat info kept where the content matches; `-i` because the files may
    legitimately differ from the index being replaced), so a commit made on the branch
    meanwhile (a review commit) is the starting point of the next agent commit. With `head`
    (the branch tip, known to the caller) that step is skipped when the index was last set
    to, or committed as, that very commit: it already matches.
    """
    wt_path = Path(wt_path)
    if git_dir is None:
        git_dir = Path(os.path.realpath(wt_path / git_out(wt_path, "rev-parse", "--git-dir")))
    path = git_dir / AGENT_INDEX
    env = {"GIT_INDEX_FILE": str(path)}
    marker = _synced_marker(git_dir)
    if not path.exists():
        # A new copy of the real index: it must be set to HEAD whatever the marker says.
        real = git_dir / "index"
        if real.exists():
            copy_index(real, path)
        sync = True
    elif sync and head is not None and _read_marker(marker) == head:
        sync = False
    if sync:
        run_git(wt_path, "read-tree", "-m", "-i", "HEAD", env=env)
        if head is not None:
            marker.write_text(head, encoding="ascii")
        else:  # set to a HEAD this call did not read: whatever the marker said is stale
            marker.unlink(missing_ok=True)
    return env


def _read_marker(marker: Path) -> str:
    try:
        return marker.read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        return ""


def _commit_index(
    wt_path: Path, message: str, author: str, index_env: dict[str, str] | None, tip: _Tip
) -> str | None:
    """Commit the index's tree on the branch, unless it is the tip's tree already.

    Plumbing (write-tree, commit-tree, update-ref) rather than `git commit`: that refreshes
    the stat info of every file in the index first (5,000 lstat calls in a big repository)
    for every checkpoint. The message is kept as given (no comment stripping), hooks and
    signing are off, and `update-ref` moves the branch only if it is still at the tip read
    before, so a commit made meanwhile is never overwritten.
    """
    env = dict(index_env or {})
    tree = git_out(wt_path, "write-tree", env=env)
    if tree == tip.tree:
        return None
    sha = git_out(
        wt_path,
        "commit-tree",
        tree,
        "-p",
        tip.head,
        "-m",
        message,
        env={**env, **_identity_env(author)},
        config=_COMMIT_CONFIG,
    )
    subject = message.split("\n", 1)[0]
    status, _, err = run_git(
        wt_path, "update-ref", "-m", f"commit: {subject}", "HEAD", sha, tip.head, check=False
    )
    if status != 0:
        if git_out(wt_path, "rev-parse", "HEAD") != tip.head:
            raise _BranchMoved(f"the branch of {wt_path} moved while committing")
        raise GitError(f"cannot move the branch of {wt_path}: {err.strip()}", stderr=err)
    if index_env:
        _synced_marker(tip.git_dir).write_text(sha, encoding="ascii")
    return sha


def commit_staged(
    wt_path: Path,
    message: str,
    *,
    author: str = DEFAULT_AUTHOR,
    private_index: bool = False,
) -> str | None:
    """Commit what is staged in the agent worktree; returns the sha, or None if nothing is.

    Hooks and signing are off (module docstring); author and committer are set explicitly,
    so this works without any git identity configured. `private_index`: commit what is
    staged in the agent's private index (`agent_index_env`, not re-synced) instead of the
    real index.
    """
    wt_path = Path(wt_path)
    tip = _check_agent_worktree(wt_path)
    env = agent_index_env(wt_path, git_dir=tip.git_dir, sync=False) if private_index else None
    return _commit_index(wt_path, message, author, env, tip)


def commit_all(
    wt_path: Path, message: str, *, author: str = DEFAULT_AUTHOR, private_index: bool = False
) -> str | None:
    """Stage everything in the agent worktree (respecting .gitignore) and commit it on the
    worktree's branch; returns the commit sha, or None when there was nothing to commit.
    `private_index`: stage and commit through the agent's private index (`agent_index_env`),
    leaving the worktree's real index as it was."""
    return _stage_and_commit(Path(wt_path), ["."], message, author, private_index)


def commit_paths(
    wt_path: Path,
    paths: list[str],
    message: str,
    *,
    author: str = DEFAULT_AUTHOR,
    private_index: bool = False,
) -> str | None:
    """Stage just `paths` (changes, new files, deletions) and commit them: a checkpoint after an
    edit need not scan the whole worktree. Falls back to `commit_all` when git refuses a path
    (an ignored file, say), so nothing on disk is left out of the commit. `private_index` as
    in `commit_all`."""
    try:
        return _stage_and_commit(Path(wt_path), paths, message, author, private_index)
    except _AddRefused:
        return commit_all(wt_path, message, author=author, private_index=private_index)


class _AddRefused(CursorishError):
    """`git add` refused a path (an ignored file, say)."""


def _stage_and_commit(
    wt_path: Path, paths: list[str], message: str, author: str, private_index: bool
) -> str | None:
    """`git add --all -- paths`, then commit; again from the new tip if the branch moved."""
    attempt = 1
    while True:
        tip = _check_agent_worktree(wt_path)
        env = (
            agent_index_env(wt_path, git_dir=tip.git_dir, head=tip.head) if private_index else None
        )
        try:
            add_all(wt_path, *paths, env=env)  # files git refuses to track are left out
        except GitError as exc:
            raise _AddRefused(f"git add refused {paths}: {exc.stderr.strip()}") from None
        try:
            return _commit_index(wt_path, message, author, env, tip)
        except _BranchMoved:
            if attempt == _COMMIT_ATTEMPTS:
                raise
            attempt += 1
