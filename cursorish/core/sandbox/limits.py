"""The sandbox's limits: rlimits for CPU time and data size, a pids cgroup for the process
count, and `release` to make sure nothing outlives a command."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from pathlib import Path

from cursorish.core.sandbox.policy import SandboxPolicy

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


def _nproc_limit(processes: int) -> int:
    """RLIMIT_NPROC counts every task of the user, not just the command's: a limit of
    `processes` would fail the first fork of a user who already runs more. Allow the tasks
    that exist now (all users', from /proc/loadavg: cheap, and an upper bound) on top."""
    try:
        existing = int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        existing = 4096
    return max(1, processes) + existing


def with_limits(args: list[str], policy: SandboxPolicy) -> list[str]:
    """Prefix a tiny sh that joins the pids cgroup, sets the rlimits and execs bwrap."""
    cgroup = _new_pids_cgroup(policy.processes)
    limits = [
        f"ulimit -t {max(1, policy.cpu_seconds)}",
        f"ulimit -d {max(1, policy.memory_mb) * 1024}",
    ]
    if cgroup is None:
        limits.append(f"ulimit -p {_nproc_limit(policy.processes)}")
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
