"""One verification: every reading of where the sketch's chunks sit, judged by each check."""

from __future__ import annotations

from cursorish.apply.verify.alignment import _diff, changed_rows
from cursorish.apply.verify.deletions import _Deletions
from cursorish.apply.verify.depth import _repasted
from cursorish.apply.verify.head_written_again import _head_written_again
from cursorish.apply.verify.indentation import _Indentation
from cursorish.apply.verify.moved_block import _moved_block
from cursorish.apply.verify.placement import _Placement
from cursorish.apply.verify.repeats import _Repeats
from cursorish.apply.verify.structure import _Structure
from cursorish.apply.verify.tail_written_again import _tail_written_again


class _Check(_Placement, _Indentation, _Deletions, _Repeats, _Structure):
    """One verification: the original's lines, the result's, and the sketch's chunks."""

    def run(self) -> str | None:
        shape = self.shape
        if shape.whole and self.sketch_keys == self.row_keys:
            self.old_of = _diff(self.before, self.after)
            return self._indentation_style(set(range(len(self.after))))
        first_failure: str | None = None
        for places in self._placements():
            problem = self._judge(places)
            if problem is None:
                return None
            if self._unexplained and self._judge(places, tail_first=True) is None:
                return None  # the chunk's last lines are the later copies of what they repeat
            first_failure = first_failure or problem
        if first_failure is None:
            return self._missing()
        return first_failure

    def changed_rows(self) -> list[int] | None:
        """Result rows the merge wrote, and both rows around each deletion (None: unknown)."""
        if len(self.old_of) != len(self.after):
            return None
        return changed_rows(self.old_of, len(self.before))

    # -- judging one reading -----------------------------------------------------------------

    def _judge(self, places: list[int], tail_first: bool = False) -> str | None:
        """The first check this reading fails, or None. `tail_first`: each chunk's last lines
        are lined up with the original lines right before the next kept one where they are
        alike (the later of two copies of a line the chunk ends on: the sketch deletes the
        lines between the copies, which sit between two of its lines), not with the first
        original lines after the kept one before it."""
        shape = self.shape
        self._unexplained = False
        chunk_of: dict[int, int] = {}  # result row -> chunk index
        spans: list[tuple[int, int]] = []  # each chunk's first and last result row
        for i, (chunk, at) in enumerate(zip(shape.chunks, places, strict=True)):
            rows = self.rows[at : at + len(chunk.lines)]
            for r in range(rows[0], rows[-1] + 1):
                chunk_of[r] = i
            spans.append((rows[0], rows[-1]))
        self.old_of = self._structured(spans, tail_first)
        for chunk, at in zip(shape.chunks, places, strict=True):
            problem = self._indentation(chunk, self.rows[at : at + len(chunk.lines)])
            if problem:
                return problem
        for r, line in enumerate(self.after):
            if self.old_of[r] < 0 and line.strip() and r not in chunk_of:
                return (
                    f"merged line {r + 1} ({line.strip()[:60]!r}) comes neither from the sketch "
                    "nor from the original"
                )
        problem = self._indentation_style(set(chunk_of))
        if problem:
            return problem
        problem = self._blank_edges(spans)
        if problem:
            return problem
        problem = self._deletions(chunk_of, spans)
        if problem:
            self._unexplained = True
            return problem
        problem = _repasted(self.before, self.after, self.old_of, spans)
        if problem:
            return problem
        problem = self._empty_markers(spans)
        if problem:
            return problem
        problem = self._duplicates(chunk_of, spans)
        if problem:
            return problem
        problem = self._copied(chunk_of)
        if problem:
            return problem
        problem = self._repeated_block(spans)
        if problem:
            return problem
        problem = _moved_block(
            self.before_keys,
            self.after,
            self.after_keys,
            self.old_of,
            spans,
            self.sketch_keys,
        )
        if problem:
            return problem
        problem = _tail_written_again(
            self.after_keys, self.rows, self.old_of, spans, shape.trailing
        )
        if problem:
            return problem
        problem = _head_written_again(
            self.before,
            self.after,
            self.before_keys,
            self.after_keys,
            self.rows,
            self.old_of,
            spans,
            shape.leading,
        )
        if problem:
            return problem
        problem = self._unreachable(chunk_of)
        if problem:
            return problem
        return self._redeclared(chunk_of, spans)
