"""Running plain git through GitPython's command wrapper.

Everything here passes `--no-optional-locks`: a read such as `git status` otherwise
refreshes and rewrites the index of the checkout it looks at, and cursorish promises never
to touch the user's index. Output is returned as bytes so that `-z` listings keep paths
with spaces, newlines or non-UTF-8 bytes intact (decode with `os.fsdecode`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from git import Git
from git.exc import GitCommandError, GitCommandNotFound

from cursorish.errors import CursorishError

# Hooks are disabled for every git command cursorish runs (see commit_all's docstring).
NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")


class GitError(CursorishError):
    """A git command failed; the message carries git's own stderr."""

    def __init__(self, message: str, *, stderr: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.stderr = stderr
        self.status = status


def run_git(
    cwd: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    config: tuple[str, ...] = (),
    check: bool = True,
) -> tuple[int, bytes, str]:
    """`git <config> <args>` in `cwd`; returns (status, stdout bytes, stderr text).

    Raises GitError on a non-zero exit when `check` is true.
    """
    cmd = ["git", "--no-optional-locks", *config, *args]
    try:
        status, out, err = Git(str(cwd)).execute(
            cmd,
            with_extended_output=True,
            with_exceptions=False,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
            env=dict(env) if env else None,
        )
    except GitCommandNotFound as exc:
        raise CursorishError("git is not installed or not on PATH") from exc
    except GitCommandError as exc:  # pragma: no cover - raised only with with_exceptions
        raise GitError(str(exc)) from exc
    stdout = out if isinstance(out, bytes) else str(out).encode()
    stderr = err.decode("utf-8", "replace") if isinstance(err, bytes) else str(err)
    if check and status != 0:
        detail = stderr.strip() or f"exit status {status}"
        raise GitError(f"git {' '.join(args[:2])} failed: {detail}", stderr=stderr, status=status)
    return int(status or 0), stdout, stderr


def git_out(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None, config: tuple[str, ...] = ()
) -> str:
    """Stripped text stdout of a git command that must succeed."""
    _, out, _ = run_git(cwd, *args, env=env, config=config)
    return os.fsdecode(out).strip()


def copy_index(index: Path, dest: Path) -> None:
    """Copy an index file, stat info and all, so git re-hashes only the files that changed.

    The copy keeps the index's own mtime: git judges an entry "racily clean" (check the
    content, not the stat info) by comparing it with that mtime, in whole seconds unless built
    with USE_NSEC. A copy dated now hides a same-size edit made in the second the index was
    written: the edit goes missing from a commit or a diff."""
    shutil.copy2(index, dest)


def split_z(data: bytes) -> list[str]:
    """NUL-separated git output as str paths (undecodable bytes kept via surrogateescape)."""
    return [os.fsdecode(part) for part in data.split(b"\0") if part]


# What `git add --ignore-errors` says about a path git refuses to track (".GIT/x", "git~1/x").
_REFUSED_PATH = re.compile(r"error: (invalid path '(?P<path>.*)'|unable to add '.*' to index)")


def add_all(cwd: Path, *paths: str, env: Mapping[str, str] | None = None) -> list[str]:
    """`git add --all -- PATHS` (default: the whole worktree), leaving out the files git refuses
    to track; returns their names.

    A command an agent ran may have written `.GIT/x` or `git~1/x`: git never tracks those, and a
    plain `git add --all` of the worktree would fail on them, taking the agent's commits and the
    review of its branch down with it. Any other failure is raised.
    """
    status, _, err = run_git(
        cwd, "add", "--all", "--ignore-errors", "--", *(paths or (".",)), env=env, check=False
    )
    if status == 0:
        return []
    noise = ("warning:", "hint:")
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(noise)]
    found = [_REFUSED_PATH.fullmatch(ln) for ln in lines]
    refused = [m.group("path") for m in found if m is not None and m.group("path") is not None]
    if refused and all(found):
        return refused
    detail = err.strip() or f"exit status {status}"
    raise GitError(f"git add --all failed: {detail}", stderr=err, status=status)
