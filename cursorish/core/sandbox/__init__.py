"""The OS sandbox every process an agent starts runs in (bubblewrap on Linux).

`sandbox_argv` turns a command line into a bubblewrap command line and a scrubbed
environment. Inside: the agent's worktree read-write; the git metadata of that worktree
read-only (its own git dir, the shared objects and refs, and a sanitised copy of the common
config: never the user's checkout, the real `.git/config`, hooks or other worktrees); the rest
of the filesystem read-only; the deny list (secrets, cursorish's own store and config) hidden
behind empty tmpfs mounts; a private size-limited `/tmp`; a writable per-agent cache dir; no
network unless asked; no capabilities; new PID, IPC, UTS, user and network namespaces, so
every process dies with the command (or with cursorish, `--die-with-parent`).

Limits: CPU seconds and data size are rlimits (they bind root too); the process count is a
cgroup `pids.max` when a pids controller is writable, because RLIMIT_NPROC does not stop root
(the kernel exempts uid 0 even inside a user namespace that maps to it). A sandbox that cannot
start raises `SandboxUnavailable` (exit 9): there is no silent fallback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from cursorish.core.sandbox.bwrap import base_flags, bwrap_path, check_available
from cursorish.core.sandbox.gitview import checkouts, git_binds, git_layout
from cursorish.core.sandbox.limits import pids_limit_mechanism, release, with_limits
from cursorish.core.sandbox.policy import (
    DEFAULT_DENY,
    DEFAULT_ENV_DENY,
    OFF_WARNING,
    SandboxError,
    SandboxPolicy,
    SandboxUnavailable,
    cache_env,
    default_cache_dir,
    policy_from_config,
    scrub_env,
)

__all__ = [
    "DEFAULT_DENY",
    "DEFAULT_ENV_DENY",
    "OFF_WARNING",
    "SandboxError",
    "SandboxPolicy",
    "SandboxUnavailable",
    "bwrap_path",
    "cache_env",
    "check_available",
    "default_cache_dir",
    "pids_limit_mechanism",
    "policy_from_config",
    "release",
    "sandbox_argv",
    "scrub_env",
]


def sandbox_argv(
    argv: list[str],
    *,
    worktree: Path,
    repo_root: Path | None,
    policy: SandboxPolicy,
    cache_dir: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The bubblewrap command line that runs argv in worktree, and its scrubbed environment.

    `env` defaults to os.environ. `cwd` (default: the worktree) must be inside the worktree.
    The returned argv must be started with the returned env and no other preparation; it
    joins a fresh pids cgroup itself when one is available. Note `--die-with-parent` ties
    the sandbox to the *thread* that starts it: start it from a thread that outlives it.
    Raises SandboxUnavailable / SandboxError.
    """
    check_available()
    exe = bwrap_path()
    assert exe is not None
    wt = Path(os.path.realpath(worktree))
    cache = Path(os.path.realpath(cache_dir))
    cache.mkdir(parents=True, exist_ok=True)
    workdir = Path(os.path.realpath(cwd)) if cwd is not None else wt
    if workdir != wt and wt not in workdir.parents:
        raise SandboxError(f"the command's directory {workdir} is not inside the worktree {wt}")

    args: list[str] = [exe, *base_flags(network=policy.network)]
    args += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    tmp_bytes = str(max(1, policy.tmp_mb) * 1024 * 1024)
    args += ["--size", tmp_bytes, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--size", tmp_bytes, "--perms", "1777", "--tmpfs", "/tmp"]

    layout = git_layout(wt, repo_root)
    hidden = _hidden_paths(policy, repo_root, checkouts(layout, wt))
    for path in hidden:
        args += _hide(path)
    if policy.network:
        # /etc/resolv.conf often points into /run, which the deny list hides.
        resolv = Path(os.path.realpath("/etc/resolv.conf"))
        if resolv.is_file() and str(resolv) != "/etc/resolv.conf":
            args += ["--ro-bind", str(resolv), str(resolv)]

    if layout is not None:
        args += git_binds(*layout)
    args += ["--bind", str(wt), str(wt)]
    git_file = wt / ".git"
    if git_file.is_file():
        # Pinned: a rewritten `.git` file would point cursorish's own (unsandboxed) git
        # commands in this worktree at a config the agent wrote.
        args += ["--ro-bind", str(git_file), str(git_file)]
    elif git_file.is_dir():
        # A main checkout is no agent worktree: its config and hooks stay out of reach.
        args += ["--perms", "0700", "--tmpfs", str(git_file), "--remount-ro", str(git_file)]
    args += ["--bind", str(cache), str(cache)]
    # Last, once the binds inside them have their mount points: the hiding tmpfs mounts
    # become read-only too, so nothing written there looks like it succeeded.
    for path in hidden:
        if path.is_dir():
            args += ["--remount-ro", str(path)]
    args += ["--chdir", str(workdir), "--", *argv]

    base = dict(os.environ if env is None else env)
    out_env = scrub_env(base, policy.env_deny)
    out_env.update(cache_env(cache))
    return with_limits(args, policy), out_env


def _expand(path: str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.path.expandvars(path))))


def _hidden_paths(
    policy: SandboxPolicy, repo_root: Path | None, checkouts: list[Path]
) -> list[Path]:
    from cursorish.config import user_config_path
    from cursorish.store.paths import cursorish_home

    raw = [
        *policy.deny,
        *policy.extra_hidden,
        str(cursorish_home()),
        str(user_config_path().parent),
    ]
    paths = [_expand(p) for p in raw]
    if repo_root is not None:
        paths.append(Path(os.path.realpath(repo_root)))
    paths += checkouts
    # Shallow first, so that a deeper path is hidden inside an already hidden parent in order.
    seen: set[Path] = set()
    result: list[Path] = []
    for p in sorted(paths, key=lambda q: len(q.parts)):
        if p in seen or p == Path("/") or not os.path.lexists(p):
            continue
        seen.add(p)
        result.append(p)
    return result


def _hide(path: Path) -> list[str]:
    if path.is_dir():
        return ["--perms", "0700", "--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]
