"""Original lines the merge drops: each explained by the sketch, none held by a marker."""

from __future__ import annotations

import difflib
import itertools
from collections import Counter

from cursorish.apply.lines import indent_width as _width
from cursorish.apply.verify.dead_edge import dead_edge, dead_python_head
from cursorish.apply.verify.go_imports import _SPEC
from cursorish.apply.verify.state import _CheckState

# Deleting this many non-blank lines at an edge of the file that the sketch's outermost line
# does not reach, with no marker there, reads as an edit from the edge; more reads as a planner
# that left the marker out.
EDGE_CUT = 3
_BARE_GAP = 3  # original lines gone beside a chunk end of brackets only


class _Deletions(_CheckState):
    """Whether every original line gone is explained by the sketch."""

    def _deletions(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """Every original line gone is explained by the sketch."""
        kept_row: dict[int, int] = {j: r for r, j in enumerate(self.old_of) if j >= 0}
        n = len(self.before)
        j = 0
        while j < n:
            if j in kept_row:
                j += 1
                continue
            end = j
            while end < n and end not in kept_row:
                end += 1
            # Original lines j..end-1 are gone; they sat between result rows r1 and r2.
            gone = [k for k in range(j, end) if self.before[k].strip()]
            if gone:
                r1 = kept_row[j - 1] if j > 0 else -1
                r2 = kept_row[end] if end < n else len(self.after)
                problem = self._explain(gone, r1, r2, chunk_of, spans)
                if problem:
                    return problem
            j = end
        return None

    def _explain(
        self,
        gone: list[int],
        r1: int,
        r2: int,
        chunk_of: dict[int, int],
        spans: list[tuple[int, int]],
    ) -> str | None:
        shape = self.shape
        first = gone[0] + 1
        what = f"original line{'s' if len(gone) > 1 else ''} {first}"
        if len(gone) > 1:
            what += f"-{gone[-1] + 1}"
        inside = [chunk_of[r] for r in range(r1 + 1, r2) if r in chunk_of]
        c1 = chunk_of.get(r1)
        c2 = chunk_of.get(r2)
        at_start = r1 < 0
        if (at_start or r2 >= len(self.after)) and (inside or c1 is not None or c2 is not None):
            # At an edge of the file the sketch reaches: with no marker there it may stop short
            # of the edge on purpose (deleting) or by omission (keeping). Only a whole file, a
            # cut of a few lines, or the rest of a block the sketch's last line opens is clear.
            marker = shape.leading if at_start else shape.trailing
            if not marker:
                if shape.whole or len(gone) <= EDGE_CUT or self._in_block(r1, gone):
                    return None
                if dead_edge(self.before, self.after, gone, self.lang) or (
                    at_start
                    and self.lang == "python"
                    and dead_python_head(self.before, self.after, gone)
                ):
                    return None  # definitions the merge leaves dead: the sketch deletes them
                side = "start" if at_start else "end"
                return (
                    f"{what} ({len(gone)} lines at the {side} of the file) would be deleted "
                    f"because the sketch stops before them without a marker: unclear whether "
                    "it deletes them or leaves them out"
                )
        if inside:
            # Replaced by sketch lines in the same place, if that place is certain: a chunk
            # whose only lines before (after) the gap are brackets could sit at any of the
            # file's many copies of them.
            if (
                c1 is not None
                and self._bare_edge(spans[c1][0], r1, gone)
                and not (c1 == c2 and self._ends_gap(spans[c1][0], r1, r2, spans[c2][1], gone))
            ):
                return self._bare(what, spans[c1][0], r1)
            if (
                c2 is not None
                and self._bare_edge(r2, spans[c2][1], gone)
                and not (
                    c1 == c2 and self._closes_gap(spans[c2][0], r2, spans[c2][1], gone, (c2, spans))
                )
            ):
                return self._bare(what, r2, spans[c2][1])
            if c1 is not None and c1 == c2 and self._bare_entry(spans[c1], r1, r2, gone):
                return self._bare(what, r1, r1)
            return None
        if c1 is not None and c1 == c2:
            return None  # deleted between two sketch lines shown next to each other
        if self.lang == "go" and _imports_renamed(
            [self.before[j] for j in gone], self._chunk_lines(c1, c2)
        ):
            return None
        if self._beside_shown_blank(r1, r2, c1, c2, spans) and not self._restated(gone, c1, c2):
            return None
        return (
            f"{what} ({self.before[gone[0]].strip()[:60]!r}) would be deleted, but the sketch "
            "neither replaces them nor shows the lines around them next to each other"
        )

    def _beside_shown_blank(
        self, r1: int, r2: int, c1: int | None, c2: int | None, spans: list[tuple[int, int]]
    ) -> bool:
        """Whether the gap lies between a blank original line and a chunk that the sketch
        shows that blank line next to (a blank line between its marker and its first line,
        or between its last line and its marker): the sketch shows both sides of the gap."""
        if r2 != r1 + 1 or r1 < 0 or r2 >= len(self.after):
            return False
        chunks = self.shape.chunks
        if c1 is None and c2 is not None and chunks[c2].blank_before and r2 == spans[c2][0]:
            return not self.after[r1].strip() and self._kept_once(r2, chunks[c2].lines[0])
        if c2 is None and c1 is not None and chunks[c1].blank_after and r1 == spans[c1][1]:
            return not self.after[r2].strip() and self._kept_once(r1, chunks[c1].lines[-1])
        return False

    def _chunk_lines(self, c1: int | None, c2: int | None) -> list[str]:
        """The lines of the chunks on either side of a gap."""
        return [line for c in {c1, c2} if c is not None for line in self.shape.chunks[c].lines]

    def _restated(self, gone: list[int], c1: int | None, c2: int | None) -> bool:
        """Whether the chunk beside the gap writes a gone line again, as it is or rewritten
        (`use self::core::fmt;` gone, `use core::fmt;` written): the chunk moves that line, and
        the blank line it shows says nothing of where the lines around it went."""
        at = c1 if c1 is not None else c2
        if at is None:
            return False
        keys = {self.before_keys[j] for j in gone}
        return any(
            " ".join(line.split()) in keys or _reads_as(line, self.before[j])
            for line in self.shape.chunks[at].lines
            for j in gone
        )

    def _kept_once(self, row: int, shown: str) -> bool:
        """Whether result row `row`, the sketch line `shown`, is an original line kept as it
        is (indentation too) that the original holds once, so the chunk's edge is certain."""
        j = self.old_of[row]
        return (
            j >= 0
            and self.before[j].rstrip() == shown.rstrip() == self.after[row].rstrip()
            and self.before_keys.count(self.before_keys[j]) == 1
        )

    def _bare_edge(self, low: int, high: int, gone: list[int]) -> bool:
        """Whether result rows low..high, the chunk's end beside a gap, are two or more lines
        of brackets only (`},` and `{` between entries of a list)."""
        rows = [r for r in range(low, high + 1) if self.after[r].strip()]
        return (
            len(gone) >= _BARE_GAP
            and len(rows) >= 2  # one closing line is often the edit's own context
            and all(not any(ch.isalnum() for ch in self.after[r]) for r in rows)
        )

    def _closes_gap(
        self,
        head: int,
        first: int,
        last: int,
        gone: list[int],
        chunk: tuple[int, list[tuple[int, int]]],
    ) -> bool:
        """Whether the bracket lines ending the chunk that starts at result row `head`
        (rows `first`..`last`) are placed by the block structure rather than by their copies:
        the last closes a block whose opening line the chunk shows, or the first closes the
        block the gone lines sit in (all of them deeper) or the one the first gone line opens
        (the chunk rewrote its opening and body and kept its closer), opened by a line with code on
        it (not a bare `{` of a list entry, which could as well be new), after a chunk head
        holding a line the original has once (once where the sketch's order lets the chunk sit:
        `chunk` is its index and every chunk's span, for `_reach`, worked out only there).
        Either way the nearest copy is the one meant."""
        rows = [r for r in range(first, last + 1) if self.after[r].strip()]
        if not rows or any(self.old_of[r] < 0 for r in rows):
            return False
        shown = {self.old_of[r] for r in range(head, first) if self.old_of[r] >= 0}
        for row in (rows[-1], rows[0]):
            j = self.old_of[row]
            depth = _width(self.before[j])
            if not self.before[j].lstrip().startswith(("}", ")", "]")):
                continue
            opener = j - 1
            while opener >= 0 and (
                not self.before[opener].strip() or _width(self.before[opener]) > depth
            ):
                opener -= 1
            if opener < 0:
                continue
            if row == rows[-1] and opener in shown:
                return True
            if (
                row == rows[0]
                and opener <= gone[0]
                and any(ch.isalnum() for ch in self.before[opener])
                and self._holds_once(shown, self._reach(*chunk))
            ):
                return True
        return False

    def _reach(self, c: int, spans: list[tuple[int, int]]) -> tuple[int, int]:
        """The original lines chunk c may sit among, by the sketch's order: past the kept lines
        of the chunk before it and short of those of the chunk after it, where that chunk
        holds a line the original has once (its place is certain); the whole file elsewhere."""
        low, high = -1, len(self.before)
        if c > 0:
            kept = self._kept_of(spans[c - 1])
            if kept and self._holds_once(kept):
                low = max(kept)
        if c + 1 < len(spans):
            kept = self._kept_of(spans[c + 1])
            if kept and self._holds_once(kept):
                high = min(kept)
        return low, high

    def _kept_of(self, span: tuple[int, int]) -> set[int]:
        return {self.old_of[r] for r in range(span[0], span[1] + 1) if self.old_of[r] >= 0}

    def _ends_gap(self, first: int, r1: int, r2: int, last: int, gone: list[int]) -> bool:
        """Whether the bracket lines a chunk shows before the gap (rows `first`..`r1`) are the
        nearest copy of them, the mirror of `_closes_gap`: the chunk's lines after the gap
        hold a line the original has once (the gap's end is certain), the last bracket line
        closes a block (not a bare `{` that could open a new entry), every gone line is as
        deep as the last bracket line or deeper (the gap stays in the block around it), and
        none of them reads as that line (no nearer copy of it was passed over)."""
        rows = [r for r in range(first, r1 + 1) if self.after[r].strip()]
        if not rows or any(self.old_of[r] < 0 for r in rows):
            return False
        after = {self.old_of[r] for r in range(r2, last + 1) if self.old_of[r] >= 0}
        if not after or not self._holds_once(after):
            return False
        closer = self.before[self.old_of[rows[-1]]]
        if not closer.strip().startswith(("}", ")", "]")) or closer.rstrip().endswith(
            ("{", "(", "[")
        ):
            return False  # a bare `{` (`}, {`) could as well open a new entry
        depth = _width(closer)
        return all(_width(self.before[j]) >= depth for j in gone) and not any(
            self.before[j].rstrip() == closer.rstrip() for j in gone
        )

    def _bare_entry(self, span: tuple[int, int], r1: int, r2: int, gone: list[int]) -> bool:
        """Whether the gap's lines were replaced between bare brackets on both sides: the
        chunk's kept lines just before it (back to one with code) and all its kept lines after
        it are brackets only (`},` `{` ... `},`), so the new lines could as well be a new entry
        in brackets of its own beside the old one as the old entry rewritten."""
        if len(gone) < _BARE_GAP:
            return False
        first, last = span
        before_rows = []
        for r in range(r1, first - 1, -1):
            if not self.after[r].strip():
                continue
            if self.old_of[r] < 0 or any(ch.isalnum() for ch in self.after[r]):
                break
            before_rows.append(r)
        if not before_rows or not self.after[before_rows[0]].rstrip().endswith(("{", "[", "(")):
            return False
        after_rows = [r for r in range(r2, last + 1) if self.after[r].strip()]
        return bool(after_rows) and all(
            self.old_of[r] >= 0 and not any(ch.isalnum() for ch in self.after[r])
            for r in after_rows
        )

    def _holds_once(self, lines: set[int], reach: tuple[int, int] | None = None) -> bool:
        """Whether one of these original lines (non-blank) occurs once in the original (once
        among original lines low+1..high-1, where `reach` is given)."""
        keys = {self.before_keys[j] for j in lines if self.before_keys[j]}
        low, high = reach if reach is not None else (-1, len(self.before_keys))
        counts = Counter(k for k in self.before_keys[low + 1 : high] if k in keys)
        return any(count == 1 for count in counts.values())

    def _bare(self, what: str, low: int, high: int) -> str:
        shown = " ".join(self.after[r].strip() for r in range(low, high + 1) if self.after[r])
        return (
            f"{what} would be replaced by a chunk placed only by its bracket lines "
            f"({shown[:40]!r}), which the file repeats: unclear which copy the sketch means"
        )

    def _in_block(self, r1: int, gone: list[int]) -> bool:
        """Whether the lines gone at the file's end are the rest of the block that the kept
        line before them opens (deeper than it, or its closing line)."""
        if r1 < 0 or self.old_of[r1] < 0:
            return False
        depth = _width(self.before[self.old_of[r1]])
        closers = ("}", ")", "]", "end")
        return all(
            _width(self.before[j]) > depth
            or (_width(self.before[j]) == depth and self.before[j].strip().startswith(closers))
            for j in gone
        )

    def _empty_markers(self, spans: list[tuple[int, int]]) -> str | None:
        """A marker stands for original lines that stay: where the merge keeps none for it
        (the next chunk, or the file's end, follows at once) while original lines there are
        gone, the lines the marker stood for were deleted."""
        chunks = self.shape.chunks
        if self.shape.whole:
            return None  # a snippet's markers are implied, not written: nothing to hold them to
        for i, (first, last) in enumerate(spans):
            if i == len(spans) - 1 and not self.shape.trailing:
                continue
            end = spans[i + 1][0] if i + 1 < len(spans) else len(self.after)
            if any(self.old_of[r] >= 0 and self.after[r].strip() for r in range(last + 1, end)):
                continue
            lo = next((self.old_of[r] for r in range(last, -1, -1) if self.old_of[r] >= 0), -1)
            hi = next(
                (self.old_of[r] for r in range(end, len(self.after)) if self.old_of[r] >= 0),
                len(self.before),
            )
            gone = [j for j in range(lo + 1, hi) if self.before[j].strip()]
            # New lines ending the chunk may be what replaced as many of those lines.
            written = 0
            for r in range(last, first - 1, -1):
                if self.old_of[r] >= 0:
                    break
                written += 1 if self.after[r].strip() else 0
            if len(gone) <= written:
                continue
            if gone and (i + 1 == len(spans) or not self._inside_chunk(gone, spans[i + 1])):
                return (
                    f"the marker after sketch line {chunks[i].first + len(chunks[i].lines)} "
                    f"keeps no original line, yet original line(s) {gone[0] + 1}-{gone[-1] + 1} "
                    "are gone there: the lines it stands for were deleted"
                )
        return None

    def _inside_chunk(self, gone: list[int], span: tuple[int, int]) -> bool:
        """Whether the next chunk itself replaced those lines (they sat before its first
        original line, with new lines of it written there)."""
        first, last = span
        return any(self.old_of[r] < 0 for r in range(first, last + 1))


def _imports_renamed(gone: list[str], chunk: list[str]) -> bool:
    """Whether every gone line is a Go import spec whose package name (its alias, or the last
    element of its path) a new import in the chunk beside the gap takes for another path
    (`"github.com/BurntSushi/toml"` gone, `toml "github.com/pelletier/go-toml"` written):
    Go refuses a file that imports two packages under one name, so the new import replaces
    the old one."""
    new = [spec for line in chunk if (spec := _import_spec(line)) and line not in gone]
    for line in gone:
        old = _import_spec(line)
        if old is None or not any(n[0] == old[0] and n[1] != old[1] for n in new):
            return False
    return bool(gone)


def _import_spec(line: str) -> tuple[str, str] | None:
    """(package name, path) of a Go import spec line, or None."""
    match = _SPEC.match(line.strip())
    if not match or match.group(1) in ("_", "."):
        return None
    path = match.group(2)
    return match.group(1) or path.rsplit("/", 1)[-1], path


def _reads_as(new: str, old: str) -> bool:
    """Whether chunk line `new` reads as an edit of original line `old`: the same indentation
    and a long shared start, or mostly the same text (the verifier's own measure, apart from
    the merge's)."""
    if _width(new) != _width(old):
        return False
    x, y = new.strip(), old.strip()
    if not x or not y:
        return False
    same = itertools.takewhile(lambda pair: pair[0] == pair[1], zip(x, y, strict=False))
    shared = sum(1 for _ in same)
    if shared >= 8 and shared >= 0.6 * min(len(x), len(y)):
        return True
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() >= 0.6
