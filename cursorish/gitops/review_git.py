"""The git steps of branch review, all inside the review worktree W (never the user's checkout).

The model (DESIGN.md): W's files are what is proposed, W's real index is the base plus what was
accepted, the branch is what was committed. So:

- pending  = index -> files (untracked, non-ignored files included), computed from two trees
  built in a throwaway copy of the index: looking never writes W's index;
- accepted = base -> index (`git diff --cached BASE`);
- accept   = `git apply --cached` of one hunk's patch, reject = `git apply -R` in W's files;
  undo is the same patch the other way;
- commit   = `git commit` of W's index on the branch (hooks and signing off).

Every `git apply` is atomic: a patch that does not apply changes nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.hunks import DIFF_OPTIONS, FileDiff, parse_diff
from cursorish.gitops.repo import RepoInfo
from cursorish.gitops.runner import NO_HOOKS, GitError, add_all, copy_index, git_out, run_git
from cursorish.gitops.worktrees import list_worktrees

# Written in W's own git dir when its index was set up for review: a worktree re-created
# later (same path, fresh git dir) has no marker, so its index is set up again.
REVIEW_MARKER = "cursorish-review-base"
REVIEW_TRAILER = "Cursorish-Review"
_COMMIT_CONFIG = (*NO_HOOKS, "-c", "commit.gpgsign=false")
# A user's apply.whitespace=fix would change the bytes being accepted or rejected.
_APPLY_OPTIONS = ("--whitespace=nowarn",)


def git_dir(wt: Path) -> Path:
    """W's own git dir (`.git/worktrees/<name>` for a linked worktree)."""
    return Path(os.path.realpath(Path(wt) / git_out(Path(wt), "rev-parse", "--git-dir")))


def commit_of(cwd: Path, rev: str) -> str:
    return git_out(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")


def tree_of(cwd: Path, rev: str) -> str:
    return git_out(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{tree}}")


def branch_worktrees(repo_root: Path) -> dict[str, Path]:
    """Branch name -> the worktree (real path) that has it checked out."""
    return {w.branch: w.real_path for w in list_worktrees(repo_root) if w.branch is not None}


def is_worktree_on(wt: Path, branch: str) -> bool:
    """True when `wt` is a checkout whose HEAD is `branch`."""
    if not Path(wt).is_dir():
        return False
    status, out, _ = run_git(Path(wt), "symbolic-ref", "--quiet", "HEAD", check=False)
    return status == 0 and os.fsdecode(out).strip() == f"refs/heads/{branch}"


def review_worktree_path(parent: Path, branch: str) -> Path:
    """`<parent>/review-<slug>`: the branch name made safe for a directory, plus a short hash
    of the name whenever that changed it (so `a/b` and `a-b` never share a directory)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", branch).strip("-.") or "branch"
    if slug != branch:
        import hashlib

        slug += "-" + hashlib.sha1(branch.encode(), usedforsecurity=False).hexdigest()[:6]
    return Path(parent) / f"review-{slug}"


def ensure_review_worktree(repo: RepoInfo, branch: str, dest: Path) -> Path:
    """A worktree at `dest` checked out on `branch` (re-used when it is already there).

    Registration is serialised with the agents' (git races on `.git/worktrees`), hooks are
    off, and a failure half-way leaves no directory behind.
    """
    from cursorish.gitops.worktrees import _REGISTER_LOCK

    dest = Path(dest)
    if is_worktree_on(dest, branch):
        return dest
    holders = branch_worktrees(repo.root)
    if branch in holders:
        raise CursorishError(
            f"cannot review {branch}: it is checked out in {holders[branch]} (review works in "
            "a worktree of its own; switch that checkout to another branch first)",
            ExitCode.BAD_ARGS,
        )
    if dest.exists() or dest.is_symlink():
        raise CursorishError(
            f"cannot create the review worktree of {branch}: {dest} already exists "
            "(run `cursorish gc`)"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with _REGISTER_LOCK:
            run_git(repo.root, "worktree", "prune")
            run_git(
                repo.root,
                "worktree",
                "add",
                "--quiet",
                "--no-checkout",
                str(dest),
                branch,
                config=NO_HOOKS,
            )
        run_git(dest, "reset", "--hard", "--quiet", config=NO_HOOKS)
    except BaseException:
        if dest.exists():
            shutil.rmtree(dest, ignore_errors=True)
        run_git(repo.root, "worktree", "prune", check=False)
        raise
    return dest


def last_review_commit(cwd: Path, base: str, branch: str) -> str | None:
    """The newest commit in base..branch made by a review commit (it carries the trailer)."""
    _, out, _ = run_git(
        cwd,
        "log",
        f"--format=%H%x00%(trailers:key={REVIEW_TRAILER},valueonly,separator=%x20)%x1e",
        f"{base}..refs/heads/{branch}",
        "--",
    )
    for record in os.fsdecode(out).split("\x1e"):
        sha, _, value = record.strip().partition("\x00")
        if sha and value.strip():
            return sha
    return None


def marker(wt: Path) -> str | None:
    path = git_dir(wt) / REVIEW_MARKER
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def set_index(wt: Path, tree_ish: str, *, base: str) -> None:
    """Make W's index hold exactly `tree_ish` (stat info kept where the content matches, so
    git does not re-hash unchanged files; `-i`: W's files are never compared or touched) and
    mark W as set up for review against `base`."""
    run_git(wt, "read-tree", "-m", "-i", tree_ish)
    (git_dir(wt) / REVIEW_MARKER).write_text(base + "\n", encoding="utf-8")


@contextmanager
def _index_copy(wt: Path) -> Iterator[dict[str, str]]:
    """An env pointing git at a throwaway copy of W's index (stat info kept, so only changed
    files get hashed); W's own index file is never written."""
    index = git_dir(wt) / "index"
    with tempfile.TemporaryDirectory(prefix="cursorish-review-") as tmp:
        tmp_index = Path(tmp) / "index"
        env = {"GIT_INDEX_FILE": str(tmp_index)}
        if index.exists():
            copy_index(index, tmp_index)
        else:
            run_git(wt, "read-tree", "--empty", env=env)
        yield env


