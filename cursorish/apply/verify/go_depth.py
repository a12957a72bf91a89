"""Go lines the merge writes at a depth their braces deny: gofmt indents a block's lines one tab
deeper than the line that opens it, and a line after a bare `}` no deeper than that `}`. A
sketch pasted at another depth (flush left, or one tab off) and kept at its own depth breaks
that where its lines meet the file's, though the braces still balance."""

from __future__ import annotations

import re

from cursorish.apply.verify.formatter_depth import DepthRule, depth_break

_BARE_CLOSER = re.compile(r"^\}[)\]},;]*$")
_SAME_DEPTH = ("}", ")", "case ", "default:")
# A line ending so goes on in the next one (a condition broken over lines, gofmt indents it).
_GOES_ON = ("&&", "||", ",", "(", "+", "-", "*", "/", "|", "&", "=", "^", "%", "<", ">", "!")


def _tabs(line: str) -> int | None:
    """The line's depth in tabs, or None where it is indented with spaces (not gofmt's)."""
    body = line.lstrip("\t")
    if body[:1] == " ":
        return None
    return len(line) - len(body)


def _opens(head: str, above: str) -> bool:
    """A line ending in `{` opens a block, unless it ends a condition broken over lines (the
    line above goes on into it)."""
    return head.endswith("{") and not above.rstrip().endswith(_GOES_ON)


GOFMT = DepthRule(_tabs, 1, _BARE_CLOSER, _SAME_DEPTH, _opens, "braces")


def _go_depth(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """The first merged line the merge wrote (or the first kept line after one) that breaks
    gofmt's depth beside its neighbour, where the original breaks it nowhere."""
    return depth_break(GOFMT, before, after, old_of)
