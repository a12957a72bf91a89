"""What a tool's handler gets: the agent's worktree, its policies, its event sink (the store
recorder listens there first), and the path checks every file tool goes through."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cursorish.core.command_runner import DEFAULT_ALLOWLIST, Approval
from cursorish.core.containment import relative_name, resolve_in_worktree
from cursorish.core.events import EventSink, null_sink
from cursorish.core.sandbox import SandboxPolicy
from cursorish.errors import CursorishError


@dataclass
class ToolContext:
    """What the tools of one agent share: its worktree, policies and event sink."""

    root: Path
    agent_id: str
    apply_engine: str = "auto"
    command_policy: str = "allowlist"
    command_allowlist: tuple[str, ...] = DEFAULT_ALLOWLIST
    command_timeout_s: float = 120.0
    # Every event goes through here, the store recorder first (core/recorder.py).
    emit: EventSink = null_sink
    cancel: threading.Event = field(default_factory=threading.Event)
    ask: Callable[[str], Approval] | None = None  # the TUI's "may I run this?" prompt
    list_files_fn: Callable[[Path], list[str]] | None = None
    # run_command's OS sandbox (disabled only by the user's --no-sandbox / sandbox = "off");
    # repo_root is the user's checkout, hidden from it.
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    repo_root: Path | None = None
    # The user's `expose_local_files`: provisioned local files the planner may read.
    expose_local_files: tuple[str, ...] = ()

    def path(self, args: dict[str, Any], key: str = "path") -> Path:
        """The worktree path an argument names (CursorishError if it is not one)."""
        value = args.get(key)
        if not isinstance(value, str):
            raise CursorishError(f"'{key}' must be a string path")
        return resolve_in_worktree(self.root, value)

    def text(self, args: dict[str, Any], key: str) -> str:
        """A string argument (CursorishError if it is missing or not a string)."""
        value = args.get(key)
        if not isinstance(value, str):
            raise CursorishError(f"'{key}' must be a string")
        return value

    def write_path(self, args: dict[str, Any]) -> Path:
        """`path` for a tool that writes: also refused inside a submodule or a nested repository,
        where git would never commit the file (it would be written, then silently lost)."""
        path = self.path(args)
        name = relative_name(self.root, path)
        parents = [p.as_posix() for p in reversed(Path(name).parents) if p.as_posix() != "."]
        for parent in parents:
            if (self.root / parent / ".git").exists():
                raise CursorishError(
                    f"{name} is inside {parent}/, a nested git repository: its files are not "
                    "part of this repository's commits, so the file tools do not write there"
                )
        if parents:
            from cursorish.gitops.worktrees import gitlinks

            inside = gitlinks(self.root, parents)
            if inside:
                raise CursorishError(
                    f"{name} is inside the submodule {inside[0]}/: its files belong to another "
                    "repository and would not be committed on this branch, so the file tools "
                    "do not write there"
                )
        return path

    def files(self) -> list[str]:
        """The files git would track in the worktree."""
        if self.list_files_fn is not None:
            return self.list_files_fn(self.root)
        from cursorish.gitops.worktrees import tracked_files

        return tracked_files(self.root)

    def secrets(self) -> frozenset[str]:
        """The provisioned local files (the user's secrets) the planner may not see."""
        from cursorish.core.local_files import secrets_of

        return secrets_of(self.root, self.expose_local_files)
