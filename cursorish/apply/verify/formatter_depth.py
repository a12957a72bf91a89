"""What the formatter-depth checks share (go_depth for gofmt, rust_depth for rustfmt): a
formatter's rule of the depth a line may take after another (`DepthRule`), and the walk over
each line the merge wrote, with its non-blank neighbours, judged by that rule. A file whose
original breaks the rule anywhere is not one its formatter keeps, so nothing is said of it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class DepthRule:
    """How a formatter indents: a block's lines one `step` deeper than the line that opens it
    (those starting with `same_depth`, such as its closer, at the opener's own depth), and a
    line after a bare closer no deeper than that closer."""

    depth: Callable[[str], int | None]  # a line's depth; None: not the formatter's unit
    step: int
    bare_closer: re.Pattern[str]
    same_depth: tuple[str, ...]
    opens: Callable[[str, str], bool]  # (stripped line, the non-blank line above it)
    brackets: str  # what the message calls the language's brackets

    def breaks(self, upper: str, lower: str, above: str = "") -> bool:
        """Whether `lower`, the next non-blank line after `upper`, sits at a depth the
        formatter never gives it there (`above` is the non-blank line before `upper`)."""
        up, down = self.depth(upper), self.depth(lower)
        if up is None or down is None:
            return False
        head = upper.strip()
        if head.startswith("//"):
            return False
        if self.bare_closer.match(head):
            return down > up
        if self.opens(head, above):
            if lower.strip().startswith(self.same_depth):
                return down != up
            return down != up + self.step
        return False


def _next(lines: list[str], r: int, step: int) -> int:
    """The nearest non-blank line from r (excluded) in direction `step`, or -1."""
    r += step
    while 0 <= r < len(lines) and not lines[r].strip():
        r += step
    return r if 0 <= r < len(lines) else -1


def _breaks_anywhere(lines: list[str], rule: DepthRule) -> bool:
    """Whether any non-blank line of `lines` breaks the rule after the non-blank line before it."""
    shown = [line for line in lines if line.strip()]
    return any(
        rule.breaks(b, c, a) for a, b, c in zip(["", *shown], shown, shown[1:], strict=False)
    )


def depth_break(
    rule: DepthRule, before: list[str], after: list[str], old_of: list[int]
) -> str | None:
    """The first line the merge wrote (or the first kept line beside one) whose depth breaks
    the rule after the line above it, where the original breaks it nowhere."""
    if len(old_of) != len(after):
        return None
    for r in (r for r, j in enumerate(old_of) if j < 0 and after[r].strip()):
        p = _next(after, r, -1)
        for upper, lower in ((p, r), (r, _next(after, r, 1))):
            if upper < 0 or lower < 0:
                continue
            above = _next(after, upper, -1)
            if not rule.breaks(after[upper], after[lower], after[above] if above >= 0 else ""):
                continue
            if _breaks_anywhere(before, rule):
                return None  # the original breaks it too: not a file its formatter keeps
            return (
                f"merged line {lower + 1} sits at a depth its {rule.brackets} deny (after merged "
                f"line {upper + 1}): the sketch's lines were kept at another depth than the file's"
            )
    return None