def snapshot_trees(wt: Path) -> tuple[str, str]:
    """(tree of W's index, tree of W's files incl. untracked non-ignored ones)."""
    with _index_copy(wt) as env:
        index_tree = git_out(wt, "write-tree", env=env)
        add_all(wt, env=env)
        return index_tree, git_out(wt, "write-tree", env=env)


def index_tree(wt: Path) -> str:
    """The tree of W's index."""
    with _index_copy(wt) as env:
        return git_out(wt, "write-tree", env=env)


def tree_diff(
    wt: Path, old: str, new: str, *, paths: tuple[str, ...] = (), binary: bool = False
) -> list[FileDiff]:
    """`git diff old new` (trees or commits) parsed; `binary` adds git's binary patches so
    that a binary file's patch can be applied."""
    extra = ("--binary",) if binary else ()
    _, out, _ = run_git(wt, "diff", *DIFF_OPTIONS, *extra, old, new, "--", *paths)
    return parse_diff(out)


def cached_diff(wt: Path, base: str) -> list[FileDiff]:
    """`git diff --cached base` in W: what was accepted so far."""
    _, out, _ = run_git(wt, "diff", *DIFF_OPTIONS, "--cached", base, "--")
    return parse_diff(out)


def apply_patch(wt: Path, patch: bytes, *, cached: bool, reverse: bool) -> None:
    """`git apply [--cached] [-R]` of `patch` in W; all or nothing. GitError with git's
    message when it does not apply."""
    with tempfile.NamedTemporaryFile(prefix="cursorish-hunk-", suffix=".patch") as fh:
        fh.write(patch)
        fh.flush()
        args = ["apply", *_APPLY_OPTIONS]
        if cached:
            args.append("--cached")
        if reverse:
            args.append("-R")
        run_git(wt, *args, fh.name)


def commit_index(wt: Path, message: str, *, author: tuple[str, str]) -> str:
    """Commit W's index on W's branch (parent: the branch tip); returns the new sha.

    An index equal to the tip still gets its commit: the trailer records the review."""
    status, _, _ = run_git(wt, "symbolic-ref", "--quiet", "HEAD", check=False)
    if status != 0:
        raise CursorishError(f"cannot commit the review in {wt}: its HEAD is detached")
    name, email = author
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }
    try:
        run_git(
            wt,
            "commit",
            "--quiet",
            "--no-verify",
            "--allow-empty",
            "--cleanup=verbatim",
            "-m",
            message,
            env=env,
            config=_COMMIT_CONFIG,
        )
    except GitError as exc:
        raise CursorishError(f"cannot commit the review in {wt}: {exc.stderr.strip()}") from None
    return git_out(wt, "rev-parse", "HEAD")


def user_identity(repo_root: Path) -> tuple[str, str] | None:
    """The user's configured (user.name, user.email), or None when either is missing."""
    values = []
    for key in ("user.name", "user.email"):
        status, out, _ = run_git(repo_root, "config", "--get", key, check=False)
        value = os.fsdecode(out).strip()
        if status != 0 or not value:
            return None
        values.append(value)
    return values[0], values[1]
