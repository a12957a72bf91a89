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

import contextlib
import fnmatch
import functools
import itertools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cursorish.errors import ConfigError, CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.core.config import Config

DEFAULT_DENY: tuple[str, ...] = (
    "~/.ssh",
    "~/.aws",
    "~/.config/gcloud",
    "~/.azure",
    "~/.netrc",
    "~/.gnupg",
    "~/.docker",
    "~/.kube",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.pypirc",
    "~/.npmrc",
    "~/.config/git/credentials",
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.mozilla",
    "~/.config/google-chrome",
    "~/.config/chromium",
    # Unix sockets (docker, dbus) stay connectable on a read-only mount; hide them.
    "/run",
)
DEFAULT_ENV_DENY: tuple[str, ...] = (
    "*_API_KEY",
    "*_APIKEY",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_*",
    "*_PASSWORD",
    "*_PASSWD",
    "*_CREDENTIALS",
    "*_PRIVATE_KEY",
    "AWS_*",
    "AZURE_*",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "CURSORISH_*",
    "LITELLM_*",
)
BWRAP = "/usr/bin/bwrap"
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: "
    "`dnf install bubblewrap`), or run without a sandbox at your own risk with --no-sandbox "
    'or sandbox = "off" in your user config'
)

OFF_WARNING = (
    'cursorish: WARNING: the sandbox is off (--no-sandbox / sandbox = "off"): agents\' '
    "commands run with your full rights: they can read your secrets, write anywhere you can "
    "and reach the network"
)


class SandboxUnavailable(CursorishError):
    """The sandbox cannot start here; the message says what to install or how to opt out."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.WORKTREE)


class SandboxError(CursorishError):
    """A sandbox cannot be built for this worktree (its git metadata is not where it should be)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.WORKTREE)


@dataclass(frozen=True)
class SandboxPolicy:
    enabled: bool = True
    network: bool = False
    deny: tuple[str, ...] = DEFAULT_DENY
    env_deny: tuple[str, ...] = DEFAULT_ENV_DENY
    cpu_seconds: int = 900  # RLIMIT_CPU of each process
    memory_mb: int = 8192  # RLIMIT_DATA of each process
    processes: int = 1024  # tasks (processes and threads) of one command, all together
    tmp_mb: int = 1024  # the private /tmp (and /dev/shm)
    # Paths hidden in addition to the deny list (cursorish's store, config); filled by callers.
    extra_hidden: tuple[str, ...] = field(default=())


def scrub_env(env: Mapping[str, str], patterns: tuple[str, ...]) -> dict[str, str]:
    """env without the variables whose name matches a pattern (case-insensitive glob)."""
    pats = [p.upper() for p in patterns]
    return {
        k: v for k, v in env.items() if not any(fnmatch.fnmatchcase(k.upper(), p) for p in pats)
    }


# --- availability -------------------------------------------------------------------------


def bwrap_path() -> str | None:
    """The bubblewrap binary: $CURSORISH_BWRAP when set (an unusual install), else on PATH."""
    explicit = os.environ.get("CURSORISH_BWRAP")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = shutil.which("bwrap")
    if found:
        return found
    return BWRAP if os.access(BWRAP, os.X_OK) else None


def _probe() -> str | None:
    return _probe_with(bwrap_path())


@functools.lru_cache(maxsize=4)
def _probe_with(exe: str | None) -> str | None:
    """None when a minimal sandbox starts, else why not (cached: one probe per process)."""
    if sys.platform != "linux":
        return f"the sandbox needs Linux (bubblewrap); this is {sys.platform}"
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        proc = subprocess.run(
            [
                exe,
                *_base_flags(network=False),
                "--ro-bind",
                "/",
                "/",
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "true",
            ],
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({exe}) cannot run: {exc}"
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        hint = ""
        if "namespace" in why.lower() or "permission" in why.lower():
            hint = (
                " (user namespaces are probably disabled: sysctl kernel.unprivileged_userns_clone=1"
                " or user.max_user_namespaces > 0)"
            )
        return f"bubblewrap cannot create a sandbox: {why}{hint}"
    return None


def check_available() -> None:
    """Raise SandboxUnavailable unless bubblewrap can start a sandbox here."""
    why = _probe()
    if why is not None:
        raise SandboxUnavailable(f"cannot sandbox agent commands: {why}; {INSTALL_HINT}")


# --- the command line ---------------------------------------------------------------------


def _base_flags(*, network: bool) -> list[str]:
    flags = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
    ]
    if not network:
        flags.append("--unshare-net")
    return flags


