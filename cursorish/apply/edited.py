"""Placing a chunk that shares no line with the original: the lines it edits.

A sketch that changes one line (`substr` to `slice`, a new parameter) may keep no unchanged
line around it that is rare enough to anchor on (only `*/` or a blank). Its changed lines still
read as edited versions of original lines. Only a chunk whose every telling line is such an
edit, all at the same distance as in the sketch, is placed so; the usual ordering, marker
floors and tie checks decide between such placements or refuse.
"""

from __future__ import annotations

from cursorish.apply.align import Index, Placement
from cursorish.apply.lines import indent_width, weight
from cursorish.apply.spans import similar

SCORE = 1.0  # an edited line is evidence, but less than an equal one (1.0 plus edge bonus)
_PREFIX = 8  # a line and its edited version share at least this many leading characters
MAX_MATCHES = 4  # a line similar to more original lines than this says nothing


def edited_candidates(
    chunk_keys: list[str], chunk_lines: list[str], index: Index
) -> list[Placement]:
    """Placements of a chunk by its telling lines read as edits of similar original lines."""
    by_head: dict[str, list[int]] | None = None
    found: dict[int, list[int]] = {}
    for k, kk in enumerate(chunk_keys):
        if weight(kk) < 1.0 or len(kk) < _PREFIX:
            continue
        if by_head is None:
            by_head = _heads(index)
        width = indent_width(chunk_lines[k])
        matches = [
            j
            for j in by_head.get(kk[:_PREFIX], ())
            if index.indents[j] == width and similar(chunk_lines[k], index.lines[j], loose=True)
        ]
        if 0 < len(matches) <= MAX_MATCHES:
            found[k] = matches
    telling = [k for k, kk in enumerate(chunk_keys) if weight(kk) >= 1.0]
    if not telling or any(k not in found for k in telling):
        return []  # some telling line is new: new code, not an edit of lines found here
    first = telling[0]
    out: list[Placement] = []
    for j0 in found[first]:
        pairs = [(k, j0 + k - first) for k in telling]
        if all(j in found[k] for k, j in pairs):
            out.append(Placement(pairs, SCORE * len(pairs), pairs[0][1], pairs[-1][1] + 1))
    return out


def _heads(index: Index) -> dict[str, list[int]]:
    heads: dict[str, list[int]] = {}
    for j, k in enumerate(index.keys):
        if len(k) >= _PREFIX:
            heads.setdefault(k[:_PREFIX], []).append(j)
    return heads


_TERMINAL = ("return", "raise", "throw")  # code after these in their block never runs


def block_tail_candidates(
    chunk_keys: list[str], chunk_lines: list[str], index: Index
) -> list[Placement]:
    """Where new code that ends a block goes: a chunk whose last lines are an edited
    `return` and the block's closer (`}`) replaces the one block ending in a `return` like it
    followed by that very closer. A second `return` after the old one would never run, so the
    new one replaces it; the chunk's other lines come before it. Several such blocks are
    candidates like any others: the markers' depths and the tie checks decide."""
    lines = [k for k, kk in enumerate(chunk_keys) if kk]
    if len(lines) < 2:
        return []
    close, last = lines[-1], lines[-2]
    if weight(chunk_keys[close]) >= 0.5 or weight(chunk_keys[last]) < 1.0:
        return []
    if chunk_keys[last].split(" ", 1)[0] not in _TERMINAL:
        return []
    depth = indent_width(chunk_lines[last])
    if depth <= indent_width(chunk_lines[close]):
        return []
    out: list[Placement] = []
    for j in index.positions.get(chunk_keys[close], ()):
        if index.indents[j] != indent_width(chunk_lines[close]):
            continue
        before = j - 1
        while before >= 0 and index.blank[before]:
            before -= 1
        if before < 0 or index.indents[before] != depth:
            continue
        if index.keys[before].split(" ", 1)[0] != chunk_keys[last].split(" ", 1)[0]:
            continue
        if similar(chunk_lines[last], index.lines[before]):
            pairs = [(last, before), (close, j)]
            out.append(Placement(pairs, SCORE, before, j + 1))
    return out
