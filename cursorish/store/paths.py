"""Where cursorish keeps its per-repository state (SQLite store, agent worktrees).

State lives outside the user's checkout so that nothing cursorish writes can show up in
`git status`, and it is keyed by the repository's git common dir so that every linked
worktree of one repository (including the agents' own) shares one store.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cursorish_home() -> Path:
    """`$CURSORISH_HOME`, else `$XDG_DATA_HOME/cursorish`, else `~/.local/share/cursorish`."""
    explicit = os.environ.get("CURSORISH_HOME")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg).expanduser() / "cursorish"
    return Path.home() / ".local" / "share" / "cursorish"


def repo_key(git_common_dir: Path) -> str:
    """`<repo-dir-name>-<sha1(realpath of the git common dir)[:10]>`.

    The name part is only for humans browsing the state dir; the hash makes two repos
    with the same directory name distinct.
    """
    real = Path(os.path.realpath(git_common_dir))
    # `/x/proj/.git` -> "proj"; a bare-style `/x/proj.git` -> "proj".
    name = real.parent.name if real.name == ".git" else real.name.removesuffix(".git")
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "repo"
    digest = hashlib.sha1(os.fsencode(real)).hexdigest()[:10]
    return f"{name}-{digest}"


def repo_state_dir(git_common_dir: Path) -> Path:
    """The state directory of one repository (created if missing).

    Holds `store.db` and `worktrees/<agent-id>`.
    """
    path = cursorish_home() / "repos" / repo_key(git_common_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path


def store_path(git_common_dir: Path) -> Path:
    return repo_state_dir(git_common_dir) / "store.db"


def worktrees_dir(git_common_dir: Path) -> Path:
    """Parent of the agents' worktrees (`<state dir>/worktrees`); the caller appends the id."""
    path = repo_state_dir(git_common_dir) / "worktrees"
    path.mkdir(parents=True, exist_ok=True)
    return path
