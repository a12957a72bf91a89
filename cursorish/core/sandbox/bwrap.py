"""bubblewrap itself: where it is, its namespace flags, and whether it can start here."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from cursorish.core.sandbox.policy import INSTALL_HINT, SandboxUnavailable

BWRAP = "/usr/bin/bwrap"


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
                *base_flags(network=False),
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


def base_flags(*, network: bool) -> list[str]:
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