def default_cache_dir(worktree: Path) -> Path:
    """The per-agent cache: `<state dir>/sandbox-cache/<agent id>` for an agent worktree."""
    from cursorish.store.paths import cursorish_home

    wt = Path(os.path.realpath(worktree))
    if wt.parent.name == "worktrees":
        return wt.parent.parent / "sandbox-cache" / wt.name
    return cursorish_home() / "sandbox-cache" / _hash(str(wt))


def policy_from_config(cfg: Config, *, network: bool | None = None) -> SandboxPolicy:
    """The sandbox policy of the effective configuration (deny lists extend the defaults)."""
    mode = cfg.get_str("sandbox").strip().lower()
    if mode not in ("on", "off"):
        raise ConfigError(f"sandbox must be on or off, got {mode!r} ({cfg.sources['sandbox']})")
    return SandboxPolicy(
        enabled=mode == "on",
        network=bool(cfg["sandbox_network"]) if network is None else network,
        deny=DEFAULT_DENY + tuple(cfg["sandbox_deny"]),
        env_deny=DEFAULT_ENV_DENY + tuple(cfg["sandbox_env_deny"]),
        cpu_seconds=cfg.get_int("sandbox_cpu_s"),
        memory_mb=cfg.get_int("sandbox_memory_mb"),
        processes=cfg.get_int("sandbox_processes"),
        tmp_mb=cfg.get_int("sandbox_tmp_mb"),
    )


def cache_env(cache_dir: Path) -> dict[str, str]:
    """Variables that point build and package tools' caches at the per-agent cache dir."""
    c = str(cache_dir)
    return {
        "XDG_CACHE_HOME": c,
        "PIP_CACHE_DIR": f"{c}/pip",
        "npm_config_cache": f"{c}/npm",
        "YARN_CACHE_FOLDER": f"{c}/yarn",
        "GOCACHE": f"{c}/go-build",
        "RUFF_CACHE_DIR": f"{c}/ruff",
        "MYPY_CACHE_DIR": f"{c}/mypy",
        "TMPDIR": "/tmp",
    }


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

    args: list[str] = [exe, *_base_flags(network=policy.network)]
    args += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    tmp_bytes = str(max(1, policy.tmp_mb) * 1024 * 1024)
    args += ["--size", tmp_bytes, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--size", tmp_bytes, "--perms", "1777", "--tmpfs", "/tmp"]

    layout = _git_layout(wt, repo_root)
    hidden = _hidden_paths(policy, repo_root, _checkouts(layout, wt))
    for path in hidden:
        args += _hide(path)
    if policy.network:
        # /etc/resolv.conf often points into /run, which the deny list hides.
        resolv = Path(os.path.realpath("/etc/resolv.conf"))
        if resolv.is_file() and str(resolv) != "/etc/resolv.conf":
            args += ["--ro-bind", str(resolv), str(resolv)]

    if layout is not None:
        args += _git_binds(*layout)
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
    return _with_limits(args, policy), out_env


def _expand(path: str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.path.expandvars(path))))


def _hidden_paths(
    policy: SandboxPolicy, repo_root: Path | None, checkouts: list[Path]
) -> list[Path]:
    from cursorish.core.config import user_config_path
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


def _read_gitfile(path: Path) -> Path | None:
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text.removeprefix("gitdir:").strip())
    return Path(os.path.realpath(target if target.is_absolute() else path.parent / target))


def _common_dir(gitdir: Path) -> Path:
    try:
        rel = (gitdir / "commondir").read_text("utf-8").strip()
    except OSError:
        return gitdir
    p = Path(rel)
    return Path(os.path.realpath(p if p.is_absolute() else gitdir / p))


def _repo_common_dir(repo_root: Path) -> Path | None:
    dotgit = repo_root / ".git"
    if dotgit.is_dir():
        return Path(os.path.realpath(dotgit))
    gitdir = _read_gitfile(dotgit)
    return _common_dir(gitdir) if gitdir is not None else None


