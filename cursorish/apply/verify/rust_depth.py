"""Rust lines the merge writes at a depth their brackets deny: rustfmt indents a block's lines
four spaces deeper than the line that opens it (a line ending in `{`, `(` or `[`), its closer
back at the opener's depth, and a line after a bare `}` no deeper than that `}`. A sketch
pasted at another depth and kept at its own depth breaks that where its lines meet the file's,
though the brackets still balance."""

from __future__ import annotations

import re

from cursorish.apply.verify.formatter_depth import DepthRule, depth_break

_BARE_CLOSER = re.compile(r"^[})\]][)\]},;]*$")
_OPENERS = ("{", "(", "[")
_CLOSERS = ("}", ")", "]")


def _spaces(line: str) -> int | None:
    """The line's depth in spaces, or None where a tab indents it (not rustfmt's)."""
    body = line.lstrip(" ")
    if body[:1] == "\t":
        return None
    return len(line) - len(body)


def _opens(head: str, above: str) -> bool:
    """A line ending in `{`, `(` or `[` opens a block (the line above does not matter)."""
    return head.endswith(_OPENERS)


RUSTFMT = DepthRule(_spaces, 4, _BARE_CLOSER, _CLOSERS, _opens, "brackets")


def _rust_depth(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """The first merged line the merge wrote (or the first kept line after one) that breaks
    rustfmt's depth beside its neighbour, where the original breaks it nowhere."""
    return depth_break(RUSTFMT, before, after, old_of)
