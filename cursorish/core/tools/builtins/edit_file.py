"""edit_file: merge the planner's sketch into a file through the apply engines (cursorish/apply),
recording every attempt and streaming the model route's progress."""

from __future__ import annotations

import difflib
import time
from collections import Counter
from typing import Any

from cursorish.apply.textio import is_binary, write_atomic
from cursorish.core import events as ev
from cursorish.core.containment import relative_name
from cursorish.core.states import AgentState
from cursorish.core.text import for_planner
from cursorish.core.tools.base import PATH_ARG, Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext
from cursorish.errors import CursorishError

MAX_EDIT_BYTES = 2_000_000
APPLY_PROGRESS_S = 0.05  # at most one apply_progress event per agent this often


def edit_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from cursorish.apply.result import Merged
    from cursorish.apply.router import apply_sketch

    path = ctx.write_path(args)
    name = relative_name(ctx.root, path)
    sketch = ctx.text(args, "sketch")
    if not path.is_file():
        return ToolResult(f"error: {name} does not exist; use create_file", ok=False)
    if name in ctx.secrets():  # its diff (and the apply model) would show the content
        from cursorish.core.local_files import kept_message

        return ToolResult(f"error: {kept_message(name)}", ok=False)
    data = path.read_bytes()
    if is_binary(data):
        return ToolResult(f"error: {name} is binary; it cannot be edited", ok=False)
    if len(data) > MAX_EDIT_BYTES:
        return ToolResult(f"error: {name} is larger than {MAX_EDIT_BYTES} bytes", ok=False)
    original = data.decode("utf-8", "surrogateescape")
    ctx.emit(ev.Applying(ctx.agent_id, name))
    attempt = _Attempt(ctx, name, sketch)
    progress = ApplyProgress(ctx, name)
    try:
        instruction = args.get("instruction")
        if not isinstance(instruction, str) or not instruction.strip():
            instruction = None  # each prompt format has its default (or no tag)
        outcome = apply_sketch(
            original,
            sketch,
            path=name,
            engine=ctx.apply_engine,
            on_token=progress,
            instruction=instruction,
        )
    except CursorishError as exc:
        progress.flush()
        attempt.record("error", "error", exc.message)
        attempt.done("error", "")
        return ToolResult(f"error: {exc.message}", ok=False)
    progress.flush()
    if not isinstance(outcome, Merged):
        attempt.record(outcome.engine, "refused", outcome.reason, outcome)
        ctx.emit(ev.ApplyRefused(ctx.agent_id, name, outcome.reason))
        attempt.done("refused", outcome.engine)
        return ToolResult(
            f"edit of {name} refused: {outcome.reason}\nThe file is unchanged. Resend the "
            "edit with more unchanged lines around each change (or SEARCH/REPLACE blocks).",
            ok=False,
        )
    damage = _undecodable_damage(original, outcome.text)
    if damage:
        attempt.record(outcome.engine, "refused", damage, outcome)
        attempt.done("refused", outcome.engine)
        return ToolResult(f"edit of {name} refused: {damage}\nThe file is unchanged.", ok=False)
    attempt.record(outcome.engine, "merged", "", outcome)
    if outcome.text == original:
        attempt.done("unchanged", outcome.engine)
        return ToolResult(f"no change: {name} already matches the sketch")
    write_atomic(path, outcome.text.encode("utf-8", "surrogateescape"))
    diff = _short_diff(original, outcome.text, name)
    added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    ctx.emit(ev.FileChanged(ctx.agent_id, name, added, removed, outcome.engine))
    attempt.done("merged", outcome.engine)
    shown = "\n".join(diff[:200]) + ("\n... diff cut off" if len(diff) > 200 else "")
    return ToolResult(
        f"applied to {name} (+{added} -{removed}, {outcome.engine}/{outcome.sketch_format}):\n"
        f"{shown}",
        changed_path=name,
    )


class _Attempt:
    """One apply of a sketch: its row for the store (timed when the merge ended) and the event
    that closes its progress and carries that row to the store recorder."""

    def __init__(self, ctx: ToolContext, name: str, sketch: str) -> None:
        self.ctx = ctx
        self.name = name
        self.sketch = sketch
        self.started = time.perf_counter()
        self.row: ev.ApplyAttempt | None = None

    def record(self, engine: str, outcome: str, reason: str, result: Any = None) -> None:
        self.row = ev.ApplyAttempt(
            path=for_planner(self.name),  # the store holds UTF-8 only
            engine=engine,
            sketch_format=getattr(result, "sketch_format", ""),
            outcome=outcome,
            reason=for_planner(reason),
            sketch=for_planner(self.sketch),
            elapsed_ms=round((time.perf_counter() - self.started) * 1000, 2),
        )

    def done(self, outcome: str, engine: str) -> None:
        """The apply step of an edit ended (front ends close its progress display)."""
        ms = round((time.perf_counter() - self.started) * 1000, 1)
        self.ctx.emit(
            ev.ApplyDone(self.ctx.agent_id, self.name, outcome, engine, ms, attempt=self.row)
        )


class ApplyProgress:
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
        self.ctx.emit(ev.ApplyProgress(self.ctx.agent_id, self.path, delta, self.chars))


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


TOOL = Tool(
    name="edit_file",
    description="Edit an existing file by sending a sketch: the changed code with a few unchanged "
    "lines around it, unchanged regions elided with a comment like '# ... existing code "
    "...'. SEARCH/REPLACE blocks, a unified diff or the whole file also work. If the apply "
    "step refuses, it says why: resend with more context.",
    parameters=arguments(
        {
            "path": PATH_ARG,
            "sketch": {"type": "string"},
            "instruction": {
                "type": "string",
                "description": "optional: one sentence on what the edit does (it helps the "
                "apply model place an ambiguous sketch)",
            },
        },
        ["path", "sketch"],
    ),
    handler=edit_file,
    # Not slotted: the local apply model has its own queue (see core/cpu_slots.py).
    busy=AgentState.APPLYING,
    order=60,
)
