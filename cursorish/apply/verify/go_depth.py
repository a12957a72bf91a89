"""Go lines the merge writes at a depth their braces deny: gofmt indents a block's lines one tab
deeper than the line that opens it, and a line after a bare `}` no deeper than that `}`. A
sketch pasted at another depth (flush left, or one tab off) and kept at its own depth breaks
that where its lines meet the file's, though the braces still balance."""

from __future__ import annotations

import re

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


def _breaks(upper: str, lower: str, above: str = "") -> bool:
    """Whether `lower`, the next non-blank line after `upper`, sits at a depth gofmt never
    gives it there: past a bare closer deeper than it, or not one tab into a block `upper`
    opens (a closer, `case` or `default:` at the opener's own depth aside), where `upper` does
    not go on from the line `above` it (the end of a condition broken over lines)."""
    up, down = _tabs(upper), _tabs(lower)
    if up is None or down is None:
        return False
    head = upper.strip()
    if head.startswith("//"):
        return False
    if _BARE_CLOSER.match(head):
        return down > up
    if head.endswith("{") and not above.rstrip().endswith(_GOES_ON):
        if lower.strip().startswith(_SAME_DEPTH):
            return down != up
        return down != up + 1
    return False


def _pairs(lines: list[str]) -> list[tuple[int, int, int]]:
    """Each non-blank line with the next non-blank line after it (and the one before it, or
    -1 at the first)."""
    shown = [r for r, line in enumerate(lines) if line.strip()]
    return list(zip([-1, *shown], shown, shown[1:], strict=False))


def _next(lines: list[str], r: int, step: int) -> int:
    """The nearest non-blank line from r (excluded) in direction `step`, or -1."""
    r += step
    while 0 <= r < len(lines) and not lines[r].strip():
        r += step
    return r if 0 <= r < len(lines) else -1


def _go_depth(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """The first merged line the merge wrote (or the first kept line after one) that breaks
    gofmt's depth beside its neighbour, where the original breaks it nowhere."""
    if len(old_of) != len(after):
        return None
    for r in (r for r, j in enumerate(old_of) if j < 0 and after[r].strip()):
        p = _next(after, r, -1)
        for upper, lower in ((p, r), (r, _next(after, r, 1))):
            if upper < 0 or lower < 0:
                continue
            above = _next(after, upper, -1)
            if not _breaks(after[upper], after[lower], after[above] if above >= 0 else ""):
                continue
            if any(
                _breaks(before[x], before[y], before[w] if w >= 0 else "")
                for w, x, y in _pairs(before)
            ):
                return None  # the original breaks it too: not a file gofmt keeps
            return (
                f"merged line {lower + 1} sits at a depth its braces deny (after merged line "
                f"{upper + 1}): the sketch's lines were kept at another depth than the file's"
            )
    return None
