"""The tools an agent's planner can call, with the JSON schemas it sees.

Every tool runs inside one worktree; every path goes through `resolve_in_worktree`. A tool never
raises into the agent loop: failures come back as a result text the planner can act on.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from cursorish.apply.textio import is_binary, write_atomic
from cursorish.context.search import glob_filter
from cursorish.core.command_runner import (
    DEFAULT_ALLOWLIST,
    WITH_NETWORK,
    Approval,
    CommandRefused,
    check_policy,
    run_in_worktree,
)
from cursorish.core.events import Event, EventSink, null_sink
from cursorish.core.paths import relative_name, resolve_in_worktree
from cursorish.core.sandbox import SandboxPolicy
from cursorish.core.text import for_planner
from cursorish.errors import CursorishError

MAX_READ_LINES = 2000
MAX_EDIT_BYTES = 2_000_000
MAX_LIST = 500
APPLY_PROGRESS_S = 0.05  # at most one apply_progress event per agent this often


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


_PATH = {"type": "string", "description": "path relative to the repository root"}

TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "read_file": _fn(
        "read_file",
        "Read a text file. For big files pass a 1-based inclusive line range.",
        {
            "path": _PATH,
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    "list_files": _fn(
        "list_files",
        "List files git would track (respects .gitignore), optionally under a directory "
        "and/or matching a glob such as '*.py'.",
        {"directory": _PATH, "glob": {"type": "string"}},
        [],
    ),
    "grep": _fn(
        "grep",
        "Search file contents with a regular expression; returns path:line: text.",
        {
            "pattern": {"type": "string"},
            "glob": {"type": "string", "description": "only files matching this glob"},
            "ignore_case": {"type": "boolean"},
            "fixed_string": {"type": "boolean", "description": "treat pattern as plain text"},
        },
        ["pattern"],
    ),
    "search_code": _fn(
        "search_code",
        "Find the files most relevant to a description, identifiers or words (ranked: text "
        "match, names in paths, definitions, the call graph); returns paths with matching lines.",
        {
            "query": {"type": "string", "description": "what you look for, in words or names"},
            "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "files (10)"},
        },
        ["query"],
    ),
    "find_symbol": _fn(
        "find_symbol",
        "Where a function, class, method, type or constant is defined and referenced.",
        {"name": {"type": "string", "description": "the symbol's name, e.g. parse_args"}},
        ["name"],
    ),
    "edit_file": _fn(
        "edit_file",
        "Edit an existing file by sending a sketch: the changed code with a few unchanged "
        "lines around it, unchanged regions elided with a comment like '# ... existing code "
        "...'. SEARCH/REPLACE blocks, a unified diff or the whole file also work. If the apply "
        "step refuses, it says why: resend with more context.",
        {
            "path": _PATH,
            "sketch": {"type": "string"},
            "instruction": {
                "type": "string",
                "description": "optional: one sentence on what the edit does (it helps the "
                "apply model place an ambiguous sketch)",
            },
        },
        ["path", "sketch"],
    ),
    "create_file": _fn(
        "create_file",
        "Create a new file with the given full content (fails if it exists).",
        {"path": _PATH, "content": {"type": "string"}},
        ["path", "content"],
    ),
    "delete_file": _fn("delete_file", "Delete a file.", {"path": _PATH}, ["path"]),
    "run_command": _fn(
        "run_command",
        "Run a command (tests, linters) in the repository root; returns exit code and output.",
        {"command": {"type": "string"}, "timeout_s": {"type": "number"}},
        ["command"],
    ),
    "finish": _fn(
        "finish",
        "Call when the task is done (status 'done') or cannot be done ('gave_up').",
        {
            "summary": {"type": "string", "description": "what you changed and why"},
            "status": {"type": "string", "enum": ["done", "gave_up"]},
        },
        ["summary"],
    ),
}
ALL_TOOLS = tuple(TOOL_SCHEMAS)
# The agent state shown while each tool runs.
WRITE_TOOL_STATES = {
    "edit_file": "applying",
    "create_file": "applying",
    "delete_file": "applying",
    "run_command": "running_command",
}


@dataclass
class ToolResult:
    text: str
    ok: bool = True
    finished: bool = False
    finish_status: str = ""
    summary: str = ""
    changed_path: str | None = None
    command: str | None = None  # run_command: the command line and how it ended
    exit_code: int | None = None


@dataclass
class ToolContext:
    """What the tools of one agent share: its worktree, policies and recorders."""

    root: Path
    agent_id: str
    apply_engine: str = "auto"
    command_policy: str = "allowlist"
    command_allowlist: tuple[str, ...] = DEFAULT_ALLOWLIST
    command_timeout_s: float = 120.0
    emit: EventSink = null_sink
    record_apply: Callable[[dict[str, Any]], object] = lambda _row: None
    cancel: threading.Event = field(default_factory=threading.Event)
    ask: Callable[[str], Approval] | None = None  # the TUI's "may I run this?" prompt
    list_files_fn: Callable[[Path], list[str]] | None = None
    # run_command's OS sandbox (disabled only by the user's --no-sandbox / sandbox = "off");
    # repo_root is the user's checkout, hidden from it.
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    repo_root: Path | None = None
    # The user's `expose_local_files`: provisioned local files the planner may read.
    expose_local_files: tuple[str, ...] = ()


class DynamicTools(Protocol):
    """Tools that are not built in (MCP servers' tools): named at run time, each provider
    answering for its own names. `prepare` runs (in a thread, once the worktree is ready)
    before the planner's first request when `needs_prepare`; `close` when the agent ends."""

    def needs_prepare(self) -> bool: ...

    def prepare(self) -> None: ...

    def schemas(self) -> list[dict[str, Any]]: ...

    def handles(self, name: str) -> bool: ...

    def call(self, name: str, args: dict[str, Any]) -> ToolResult: ...

    def close(self) -> None: ...


class ToolBox:
    """Dispatches tool calls by name; only the tools of the agent's profile are offered."""

    def __init__(
        self,
        ctx: ToolContext,
        allowed: tuple[str, ...] = ALL_TOOLS,
        dynamic: tuple[DynamicTools, ...] = (),
    ) -> None:
        unknown = [t for t in allowed if t not in TOOL_SCHEMAS]
        if unknown:
            raise CursorishError(f"unknown tool(s) in profile: {', '.join(unknown)}")
        self.ctx = ctx
        self.allowed = tuple(t for t in ALL_TOOLS if t in allowed)
        self.dynamic = dynamic

    def schemas(self) -> list[dict[str, Any]]:
        builtin = [TOOL_SCHEMAS[name] for name in self.allowed]
        return builtin + [s for d in self.dynamic for s in d.schemas()]

    def needs_prepare(self) -> bool:
        return any(d.needs_prepare() for d in self.dynamic)

    def prepare(self) -> None:
        for d in self.dynamic:
            d.prepare()

    def close(self) -> None:
        for d in self.dynamic:
            d.close()

    def _provider(self, name: str) -> DynamicTools | None:
        return next((d for d in self.dynamic if d.handles(name)), None)

    def call(self, name: str, raw_arguments: str) -> ToolResult:
        """Run one tool call. Its text is valid UTF-8 whatever the bytes of the files and their
        names: an undecodable byte is written `\\xHH` (core/text.for_planner), as the planner
        and the store need, and a path given back that way names the byte again."""
        result = self._dispatch(name, raw_arguments)
        result.text = for_planner(result.text)
        return result

    def _dispatch(self, name: str, raw_arguments: str) -> ToolResult:
        provider = None if name in self.allowed else self._provider(name)
        if name not in self.allowed and provider is None:
            known = ", ".join(f["function"]["name"] for f in self.schemas())
            return ToolResult(f"error: unknown tool {name!r}; available tools: {known}", ok=False)
        try:
            args = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return ToolResult(
                f"error: the arguments of {name} are not valid JSON ({exc.msg} at char "
                f"{exc.pos}); resend the call with a JSON object",
                ok=False,
            )
        if not isinstance(args, dict):
            return ToolResult(f"error: the arguments of {name} must be a JSON object", ok=False)
        handler: Callable[[dict[str, Any]], ToolResult] = (
            getattr(self, f"_t_{name}") if provider is None else partial(provider.call, name)
        )
        try:
            return handler(args)
        except CursorishError as exc:
            return ToolResult(f"error: {exc.message}", ok=False)
        except (KeyError, TypeError) as exc:
            return ToolResult(f"error: bad arguments for {name}: {exc}", ok=False)
        except OSError as exc:
            return ToolResult(f"error: {exc.strerror or exc}", ok=False)
        except Exception as exc:  # a tool bug must reach the planner as a result, not crash
            return ToolResult(f"error: {name} failed: {type(exc).__name__}: {exc}", ok=False)

    # -- helpers -----------------------------------------------------------------------------

    def _path(self, args: dict[str, Any], key: str = "path") -> Path:
        value = args.get(key)
        if not isinstance(value, str):
            raise CursorishError(f"'{key}' must be a string path")
        return resolve_in_worktree(self.ctx.root, value)

    def _write_path(self, args: dict[str, Any]) -> Path:
        """`_path` for a tool that writes: also refused inside a submodule or a nested repository,
        where git would never commit the file (it would be written, then silently lost)."""
        path = self._path(args)
        name = relative_name(self.ctx.root, path)
        parents = [p.as_posix() for p in reversed(Path(name).parents) if p.as_posix() != "."]
        for parent in parents:
            if (self.ctx.root / parent / ".git").exists():
                raise CursorishError(
                    f"{name} is inside {parent}/, a nested git repository: its files are not "
                    "part of this repository's commits, so the file tools do not write there"
                )
        if parents:
            from cursorish.gitops.worktrees import gitlinks

            inside = gitlinks(self.ctx.root, parents)
            if inside:
                raise CursorishError(
                    f"{name} is inside the submodule {inside[0]}/: its files belong to another "
                    "repository and would not be committed on this branch, so the file tools "
                    "do not write there"
                )
        return path

    def _files(self) -> list[str]:
        if self.ctx.list_files_fn is not None:
            return self.ctx.list_files_fn(self.ctx.root)
        from cursorish.gitops.worktrees import tracked_files

        return tracked_files(self.ctx.root)

    # -- tools -------------------------------------------------------------------------------

    def _secrets(self) -> frozenset[str]:
        """The provisioned local files (the user's secrets) the planner may not see."""
        from cursorish.core.local_files import secrets_of

        return secrets_of(self.ctx.root, self.ctx.expose_local_files)

    def _t_read_file(self, args: dict[str, Any]) -> ToolResult:
        from cursorish.core.local_files import kept_message

        path = self._path(args)
        name = relative_name(self.ctx.root, path)
        if not path.is_file():
            return ToolResult(f"error: {name} does not exist or is not a file", ok=False)
        if name in self._secrets():
            return ToolResult(f"error: {kept_message(name)}", ok=False)
        data = path.read_bytes()
        if is_binary(data):
            return ToolResult(f"error: {name} is a binary file ({len(data)} bytes)", ok=False)
        text = data.decode("utf-8", "replace")
        lines = _lines(text)
        if not lines:
            return ToolResult(f"{name} (empty file)")
        # Bytes that are not UTF-8 show as U+FFFD; edit_file keeps them byte for byte.
        odd = "; not UTF-8: undecodable bytes shown as \ufffd" if "\ufffd" in text else ""
        try:
            start = int(args.get("start_line") or 1)
            end = int(args.get("end_line") or len(lines))
        except (TypeError, ValueError):
            return ToolResult("error: start_line and end_line must be integers", ok=False)
        if start > len(lines):
            return ToolResult(
                f"error: {name} has {len(lines)} lines; start_line {start} is past the end",
                ok=False,
            )
        start, end = max(1, start), min(len(lines), end)
        if end < start:
            return ToolResult(f"error: end_line {end} is before start_line {start}", ok=False)
        cut = end - start + 1 > MAX_READ_LINES
        if cut:
            end = start + MAX_READ_LINES - 1
        body = "\n".join(lines[start - 1 : end])
        header = f"{name} (lines {start}-{end} of {len(lines)}{odd})"
        if cut:
            header += f"; more follows: read_file with start_line={end + 1}"
        return ToolResult(f"{header}\n{body}")

    def _t_list_files(self, args: dict[str, Any]) -> ToolResult:
        files = self._files()
        directory = args.get("directory")
        if directory:
            base = relative_name(
                self.ctx.root, resolve_in_worktree(self.ctx.root, directory, allow_root=True)
            )
            if base != ".":
                files = [f for f in files if f.startswith(base.rstrip("/") + "/")]
        glob = args.get("glob")
        if glob:
            files = glob_filter(files, glob)
        secrets = self._secrets()
        files = [
            f"{f}  (local secret: content kept from the planner)" if f in secrets else f
            for f in files
        ]
        shown = files[:MAX_LIST]
        more = f"\n... and {len(files) - MAX_LIST} more" if len(files) > MAX_LIST else ""
        return ToolResult(("\n".join(shown) or "(no files)") + more)

    def _t_grep(self, args: dict[str, Any]) -> ToolResult:
        import re

        from cursorish.context.search import PatternError, search_worktree

        pattern = args.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            return ToolResult("error: 'pattern' must be a non-empty string", ok=False)
        glob = args.get("glob")
        try:
            matches, cut = search_worktree(
                self.ctx.root,
                pattern,
                regex=not args.get("fixed_string", False),
                ignore_case=bool(args.get("ignore_case", False)),
                glob=glob if isinstance(glob, str) and glob else None,
                list_files=self.ctx.list_files_fn,
                cancel=self.ctx.cancel,
            )
        except re.error as exc:
            return ToolResult(f"error: invalid regular expression: {exc}", ok=False)
        except PatternError as exc:
            return ToolResult(f"error: {exc}", ok=False)
        secrets = self._secrets()
        hidden = {m.path for m in matches if m.path in secrets}
        lines = [f"{m.path}:{m.line}: {m.text}" for m in matches if m.path not in hidden]
        if hidden:
            lines.append(
                f"(matches in {', '.join(sorted(hidden))} not shown: local secret files, "
                "their content is kept from the planner)"
            )
        if cut:
            lines.append("... more matches cut off; narrow the pattern or glob")
        return ToolResult("\n".join(lines) or "no matches")

    def _t_search_code(self, args: dict[str, Any]) -> ToolResult:
        from cursorish.context.tools import search_code

        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolResult("error: 'query' must be a non-empty string", ok=False)
        k = args.get("k", 10)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
            return ToolResult("error: 'k' must be an integer from 1 to 50", ok=False)
        return ToolResult(search_code(self.ctx.root, query, k, self._secrets()))

    def _t_find_symbol(self, args: dict[str, Any]) -> ToolResult:
        from cursorish.context.tools import find_symbol

        name = args.get("name")
        if not isinstance(name, str) or not name.strip():
            return ToolResult("error: 'name' must be a non-empty string", ok=False)
        return ToolResult(find_symbol(self.ctx.root, name.strip(), self._secrets()))

    def _t_edit_file(self, args: dict[str, Any]) -> ToolResult:
        from cursorish.apply.result import Merged
        from cursorish.apply.router import apply_sketch

        path = self._write_path(args)
        name = relative_name(self.ctx.root, path)
        sketch = args.get("sketch")
        if not isinstance(sketch, str):
            return ToolResult("error: 'sketch' must be a string", ok=False)
        if not path.is_file():
            return ToolResult(f"error: {name} does not exist; use create_file", ok=False)
        if name in self._secrets():  # its diff (and the apply model) would show the content
            from cursorish.core.local_files import kept_message

            return ToolResult(f"error: {kept_message(name)}", ok=False)
        data = path.read_bytes()
        if is_binary(data):
            return ToolResult(f"error: {name} is binary; it cannot be edited", ok=False)
        if len(data) > MAX_EDIT_BYTES:
            return ToolResult(f"error: {name} is larger than {MAX_EDIT_BYTES} bytes", ok=False)
        original = data.decode("utf-8", "surrogateescape")
        self.ctx.emit(Event("applying", self.ctx.agent_id, {"path": name}))
        started = time.perf_counter()
        progress = _ApplyProgress(self.ctx, name)
        try:
            instruction = args.get("instruction")
            if not isinstance(instruction, str) or not instruction.strip():
                instruction = None  # each prompt format has its default (or no tag)
            outcome = apply_sketch(
                original,
                sketch,
                path=name,
                engine=self.ctx.apply_engine,
                on_token=progress,
                instruction=instruction,
            )
        except CursorishError as exc:
            progress.flush()
            outcome_text, ok = f"error: {exc.message}", False
            self._record_apply(name, "error", "error", exc.message, sketch, started)
            self._apply_done(name, "error", "", started)
            return ToolResult(outcome_text, ok=ok)
        progress.flush()
        if not isinstance(outcome, Merged):
            self._record_apply(
                name, outcome.engine, "refused", outcome.reason, sketch, started, outcome
            )
            self.ctx.emit(
                Event("apply_refused", self.ctx.agent_id, {"path": name, "reason": outcome.reason})
            )
            self._apply_done(name, "refused", outcome.engine, started)
            return ToolResult(
                f"edit of {name} refused: {outcome.reason}\nThe file is unchanged. Resend the "
                "edit with more unchanged lines around each change (or SEARCH/REPLACE blocks).",
                ok=False,
            )
        damage = _undecodable_damage(original, outcome.text)
        if damage:
            self._record_apply(name, outcome.engine, "refused", damage, sketch, started, outcome)
            self._apply_done(name, "refused", outcome.engine, started)
            return ToolResult(f"edit of {name} refused: {damage}\nThe file is unchanged.", ok=False)
        self._record_apply(name, outcome.engine, "merged", "", sketch, started, outcome)
        if outcome.text == original:
            self._apply_done(name, "unchanged", outcome.engine, started)
            return ToolResult(f"no change: {name} already matches the sketch")
        write_atomic(path, outcome.text.encode("utf-8", "surrogateescape"))
        diff = _short_diff(original, outcome.text, name)
        added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
        removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
        self.ctx.emit(
            Event(
                "file_changed",
                self.ctx.agent_id,
                {"path": name, "added": added, "removed": removed, "engine": outcome.engine},
            )
        )
        self._apply_done(name, "merged", outcome.engine, started)
        shown = "\n".join(diff[:200]) + ("\n... diff cut off" if len(diff) > 200 else "")
        return ToolResult(
            f"applied to {name} (+{added} -{removed}, {outcome.engine}/{outcome.sketch_format}):\n"
            f"{shown}",
            changed_path=name,
        )

    def _apply_done(self, name: str, outcome: str, engine: str, started: float) -> None:
        """The apply step of an edit ended (front ends close its progress display)."""
        ms = round((time.perf_counter() - started) * 1000, 1)
        self.ctx.emit(
            Event(
                "apply_done",
                self.ctx.agent_id,
                {"path": name, "outcome": outcome, "engine": engine, "ms": ms},
            )
        )

    def _record_apply(
        self,
        name: str,
        engine: str,
        outcome: str,
        reason: str,
        sketch: str,
        started: float,
        result: Any = None,
    ) -> None:
        self.ctx.record_apply(
            {
                "path": for_planner(name),  # the store holds UTF-8 only
                "engine": engine,
                "sketch_format": getattr(result, "sketch_format", ""),
                "outcome": outcome,
                "reason": for_planner(reason),
                "sketch": for_planner(sketch),
                "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
            }
        )

    def _t_create_file(self, args: dict[str, Any]) -> ToolResult:
        path = self._write_path(args)
        name = relative_name(self.ctx.root, path)
        content = args.get("content")
        if not isinstance(content, str):
            return ToolResult("error: 'content' must be a string", ok=False)
        if path.exists():
            return ToolResult(f"error: {name} already exists; use edit_file", ok=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        # mkdir may have followed nothing odd, but re-check containment of the final location.
        resolve_in_worktree(self.ctx.root, name)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            return ToolResult(
                f"error: the content is not text (a lone surrogate at character {exc.start}); "
                "send the file as UTF-8 text",
                ok=False,
            )
        write_atomic(path, data)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        self.ctx.emit(
            Event("file_changed", self.ctx.agent_id, {"path": name, "added": lines, "removed": 0})
        )
        return ToolResult(f"created {name} ({lines} lines)", changed_path=name)

    def _t_delete_file(self, args: dict[str, Any]) -> ToolResult:
        path = self._write_path(args)
        name = relative_name(self.ctx.root, path)
        if not path.is_file():
            return ToolResult(f"error: {name} does not exist or is not a file", ok=False)
        path.unlink()
        self.ctx.emit(Event("file_changed", self.ctx.agent_id, {"path": name, "deleted": True}))
        return ToolResult(f"deleted {name}", changed_path=name)

    def _t_run_command(self, args: dict[str, Any]) -> ToolResult:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return ToolResult("error: 'command' must be a non-empty string", ok=False)
        policy = self.ctx.command_policy
        sandbox = self.ctx.sandbox
        if policy == "ask":
            answer = self.ctx.ask(command) if self.ctx.ask is not None else False
            if not answer:
                return ToolResult("the user did not allow this command", ok=False)
            if answer == WITH_NETWORK and sandbox.enabled:
                sandbox = dataclasses.replace(sandbox, network=True)
        try:
            argv = check_policy(command, policy, self.ctx.command_allowlist)
        except CommandRefused as exc:
            return ToolResult(f"error: {exc}", ok=False)
        timeout = float(args.get("timeout_s") or self.ctx.command_timeout_s)
        timeout = min(max(timeout, 1.0), self.ctx.command_timeout_s)
        self.ctx.emit(Event("running_command", self.ctx.agent_id, {"command": command}))
        result = run_in_worktree(
            argv,
            self.ctx.root,
            timeout_s=timeout,
            cancel=self.ctx.cancel,
            sandbox=sandbox,
            repo_root=self.ctx.repo_root,
        )
        self.ctx.emit(
            Event(
                "command_done",
                self.ctx.agent_id,
                {"command": command, "exit_code": result.exit_code, "timed_out": result.timed_out},
            )
        )
        return ToolResult(
            result.render(), ok=result.exit_code == 0, command=command, exit_code=result.exit_code
        )

    def _t_finish(self, args: dict[str, Any]) -> ToolResult:
        summary = str(args.get("summary") or "").strip()
        status = str(args.get("status") or "done")
        if status not in ("done", "gave_up"):
            return ToolResult("error: status must be 'done' or 'gave_up'", ok=False)
        return ToolResult("finished", finished=True, finish_status=status, summary=summary)


class _ApplyProgress:
    """`on_token` for the model route: the new file's text as it is decoded, as
    `apply_progress` events of at most one per APPLY_PROGRESS_S (a token per event would
    flood every front end)."""

    def __init__(self, ctx: ToolContext, path: str) -> None:
        self.ctx = ctx
        self.path = path
        self.pending: list[str] = []
        self.chars = 0
        self.last = time.monotonic()

    def __call__(self, text: str) -> None:
        if self.ctx.cancel.is_set():
            # Cancelled (or out of time) while a local model decodes: stop it there rather
            # than let the agent wait for the whole file.
            raise CursorishError("the edit was stopped: the agent was cancelled; file unchanged")
        self.pending.append(text)
        self.chars += len(text)
        if time.monotonic() - self.last >= APPLY_PROGRESS_S:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        delta = "".join(self.pending)
        self.pending.clear()
        self.last = time.monotonic()
        self.ctx.emit(
            Event(
                "apply_progress",
                self.ctx.agent_id,
                {"path": self.path, "text": delta, "chars": self.chars},
            )
        )


def _lines(text: str) -> list[str]:
    """The lines of a file as git counts them: split at LF only (a CRLF's CR dropped), where
    str.splitlines() would also split at a lone CR, a form feed, U+2028... and number the lines
    differently from grep, the diff and the editor."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _undecodable_damage(original: str, result: str) -> str:
    """Why the merge `result` would change bytes of `original` that are not UTF-8, or "".

    Such a byte is a lone surrogate in `original` (surrogateescape), and the planner only ever
    saw it as U+FFFD: a sketch that copies that line back would write U+FFFD in its place.
    """

    def undecodable(text: str) -> Counter[str]:
        return Counter(c for c in text if "\udc80" <= c <= "\udcff")

    before = undecodable(original)
    if not before:
        return ""
    if undecodable(result) == before and result.count("\ufffd") <= original.count("\ufffd"):
        return ""
    number, line = next((i, ln) for i, ln in enumerate(original.split("\n"), 1) if undecodable(ln))
    byte = next(ord(c) - 0xDC00 for c in line if "\udc80" <= c <= "\udcff")
    return (
        f"the file is not valid UTF-8 (byte 0x{byte:02x} on line {number}, shown to you as "
        "\ufffd), and this edit would change or drop such bytes. Leave the lines that hold them "
        "out of the sketch (elided lines are kept byte for byte), or rewrite the whole file with "
        "create_file after delete_file if they must change"
    )


def _short_diff(before: str, after: str, name: str) -> list[str]:
    return list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=2, lineterm=""
        )
    )
