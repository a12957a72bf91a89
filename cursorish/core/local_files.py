"""Secrets stay local: which files of an agent worktree are the user's provisioned local files.

Provisioning copies the user's git-ignored local files (`.env`, local config) into each new
worktree so the project's commands work there. Those files are secrets: the file tools (and any
search tool) must not hand their content to the planner unless the user says so with
`expose_local_files` in their own configuration.

Which files were copied is recorded per worktree under `$CURSORISH_HOME/local-files/` (outside
the worktree, where neither the agent's file tools nor its sandboxed commands can change it),
keyed by the worktree's real path.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from cursorish.store.paths import cursorish_home


def record_path(worktree: Path) -> Path:
    key = hashlib.sha1(os.fsencode(os.path.realpath(worktree))).hexdigest()[:20]
    return cursorish_home() / "local-files" / f"{key}.json"


def local_files(worktree: Path) -> frozenset[str]:
    """The worktree-relative names of the local files provisioning copied into `worktree`."""
    try:
        data = json.loads(record_path(worktree).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return frozenset()
    names = data.get("files") if isinstance(data, dict) else None
    return frozenset(str(n) for n in names) if isinstance(names, list) else frozenset()


def record_local_files(worktree: Path, names: Iterable[str]) -> None:
    """Add `names` to the worktree's local files (a resumed agent provisions again: merge)."""
    new = set(names)
    if not new:
        return
    merged = sorted(local_files(worktree) | new)
    path = record_path(worktree)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".local-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"worktree": os.path.realpath(worktree), "files": merged}, fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def forget(worktree: Path) -> None:
    """Drop the record of a worktree that is gone."""
    with contextlib.suppress(FileNotFoundError):
        record_path(worktree).unlink()


def exposed(relpath: str, patterns: Sequence[str]) -> bool:
    """Whether the user's `expose_local_files` (names or globs, `*` for all) covers `relpath`."""
    name = PurePosixPath(relpath)
    return any(
        p in ("*", relpath) or name.match(p) or fnmatch.fnmatch(relpath, p) for p in patterns
    )


def is_secret(worktree: Path, relpath: str, expose: Sequence[str] = ()) -> bool:
    """True when `relpath` (relative to `worktree`, posix) is a provisioned local file the
    planner may not see (not covered by the user's `expose_local_files`)."""
    rel = PurePosixPath(relpath.replace("\\", "/")).as_posix().removeprefix("./")
    return rel in local_files(worktree) and not exposed(rel, expose)


def secrets_of(worktree: Path, expose: Sequence[str] = ()) -> frozenset[str]:
    """Every hidden local file of `worktree` at once (for tools that scan many files)."""
    return frozenset(rel for rel in local_files(worktree) if not exposed(rel, expose))


def kept_message(relpath: str) -> str:
    return (
        f"{relpath} is a local file copied from the user's checkout (a secret such as .env): "
        "its content is kept from the planner. The project's commands and tests still use it; "
        "only the user can let the planner read it (expose_local_files in their own config)."
    )
