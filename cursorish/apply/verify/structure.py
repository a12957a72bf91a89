"""Dead code: an original line kept after a new `return` at its own depth."""

from __future__ import annotations

import re

from cursorish.apply.lines import indent_width as _width
from cursorish.apply.verify.state import _CheckState

# A statement after which nothing more in its block runs, and lines that open another
# branch at the same depth (a `case` of the same `switch`) or close the block.
_TERMINAL = re.compile(r"^\s*(return|raise|throw|continue|break)\b")
_BRANCH = re.compile(r"^\s*([}\])]|(case|default|else|elif|except|finally|catch)\b|#|//|/\*|\*|@)")
_OPENERS = ("(", "[", "{", ",", "\\", "+", "-", "*", "/", "&&", "||", " and", " or", "=", ":")


class _Structure(_CheckState):
    """Whether the new code leaves kept lines that would never run."""

    def _unreachable(self, chunk_of: dict[int, int]) -> str | None:
        """A `return` (`raise`, `throw`, ...) the sketch writes anew, followed at its own depth
        by an original line the merge keeps: that line would never run. The sketch wrote the
        block's new end and left out the old lines after it, meaning them gone (or the chunk
        sits in the wrong place); which, the merge cannot tell."""
        for r in sorted(chunk_of):
            if self.old_of[r] >= 0 or not _TERMINAL.match(self.after[r]):
                continue
            if self.after[r].rstrip().endswith(_OPENERS):
                continue  # the statement goes on over the next lines
            nxt = next((x for x in range(r + 1, len(self.after)) if self.after[x].strip()), None)
            if nxt is None or self.old_of[nxt] < 0:
                continue
            line = self.after[nxt]
            if _width(line) != _width(self.after[r]) or _BRANCH.match(line):
                continue
            return (
                f"merged line {r + 1} ({self.after[r].strip()[:40]!r}) ends its block, yet "
                f"original line {self.old_of[nxt] + 1} ({line.strip()[:40]!r}) stays after it "
                "at the same depth and would never run: unclear whether the sketch deletes the "
                "old lines after its new code or places it wrong"
            )
        return None
