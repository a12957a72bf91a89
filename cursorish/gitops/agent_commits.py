"""Commits in an agent worktree: through its private index, with hooks and signing off.

Every agent commit (checkpoints after each edit, the final squash, review commits of the
agent's own work) goes through here. Author and committer are set explicitly, so this works
without any git identity configured. Hooks are off (`core.hooksPath=/dev/null`):
pre-commit / commit-msg / post-commit on the agent's commit would reformat or reject the
exact content the user reviewed (and can be slow, interactive or fail on partial work). The
agent branch is a proposal; the user's hooks run when they merge or commit it themselves.
`--no-verify` alone would still run prepare-commit-msg and post-commit.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from cursorish.errors import CursorishError
from cursorish.gitops.runner import NO_HOOKS, GitError, add_all, copy_index, git_out, run_git

# The agent's own index file, in the worktree's git dir (see `agent_index_env`).
AGENT_INDEX = "cursorish-agent-index"
DEFAULT_AUTHOR = "cursorish <cursorish@localhost>"
# Signing would prompt for a passphrase (or fail) in an unattended agent run.
_COMMIT_CONFIG = (*NO_HOOKS, "-c", "commit.gpgsign=false")


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
