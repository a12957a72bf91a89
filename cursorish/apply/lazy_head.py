"""A chunk right after a marker starts at its first line where the original holds that line
once.

The marker keeps the original lines before the chunk; the chunk's first line, shown right
after it, says where they end. A placement that leaves that line unmatched has matched the
chunk's later lines elsewhere (a doc comment the chunk copies onto a new definition further
down, or a closer of the definition above): it would write the line again as new code and
delete the original's copy, or the kept lines between the marker and it. Only placements that
match the line to its one original copy stand, where there are any. (Not where the lines
before the copy are all matched: two lines swapped, the chunk's first moved up.)"""

from __future__ import annotations

from collections import Counter

from cursorish.apply.align import STRONG, Index, Placement, candidates
from cursorish.apply.lazy_sketch import _TELLING_LENGTH, Chunk
from cursorish.apply.lines import weight


def _anchored_head(
    cands: list[Placement], chunk: Chunk, index: Index, written: Counter[str], start: int
) -> list[Placement]:
    """The placements among `cands` (or, if none, of the chunk from there on) that match the
    chunk's first line to its one original copy; `cands` where it has no such copy."""
    keys = chunk.keys
    first = next((k for k, kk in enumerate(keys) if kk), -1)
    if first < 0 or not cands:
        return cands
    head = keys[first]
    if len(head) < _TELLING_LENGTH or weight(head) < STRONG or written[head] != 1:
        return cands
    if index.count(head) != 1:
        return cands
    j = index.positions[head][0]
    if j < start:
        return cands
    if not any(_drops_before(q, first, j, index) for q in cands):
        return cands
    anchored = [q for q in cands if q.pairs and q.pairs[0] == (first, j)]
    if not anchored:
        anchored = [
            q
            for q in candidates(keys, chunk.lines, index, j)
            if q.pairs and q.pairs[0] == (first, j)
        ]
    return anchored or cands


def _drops_before(place: Placement, first: int, j: int, index: Index) -> bool:
    """Whether `place` leaves the chunk's first line unmatched, replaces its copy `j` and
    deletes a non-blank original line before that copy (where every line between is matched,
    the chunk shows them after its first line: two lines swapped, the first moved up)."""
    if not place.pairs or place.pairs[0][0] == first or not place.a <= j < place.b:
        return False
    matched = {o for _, o in place.pairs}
    if j in matched:
        return False
    return any(not index.blank[o] and o not in matched for o in range(place.a, j))
