"""Lines and names the merge leaves twice: a copy beside the chunk that rewrites it, a block
written again, code copied or moved, a name declared again in its scope."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter

from cursorish.apply.blocks import declared_name, parents
from cursorish.apply.lines import indent_width as _width
from cursorish.apply.lines import key as _key
from cursorish.apply.lines import weight
from cursorish.apply.verify.state import _CheckState

_TELLING = 8  # a line this long is unlikely to be written twice on purpose
_COPIED = 3  # telling lines kept beside their new copy elsewhere: a move, not an edit
_LONG = 40  # a line this long the original repeats (a copied comment) is still telling
_BESIDE = 6  # non-blank lines between a chunk and a copy of one of its lines that is 'beside' it


class _Repeats(_CheckState):
    """What the merge leaves twice that the sketch meant to replace."""

    def _duplicates(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """A telling line the sketch shows once, unique in the original, is not left twice with
        the original's copy right beside the chunk that shows it: the chunk was meant to
        replace that copy, not to sit next to it."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        telling = {k for k, count in counts_sketch.items() if count == 1 and len(k) >= _TELLING}
        counts_before = Counter(k for k in self.before_keys if k in telling)
        where: dict[str, list[int]] = {}
        for r, k in enumerate(self.after_keys):
            if k in telling and (counts_before.get(k) == 1 or len(k) >= _LONG):
                where.setdefault(k, []).append(r)
        for k, rows in where.items():
            # A long line the original holds more than once is left once more than it was.
            count = counts_before.get(k, 0)
            if len(rows) < 2 or (count != 1 and len(rows) != count + 1):
                continue
            inside = [r for r in rows if r in chunk_of]
            outside = [r for r in rows if r not in chunk_of]
            if not inside or not outside:
                continue
            if self._decorates_another(k, inside[0], outside):
                continue
            first, last = spans[chunk_of[inside[0]]]
            for r in outside:
                if r < first:
                    between = self._nonblank_between(r, first)
                    edge = self._nonblank_between(first - 1, inside[0])
                else:
                    between = self._nonblank_between(last, r)
                    edge = self._nonblank_between(inside[0], last + 1)
                if between > _BESIDE:
                    continue
                # The copy at the chunk's own edge facing the original's copy.
                if edge <= 1:
                    return (
                        f"the merged file holds {k[:60]!r} twice, the original's copy right "
                        "beside the sketch's: the sketch's copy should have replaced it"
                    )
                if self._opens_head(r, first, inside[0]):
                    return (
                        f"the merged file keeps {k[:60]!r} right above the chunk that starts "
                        "inside its block and writes it again further down: the block moved, "
                        "and the chunk's first lines belong to another block"
                    )
                if self._head_above(r, first, inside[0]):
                    return (
                        f"the merged file keeps {k[:60]!r} right above the chunk, with the "
                        "lines the chunk writes before its copy of it: the chunk starts there"
                    )
        return None

    def _head_above(self, copy: int, first: int, inside: int) -> bool:
        """The chunk's lines from its first to its new copy of a telling line (one of them with
        words, kept by the merge where it placed the chunk) are, key for key, the original
        lines that end with the original's copy kept right above it: the sketch wrote those
        lines as they stand there, so the chunk starts on them (the lines between go), not on
        lines it has to edit further down."""
        if copy >= first:
            return False
        head = [self.after_keys[r] for r in range(first, inside + 1) if self.after_keys[r]]
        # A line with words before the copy that the merge kept where it placed the chunk: a
        # bare `}` says nothing of where, and new lines are no anchor here either.
        if not any(
            weight(self.after_keys[r]) >= 1.0 and self.old_of[r] >= 0 for r in range(first, inside)
        ):
            return False
        above = self.row_keys[: bisect_right(self.rows, copy)][-len(head) :]
        return above == head

    def _opens_head(self, copy: int, first: int, inside: int) -> bool:
        """The original's copy opens a block (a line ending in `{` or `:`, not a call's
        arguments) and the chunk starts in it (kept right above the chunk,
        every line from it to the chunk's first line deeper), and the chunk writes that opener
        again further down at the opener's own depth, in the same enclosing block: the sketch
        moved the block, so the chunk's first lines, read as the end of the moved block, belong
        to another one."""
        if copy >= first or not self.after_keys[copy].endswith(("{", ":")):
            return False
        depth = _width(self.after[copy])
        if _width(self.after[inside]) != depth:
            return False
        # The new copy sits in the block that holds the old one (no shallower line between):
        # the same opener in another class or function is that one's own.
        return all(
            _width(self.after[r]) > depth
            for r in range(copy + 1, first + 1)
            if self.after[r].strip()
        ) and all(
            _width(self.after[r]) >= depth for r in range(first, inside) if self.after[r].strip()
        )

    def _decorates_another(self, k: str, inside: int, outside: list[int]) -> bool:
        """An attribute or decorator line the sketch writes over an original item that the
        original's copy does not decorate: the sketch adds it to one more item (a second
        `#[doc(hidden)]`), it does not write the original's copy again."""
        if not k.startswith(("#[", "@")):
            return False
        item = self._decorated(inside)
        return (
            item >= 0
            and self.old_of[item] >= 0
            and all(
                (j := self._decorated(r)) >= 0 and self.after_keys[j] != self.after_keys[item]
                for r in outside
            )
        )

    def _decorated(self, r: int) -> int:
        """The row of the item that the attribute on row r decorates (past other attributes,
        decorators and comments), or -1."""
        for j in range(r + 1, len(self.after_keys)):
            k = self.after_keys[j]
            if k and not k.startswith(("#[", "@", "//", "#")):
                return j
        return -1

    def _repeated_block(self, spans: list[tuple[int, int]]) -> str | None:
        """Two or more telling lines a chunk writes anew, each the only copy of it in the
        original, kept in the same order right after the chunk under its marker and still in
        the chunk's block (no shallower line between): the chunk was meant to sit over them
        (its first line shown next to them deletes what lies between), not before them."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        counts_before = Counter(self.before_keys)
        for i, (first, last) in enumerate(spans):
            new = [
                r
                for r in range(first, last + 1)
                if self.old_of[r] < 0
                and len(self.after_keys[r]) >= _TELLING
                and counts_sketch[self.after_keys[r]] == 1
                and counts_before[self.after_keys[r]] == 1
            ]
            if len(new) < 2:
                continue
            end = spans[i + 1][0] if i + 1 < len(spans) else len(self.after)
            depth = min(_width(self.after[r]) for r in new)
            wanted = [self.after_keys[r] for r in new]
            found = 0
            for r in range(last + 1, end):
                if not self.after[r].strip():
                    continue
                if _width(self.after[r]) < depth:
                    break  # the block ends: a copy further on is another block's
                if (
                    self.old_of[r] >= 0
                    and found < len(wanted)
                    and self.after_keys[r] == wanted[found]
                ):
                    found += 1
            if found >= 2:
                return (
                    f"the merged file keeps {found} original lines, in the block of the chunk "
                    f"from sketch line {self.shape.chunks[i].first + 1}, that the chunk writes "
                    "again: it was meant to replace them, not to go before them"
                )
        return None

    def _copied(self, chunk_of: dict[int, int]) -> str | None:
        """Telling lines the sketch writes anew while the original's only copy of each stays
        elsewhere: code moved (its old place hidden under a marker) or copied on purpose.
        A few such lines are telling enough to refuse rather than guess."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        telling = {k for k, count in counts_sketch.items() if count == 1 and len(k) >= _TELLING}
        counts_before = Counter(k for k in self.before_keys if k in telling)
        new = {
            self.after_keys[r]
            for r in chunk_of
            if self.old_of[r] < 0 and counts_before.get(self.after_keys[r]) == 1
        }
        kept = [
            r
            for r, k in enumerate(self.after_keys)
            if k in new and r not in chunk_of and self.old_of[r] >= 0
        ]
        if len(kept) < _COPIED or self._beside_namesakes(kept, chunk_of):
            return None
        # Only a copy that sits against a chunk: the sketch shows the lines around it, so it
        # would have shown that copy too had it stayed. A copy far from every chunk may be
        # code the edit duplicates on purpose.
        edges = [r for r in chunk_of if r - 1 not in chunk_of or r + 1 not in chunk_of]
        if not any(
            self._nonblank_between(min(r, e), max(r, e)) <= 1
            for r in (kept[0], kept[-1])
            for e in edges
        ):
            return None
        return (
            f"the merged file keeps {len(kept)} original lines (from merged line {kept[0] + 1}, "
            f"{self.after[kept[0]].strip()[:50]!r}) that the sketch writes again elsewhere: "
            "unclear whether it moves them (the old copy hidden under a marker) or copies them"
        )

    def _beside_namesakes(self, kept: list[int], chunk_of: dict[int, int]) -> bool:
        """Whether every kept copy lies in a definition whose header the merge keeps, and the
        sketch writes its copies in new definitions of those names (another receiver's or
        class's method): the file ends with both, the original's where it was, so the code was
        copied into a sibling (a second implementation), not moved out of it."""
        owner = parents(self.after)
        wanted = {self.after_keys[r] for r in kept}
        old: set[str] = set()
        for r in kept:
            head = self._definition_of(r, owner)
            if head < 0 or self.old_of[head] < 0:
                return False
            old.add(declared_name(self.after[head]) or "")
        new: set[str] = set()
        for r in chunk_of:
            if self.old_of[r] < 0 and self.after_keys[r] in wanted:
                head = self._definition_of(r, owner)
                if head < 0 or self.old_of[head] >= 0 or head not in chunk_of:
                    return False
                new.add(declared_name(self.after[head]) or "")
        return bool(new) and new <= old

    def _definition_of(self, r: int, owner: list[int]) -> int:
        """The row of the nearest definition header around row r (-1: none)."""
        r = owner[r]
        while r >= 0 and declared_name(self.after[r]) is None:
            r = owner[r]
        return r

    def _redeclared(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """A name the chunk declares anew (`:=` in Go, `const`/`let` in JavaScript and
        TypeScript) while the original's declaration of
        it at the same depth stays right beside the chunk: the chunk's declaration was meant
        to replace it (the file would declare the name twice in one scope)."""
        for first, last in spans:
            for r in range(first, last + 1):
                if self.old_of[r] >= 0:
                    continue
                match = self.declaration.match(self.after[r])
                if not match:
                    continue
                value = self.after[r][match.end() :]
                if self.shadows and re.search(rf"\b{re.escape(match.group(1))}\b", value):
                    continue
                depth = _width(self.after[r])
                low = max(0, first - 2 * _BESIDE)
                high = min(len(self.after), last + 1 + 2 * _BESIDE)
                for other in range(low, high):
                    if other in chunk_of or self.old_of[other] < 0:
                        continue
                    again = self.declaration.match(self.after[other])
                    if (
                        again
                        and again.group(1) == match.group(1)
                        and _width(self.after[other]) == depth
                        and self._nonblank_between(min(other, r), max(other, r)) <= _BESIDE
                    ):
                        return (
                            f"merged line {r + 1} declares {match.group(1)!r} again while the "
                            f"original's declaration (merged line {other + 1}) stays beside it"
                        )
        return None
