"""run_command: run a program in an agent's worktree under a policy, a timeout and an output cap.

With a sandbox policy (the default everywhere an agent runs) the program runs inside the OS
sandbox of core/sandbox.py; the policy names here (deny / allowlist / ask / allow) only decide
which commands are started at all. The child gets its own process group, so a timeout or a
cancel kills grandchildren too (and inside the sandbox its PID namespace ends with it).
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cursorish.core.sandbox import SandboxPolicy, default_cache_dir, release, sandbox_argv
from cursorish.errors import CursorishError

# Prefixes a headless agent may run without asking; a repo adds its own via config.
DEFAULT_ALLOWLIST: tuple[str, ...] = (
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "ruff",
    "mypy",
    "npm test",
    "npm run test",
    "npm run lint",
    "npx vitest",
    "npx jest",
    "go test",
    "go vet",
    "go build",
    "cargo test",
    "cargo check",
    "cargo build",
    "make test",
    "make check",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "git status",
    "git diff",
    "git log",
    "git show",
)
SHELL_METACHARACTERS = set(";|&`$<>(){}\n")
OUTPUT_CAP = 20_000


# The user's answer to "may I run this?": no, yes, or yes with the sandbox's network opened for
# this one command (the sandbox itself stays on).
WITH_NETWORK: Literal["network"] = "network"
Approval = bool | Literal["network"]


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None: killed (timeout or cancel)
    output: str
    elapsed_s: float
    timed_out: bool = False
    cancelled: bool = False

    def render(self) -> str:
        if self.timed_out:
            head = f"timed out after {self.elapsed_s:.1f}s; the process group was killed"
        elif self.cancelled:
            head = "cancelled; the process group was killed"
        else:
            head = f"exit code {self.exit_code} ({self.elapsed_s:.1f}s)"
        return f"{head}\n{self.output}" if self.output else head


class CommandRefused(Exception):
    """The policy does not allow this command; the message says why and what is allowed."""


def check_policy(command: str, policy: str, allowlist: tuple[str, ...]) -> list[str]:
    """Return argv for an allowed command or raise CommandRefused."""
    if policy == "deny":
        raise CommandRefused("running commands is disabled by policy (command_policy = deny)")
    if policy not in ("allowlist", "ask", "allow"):
        raise CommandRefused(f"unknown command policy {policy!r}")
    if policy == "allowlist":
        if SHELL_METACHARACTERS & set(command):
            raise CommandRefused(
                "shell syntax (pipes, redirections, ;, &&, $) is not allowed headless; "
                "run one plain command"
            )
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise CommandRefused(f"cannot parse command: {exc}") from None
        if not argv:
            raise CommandRefused("empty command")
        words = " ".join(argv)
        if not any(words == p or words.startswith(p + " ") for p in allowlist):
            allowed = ", ".join(allowlist[:12]) + ", ..."
            raise CommandRefused(
                f"{argv[0]!r} is not in the headless allowlist ({allowed}); "
                "add it with command_allowlist in .cursorish/config.toml"
            )
        return argv
    return ["bash", "-c", command]


def run_in_worktree(
    argv: list[str],
    cwd: Path,
    *,
    timeout_s: float,
    cancel: threading.Event | None = None,
    output_cap: int = OUTPUT_CAP,
    sandbox: SandboxPolicy | None = None,
    repo_root: Path | None = None,
    cache_dir: Path | None = None,
) -> CommandResult:
    """Run argv in cwd, killing its whole process group on timeout or cancel.

    With an enabled `sandbox` policy, cwd is the agent's worktree (or a directory in it) and
    the command runs in the sandbox; `repo_root` is the user's checkout (hidden there) and
    `cache_dir` the writable cache (default: next to the worktree, see default_cache_dir).
    """
    start = time.monotonic()
    env = {**os.environ, "CI": os.environ.get("CI", "1"), "PAGER": "cat", "GIT_PAGER": "cat"}
    if sandbox is not None and sandbox.enabled:
        try:
            argv, env = sandbox_argv(
                argv,
                worktree=cwd,
                repo_root=repo_root,
                policy=sandbox,
                cache_dir=cache_dir or default_cache_dir(cwd),
                env=env,
            )
        except CursorishError as exc:
            return CommandResult(126, f"cannot start the sandbox: {exc.message}", 0.0)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    except FileNotFoundError:
        return CommandResult(127, f"command not found: {argv[0]}", 0.0)
    except OSError as exc:
        return CommandResult(126, f"cannot run {argv[0]}: {exc.strerror}", 0.0)
    chunks: list[bytes] = []
    size = [0]

    def pump() -> None:
        assert proc.stdout is not None
        stream = proc.stdout
        for block in iter(lambda: stream.read(65536) if stream else b"", b""):
            if size[0] < output_cap * 4:
                chunks.append(block)
            size[0] += len(block)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = cancelled = False
    waiter = _ExitWaiter(proc)
    while True:
        try:
            waiter.wait(0.05)
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() - start > timeout_s:
                timed_out = True
            elif cancel is not None and cancel.is_set():
                cancelled = True
            else:
                continue
            _kill_group(proc)
            break
    waiter.close()
    release(argv)  # a sandboxed command's last processes, if any are still going
    reader.join(timeout=2)
    text = b"".join(chunks).decode("utf-8", "replace")
    if len(text) > output_cap or size[0] > output_cap * 4:
        half = output_cap // 2
        text = f"{text[:half]}\n... [output truncated, {size[0]} bytes in all] ...\n{text[-half:]}"
    code = None if (timed_out or cancelled) else proc.returncode
    return CommandResult(code, text, time.monotonic() - start, timed_out, cancelled)


class _ExitWaiter:
    """`wait(timeout)` that returns as soon as the process exits (else TimeoutExpired).

    Popen.wait(timeout) polls with sleeps that grow to the timeout, adding up to 50 ms to
    every short command; a pidfd wakes select() at the exit itself.
    """

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.fd: int | None
        try:
            self.fd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self.fd = None

    def wait(self, timeout: float) -> None:
        if self.fd is not None:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired(self.proc.args, timeout)
        self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            # The leader is gone; grandchildren in the group may not be.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
