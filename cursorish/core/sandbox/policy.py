"""The sandbox's policy: what is hidden and scrubbed by default, its limits, its errors,
and the policy of the effective configuration."""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cursorish.errors import ConfigError, CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.config import Config

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


def default_cache_dir(worktree: Path) -> Path:
    """The per-agent cache: `<state dir>/sandbox-cache/<agent id>` for an agent worktree."""
    from cursorish.store.paths import cursorish_home

    wt = Path(os.path.realpath(worktree))
    if wt.parent.name == "worktrees":
        return wt.parent.parent / "sandbox-cache" / wt.name
    return cursorish_home() / "sandbox-cache" / hash_text(str(wt))


def policy_from_config(cfg: Config, *, network: bool | None = None) -> SandboxPolicy:
    """The sandbox policy of the effective configuration (deny lists extend the defaults)."""
    mode = cfg.get_str("sandbox").strip().lower()
    if mode not in ("on", "off"):
        raise ConfigError(f"sandbox must be on or off, got {mode!r} ({cfg.source('sandbox')})")
    return SandboxPolicy(
        enabled=mode == "on",
        network=cfg.get_bool("sandbox_network") if network is None else network,
        deny=DEFAULT_DENY + cfg.get_list("sandbox_deny"),
        env_deny=DEFAULT_ENV_DENY + cfg.get_list("sandbox_env_deny"),
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


def hash_text(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]
