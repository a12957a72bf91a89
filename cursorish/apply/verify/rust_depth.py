"""Rust lines the merge writes at a depth their brackets deny: rustfmt indents a block's lines
four spaces deeper than the line that opens it (a line ending in `{`, `(` or `[`), its closer
back at the opener's depth, and a line after a bare `}` no deeper than that `}`. A sketch
pasted at another depth and kept at its own depth breaks that where its lines meet the file's,
though the brackets still balance."""

from __future__ import annotations

import itertools
import re

_BARE_CLOSER = re.compile(r"^[})\]][)\]},;]*$")
_OPENERS = ("{", "(", "[")
_CLOSERS = ("}", ")", "]")


def _spaces(line: str) -> int | None:
    """The line's depth in spaces, or None where a tab indents it (not rustfmt's)."""
    body = line.lstrip(" ")
    if body[:1] == "\t":
        return None
    return len(line) - len(body)


def _breaks(upper: str, lower: str) -> bool:
    """Whether `lower`, the next non-blank line after `upper`, sits at a depth rustfmt never
    gives it there: past a bare closer deeper than it, or not four spaces into a bracket
    `upper` opens (its closer at the opener's own depth)."""
    up, down = _spaces(upper), _spaces(lower)
    if up is None or down is None:
        return False
    head = upper.strip()
    if head.startswith("//"):
        return False
    if _BARE_CLOSER.match(head):
        return down > up
    if head.endswith(_OPENERS):
        if lower.strip().startswith(_CLOSERS):
            return down != up
        return down != up + 4
    return False


def _next(lines: list[str], r: int, step: int) -> int:
    """The nearest non-blank line from r (excluded) in direction `step`, or -1."""
    r += step
    while 0 <= r < len(lines) and not lines[r].strip():
        r += step
    return r if 0 <= r < len(lines) else -1


def _original_breaks(before: list[str]) -> bool:
    """Whether the original itself breaks rustfmt's depth somewhere."""
    shown = [line for line in before if line.strip()]
    return any(_breaks(a, b) for a, b in itertools.pairwise(shown))


def _rust_depth(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """The first merged line the merge wrote (or the first kept line after one) that breaks
    rustfmt's depth beside its neighbour, where the original breaks it nowhere."""
    if len(old_of) != len(after):
        return None
    for r in (r for r, j in enumerate(old_of) if j < 0 and after[r].strip()):
        p = _next(after, r, -1)
        for upper, lower in ((p, r), (r, _next(after, r, 1))):
            if upper < 0 or lower < 0 or not _breaks(after[upper], after[lower]):
                continue
            if _original_breaks(before):
                return None  # the original breaks it too: not a file rustfmt keeps
            return (
                f"merged line {lower + 1} sits at a depth its brackets deny (after merged line "
                f"{upper + 1}): the sketch's lines were kept at another depth than the file's"
            )
    return None