def _git_layout(wt: Path, repo_root: Path | None) -> tuple[Path, Path] | None:
    """(the worktree's own git dir, the repository's common dir), or None for a plain dir."""
    gitdir = _read_gitfile(wt / ".git")
    if gitdir is None:
        return None
    common = _common_dir(gitdir)
    expected = _repo_common_dir(Path(os.path.realpath(repo_root))) if repo_root else None
    if (expected is not None and common != expected) or gitdir.parent != common / "worktrees":
        raise SandboxError(
            f"the worktree {wt} does not belong to the repository {repo_root or common} "
            f"(its .git points at {gitdir}); refusing to run commands in it"
        )
    return gitdir, common


def _checkouts(layout: tuple[Path, Path] | None, wt: Path) -> list[Path]:
    """The repository's other checkouts: the main one and every other linked worktree."""
    if layout is None:
        return []
    gitdir, common = layout
    found: list[Path] = []
    if common.name == ".git":
        found.append(common.parent)
    with contextlib.suppress(OSError):
        for entry in (common / "worktrees").iterdir():
            if entry == gitdir:
                continue
            with contextlib.suppress(OSError):
                target = Path((entry / "gitdir").read_text("utf-8").strip())
                if target.name == ".git" and target.parent != wt:
                    found.append(Path(os.path.realpath(target.parent)))
    return found


def _git_binds(gitdir: Path, common: Path) -> list[str]:
    """Read-only binds of exactly the git metadata a linked worktree needs."""
    binds: list[str] = []
    # Hide the whole common dir first (hooks, config, other worktrees' git dirs), then
    # re-expose the parts git reads.
    binds += ["--perms", "0755", "--tmpfs", str(common)]
    for name in ("objects", "refs", "packed-refs", "HEAD", "info", "shallow", "lfs"):
        part = common / name
        if part.exists():
            binds += ["--ro-bind", str(part), str(part)]
    binds += ["--ro-bind", str(gitdir), str(gitdir)]
    binds += ["--ro-bind", str(_sanitised_config(common)), str(common / "config")]
    return binds


_SAFE_CONFIG_PREFIXES = (
    "core.repositoryformatversion",
    "core.bare",
    "core.filemode",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "extensions.",
)


def _sanitised_config(common: Path) -> Path:
    """A copy of the repository's config with only the keys that define its format.

    The real one can hold credentials (remote URLs) and settings that run programs; the
    copy lives in cursorish's state and is rewritten when the original changes.
    """
    from cursorish.store.paths import cursorish_home

    src = common / "config"
    try:
        stat = src.stat()
        stamp = f"{stat.st_mtime_ns}-{stat.st_size}"
    except OSError:
        stamp = "none"
    out_dir = cursorish_home() / "sandbox"
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = _hash(str(common))
    out = out_dir / f"gitconfig-{digest}-{stamp}"
    if out.exists():
        return out
    lines = ["[core]", "\trepositoryformatversion = 0", "\tbare = false"]
    if stamp != "none":
        proc = subprocess.run(
            ["git", "config", "--file", str(src), "--null", "--list"],
            capture_output=True,
            check=False,
        )
        entries: dict[str, str] = {}
        for item in proc.stdout.decode("utf-8", "replace").split("\0"):
            key, _, value = item.partition("\n")
            if key.lower().startswith(_SAFE_CONFIG_PREFIXES):
                entries[key.lower()] = value
        lines = []
        sections: dict[str, list[str]] = {}
        for key, value in entries.items():
            section, _, name = key.rpartition(".")
            sections.setdefault(section, []).append(f"\t{name} = {_quote(value)}")
        sections.setdefault("core", [])
        for section, body in sections.items():
            lines.append(f"[{section}]")
            lines.extend(body)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text("\n".join(lines) + "\n", "utf-8")
    os.replace(tmp, out)
    # Older copies, once no command that is starting can still be binding them.
    cutoff = time.time() - 60
    for old in out_dir.glob(f"gitconfig-{digest}-*"):
        with contextlib.suppress(OSError):
            if old != out and old.stat().st_mtime < cutoff:
                old.unlink()
    return out


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _hash(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode()).hexdigest()[:12]


# --- limits -------------------------------------------------------------------------------

_CGROUP_PARENT_NAME = "cursorish-sandbox"
_counter = itertools.count()


