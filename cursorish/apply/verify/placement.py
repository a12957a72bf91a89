"""Where each chunk of the sketch sits in the result, and which original line each row is."""

from __future__ import annotations

from bisect import bisect_left

from cursorish.apply.lines import key as _key
from cursorish.apply.verify.alignment import _align
from cursorish.apply.verify.shape import _Chunk
from cursorish.apply.verify.state import _CheckState

_ASSIGNMENTS = 24  # readings of where each chunk sits, tried before giving up


class _Placement(_CheckState):
    """Readings of where the chunks sit, and the result aligned to them."""

    def _occurrences(self, chunk: _Chunk, start: int) -> list[int]:
        """Indexes into the result's non-blank rows where the chunk's lines run unbroken."""
        keys = [_key(x) for x in chunk.lines]
        found: list[int] = []
        size = len(keys)
        for at in range(start, len(self.row_keys) - size + 1):
            if self.row_keys[at] == keys[0] and self.row_keys[at : at + size] == keys:
                found.append(at)
        return found

    def _placements(self) -> list[list[int]]:
        """Readings of where the chunks sit (index of each chunk's first non-blank row), in
        order, none skipping a new result line that only an earlier chunk could explain."""
        # Rows whose text the original does not have at all: only a chunk can explain them.
        known = set(self.before_keys)
        new_rows = [k for k, key in enumerate(self.row_keys) if key not in known]
        out: list[list[int]] = []
        chunks = self.shape.chunks

        def walk(i: int, start: int, taken: list[int]) -> None:
            if len(out) >= _ASSIGNMENTS:
                return
            if i == len(chunks):
                out.append(list(taken))
                return
            # A new row skipped before this chunk's place could be explained by no chunk.
            later = bisect_left(new_rows, start)
            first_new = new_rows[later] if later < len(new_rows) else None
            for at in self._occurrences(chunks[i], start):
                if first_new is not None and at > first_new:
                    break
                taken.append(at)
                walk(i + 1, at + len(chunks[i].lines), taken)
                taken.pop()

        walk(0, 0, [])
        return out

    def _missing(self) -> str:
        """Which sketch lines the result lacks (no reading of the chunks fits)."""
        start = 0
        for chunk in self.shape.chunks:
            places = self._occurrences(chunk, start)
            if not places:
                return (
                    f"the sketch lines from line {chunk.first + 1} on are not in the merged file "
                    "where the sketch puts them (each run between markers must appear unbroken, "
                    "in order)"
                )
            start = places[0] + len(chunk.lines)
        return "a line of the merged file comes neither from the sketch nor from the original"

    def _blank_edges(self, spans: list[tuple[int, int]]) -> str | None:
        """A blank line the sketch shows between a marker and a chunk that edits in context
        (some of its lines are original lines) stands for a blank original line there: the
        original line kept next to the chunk on that side is blank (else the chunk sits off
        by the lines between, kept that should have gone)."""
        for chunk, (first, last) in zip(self.shape.chunks, spans, strict=True):
            known = set(self.before_keys)
            if all(self.old_of[r] < 0 for r in range(first, last + 1)) and not any(
                _key(line) in known for line in chunk.lines
            ):
                continue  # all new code: its blank lines space it out, they are no context
            if chunk.blank_before:
                r = first - 1
                while r >= 0 and self.old_of[r] < 0:
                    r -= 1
                if r >= 0 and self.before[self.old_of[r]].strip():
                    return (
                        f"sketch line {chunk.first + 1} follows a blank line after a marker, but "
                        f"original line {self.old_of[r] + 1} before it in the merge is not blank"
                    )
            if chunk.blank_after:
                r = last + 1
                while r < len(self.after) and self.old_of[r] < 0:
                    r += 1
                if r < len(self.after) and self.before[self.old_of[r]].strip():
                    return (
                        f"the sketch lines from line {chunk.first + 1} end with a blank line "
                        "before a marker, but original line "
                        f"{self.old_of[r] + 1} after them in the merge is not blank"
                    )
            problem = self._blank_run_after(chunk, last)
            if problem:
                return problem
        return None

    def _blank_run_after(self, chunk: _Chunk, last: int) -> str | None:
        """Two blank lines or more the sketch shows between a chunk and the marker after it
        stand for as many blank lines there: where the merge follows the chunk with fewer and
        then an original line with words, the chunk sits before lines it was meant to
        replace (the sketch shows the blank run the file has after the lines it deletes)."""
        if chunk.blanks_after < 2:
            return None
        r = last + 1
        while r < len(self.after) and not self.after[r].strip():
            r += 1
        if r >= len(self.after) or self.old_of[r] < 0 or r - last - 1 >= chunk.blanks_after:
            return None
        return (
            f"the sketch lines from line {chunk.first + 1} end with {chunk.blanks_after} blank "
            f"lines before a marker, but the merge follows them with {r - last - 1} and then "
            f"original line {self.old_of[r] + 1}"
        )

    def _structured(self, spans: list[tuple[int, int]], tail_first: bool = False) -> list[int]:
        """Which original line each result row is, given where the chunks sit: the rows
        between chunks are aligned first (they must be original lines), then each chunk
        against the original lines between its neighbours (its context lines); with
        `tail_first`, a chunk's last rows first take the original lines right before its
        next neighbour where they are alike."""
        a = [x.rstrip() for x in self.before]
        real = [x.rstrip() for x in self.after]
        b = real.copy()
        for first, last in spans:
            for r in range(first, last + 1):
                b[r] = f"\x00{r}"
        old = [-1] * len(b)
        _align(a, b, 0, len(a), 0, len(b), old, 0)
        for first, last in spans:
            lo = next((old[r] for r in range(first - 1, -1, -1) if old[r] >= 0), -1) + 1
            hi = next((old[r] for r in range(last + 1, len(b)) if old[r] >= 0), len(a))
            end = last + 1
            while tail_first and hi > lo and end > first and a[hi - 1] == real[end - 1]:
                old[end - 1] = hi - 1
                hi, end = hi - 1, end - 1
            _align(a, real, lo, max(lo, hi), first, end, old, 0)
        return old
