"""Indentation checks: a chunk shifted as a whole, new lines indented the way the file is."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.lines import indent_width as _width
from cursorish.apply.verify.shape import _Chunk
from cursorish.apply.verify.state import _CheckState


def _close(shift: int, anchored: set[int]) -> bool:
    return any(abs(shift - a) <= 1 for a in anchored)


class _Indentation(_CheckState):
    """How the chunks and the new lines are indented."""

    def _indentation(self, chunk: _Chunk, rows: list[int]) -> str | None:
        """The chunk is shifted as a whole, and only as deep as a matched original line says.

        A line matched to the original keeps the original's own indentation; a planner that
        wrote it a column off is not a different shift of the chunk."""
        shifts = [
            (
                self._w(self.after[r], self.unit) - self._w(line, self.sketch_unit),
                self.old_of[r] >= 0,
            )
            for line, r in zip(chunk.lines, rows, strict=True)
        ]
        main = Counter(shift for shift, _anchored in shifts).most_common(1)[0][0]
        for shift, anchored in shifts:
            if shift != main and not (anchored and abs(shift - main) <= 1):
                return (
                    f"sketch lines {chunk.first + 1}-{chunk.first + len(chunk.lines)} were "
                    "re-indented unevenly in the merged file (their relative indentation changed)"
                )
        anchored_shifts = {shift for shift, anchored in shifts if anchored}
        if main and anchored_shifts and not _close(main, anchored_shifts):
            return (
                f"sketch lines {chunk.first + 1}-{chunk.first + len(chunk.lines)} were shifted by "
                f"{main} columns, which no matched original line justifies"
            )
        return None

    def _indentation_style(self, chunk_rows: set[int]) -> str | None:
        """New lines are indented the way the file is (tabs in a file of tabs)."""
        indented = [x for x in self.before if x[:1] in (" ", "\t") and x.strip()]
        if len(indented) < 3:
            return None
        with_tabs = sum(1 for x in indented if x.startswith("\t"))
        consistent = with_tabs in (0, len(indented))
        if not consistent:
            return None
        for r in sorted(chunk_rows):
            line = self.after[r]
            if self.old_of[r] >= 0 or not line.strip() or line[:1] not in (" ", "\t"):
                continue
            if self.tabs and line.startswith(" ") and _width(line) >= 2:
                return f"merged line {r + 1} is indented with spaces in a file indented with tabs"
            if not self.tabs and line.startswith("\t"):
                return f"merged line {r + 1} is indented with tabs in a file indented with spaces"
        return None
