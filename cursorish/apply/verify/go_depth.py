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


def _go_depth(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """The first merged line the merge wrote (or the first kept line after one) that breaks
    gofmt's depth beside its neighbour, where the original breaks it nowhere."""
    if len(old_of) != len(after):
        return None
    pairs = [(o, p, q) for o, p, q in _pairs(after) if old_of[p] < 0 or old_of[q] < 0]
    if not pairs or any(
        _breaks(before[p], before[q], before[o] if o >= 0 else "") for o, p, q in _pairs(before)
    ):
        return None
    for o, p, q in pairs:
        if _breaks(after[p], after[q], after[o] if o >= 0 else ""):
            return (
                f"merged line {q + 1} sits at a depth its braces deny (after merged line "
                f"{p + 1}): the sketch's lines were kept at another depth than the file's"
            )
    return None