@functools.lru_cache(maxsize=1)
def _pids_parent() -> Path | None:
    """A writable cgroup directory whose children get a pids controller, or None."""
    try:
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    candidates: list[Path] = []
    for line in own:
        _, controllers, rel = line.split(":", 2)
        if "pids" in controllers.split(","):
            candidates.append(Path("/sys/fs/cgroup/pids") / rel.lstrip("/"))
        elif controllers == "":
            v2 = Path("/sys/fs/cgroup") / rel.lstrip("/")
            with contextlib.suppress(OSError):
                if "pids" in (v2 / "cgroup.subtree_control").read_text().split():
                    candidates.append(v2)
    for base in candidates:
        parent = base / _CGROUP_PARENT_NAME
        try:
            parent.mkdir(exist_ok=True)
            probe = parent / f"probe-{os.getpid()}"
            probe.mkdir(exist_ok=True)
            ok = (probe / "pids.max").exists()
            probe.rmdir()
        except OSError:
            continue
        if ok:
            return parent
    return None


def _new_pids_cgroup(limit: int) -> Path | None:
    parent = _pids_parent()
    if parent is None:
        return None
    _sweep(parent)
    path = parent / f"{os.getpid()}-{next(_counter)}-{time.monotonic_ns()}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(limit))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return path


def _sweep(parent: Path) -> None:
    """Remove empty command cgroups older than a minute (the command has ended)."""
    cutoff = time.time() - 60
    with contextlib.suppress(OSError):
        for child in parent.iterdir():
            with contextlib.suppress(OSError):
                if child.is_dir() and child.stat().st_mtime < cutoff:
                    child.rmdir()  # fails while processes are in it


def pids_limit_mechanism() -> str:
    """How the process-count limit is enforced here (for `bench sandbox` and the docs)."""
    if _pids_parent() is not None:
        return "cgroup pids.max"
    return "RLIMIT_NPROC (not enforced for root)" if os.geteuid() == 0 else "RLIMIT_NPROC"


def _with_limits(args: list[str], policy: SandboxPolicy) -> list[str]:
    """Prefix a tiny sh that joins the pids cgroup, sets the rlimits and execs bwrap."""
    cgroup = _new_pids_cgroup(policy.processes)
    limits = [
        f"ulimit -t {max(1, policy.cpu_seconds)}",
        f"ulimit -d {max(1, policy.memory_mb) * 1024}",
    ]
    if cgroup is None:
        limits.append(f"ulimit -p {max(1, policy.processes)}")
        script = " && ".join(limits) + ' && exec "$@"'
        return ["/bin/sh", "-c", script, "sh", *args]
    # cgroup v1: moving the (single-threaded) shell by writing 0 to `tasks` skips the global
    # threadgroup lock whose RCU grace period makes a `cgroup.procs` write cost ~10 ms.
    tasks = cgroup / "tasks"
    join = 'echo 0 > "$0"' if tasks.exists() else 'echo $$ > "$0"'
    target = tasks if tasks.exists() else cgroup / "cgroup.procs"
    script = f"{join} && " + " && ".join(limits) + ' && exec "$@"'
    return ["/bin/sh", "-c", script, str(target), *args]


def _cgroup_of(argv: list[str]) -> Path | None:
    if len(argv) > 3 and argv[0] == "/bin/sh" and argv[3].endswith(("/cgroup.procs", "/tasks")):
        return Path(argv[3]).parent
    return None


def release(argv: list[str], timeout_s: float = 5.0) -> None:
    """After a sandboxed command's process has exited: make sure nothing it started is left.

    bubblewrap reports the command's exit before its PID namespace is fully torn down, so
    a process can outlive the command by a few milliseconds. With a pids cgroup this waits
    until the cgroup is empty (SIGKILLing what remains) and removes it; call it with the
    argv that sandbox_argv returned, also after a timeout or a cancel.
    """
    cgroup = _cgroup_of(argv)
    if cgroup is None:
        return
    start = time.monotonic()
    killed = False
    while True:
        try:
            pids = [int(p) for p in (cgroup / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            break
        waited = time.monotonic() - start
        if waited > timeout_s:
            return  # unkillable for now (D state); the sweep removes the cgroup later
        if waited > 0.2 and not killed:  # the namespace teardown takes milliseconds
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            killed = True
        time.sleep(0.002)
    with contextlib.suppress(OSError):
        cgroup.rmdir()
