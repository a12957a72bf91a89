"""read_file: a text file's lines, numbered as git and grep count them."""

from __future__ import annotations

from typing import Any

from cursorish.apply.textio import is_binary
from cursorish.core.containment import relative_name
from cursorish.core.tools.base import PATH_ARG, ToolResult, arguments, reading_tool
from cursorish.core.tools.tool_context import ToolContext

MAX_READ_LINES = 2000


def read_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from cursorish.core.local_files import kept_message

    path = ctx.path(args)
    name = relative_name(ctx.root, path)
    if not path.is_file():
        return ToolResult(f"error: {name} does not exist or is not a file", ok=False)
    if name in ctx.secrets():
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


def _lines(text: str) -> list[str]:
    """The lines of a file as git counts them: split at LF only (a CRLF's CR dropped), where
    str.splitlines() would also split at a lone CR, a form feed, U+2028... and number the lines
    differently from grep, the diff and the editor."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


TOOL = reading_tool(
    name="read_file",
    description="Read a text file. For big files pass a 1-based inclusive line range.",
    parameters=arguments(
        {
            "path": PATH_ARG,
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    handler=read_file,
    order=10,
)
