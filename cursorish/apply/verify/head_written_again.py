"""A chunk after a marker that opens on an original line the merge writes anew, while the
original's only copy of that line, among the lines the chunk replaces, is gone.

The sketch shows the line right after the marker: the marker keeps what comes before it, so
the chunk starts at the original's copy. A merge that matched the chunk's later lines to
original lines above that copy (a block the chunk writes again further down, such as a doc
comment copied onto a new function) has moved the line, and deleted the kept lines between
the marker and it."""

from __future__ import annotations

from bisect import bisect_left

from cursorish.apply.verify.tail_written_again import _WORD

_TELLING = 12  # characters: shorter lines (`}`, `return x`) recur by chance


def _head_written_again(
    before: list[str],
    after: list[str],
    before_keys: list[str],
    after_keys: list[str],
    rows: list[int],
    old_of: list[int],
    spans: list[tuple[int, int]],
    leading: bool,
) -> str | None:
    """None unless a chunk after a marker opens with a new telling line held once in the
    original and once in the result, word for word, whose original copy lies between the
    original lines kept around the chunk and is not kept, while an original line between the
    last one kept before the chunk and that copy is gone too. (Where every line between is
    kept, the chunk shows them after its first line: two lines swapped, the first moved up.)"""
    held: dict[str, int] | None = None
    kept: set[int] | None = None  # the original lines the result keeps, built once needed
    for i, (first, last) in enumerate(spans):
        if (i == 0 and not leading) or old_of[first] >= 0:
            continue
        key = after_keys[first]
        if len(key) < _TELLING or not _WORD.search(key):
            continue
        if held is None:  # built once, and only when a chunk opens on a new line
            held = _held_once(before_keys)
        j = held.get(key, -1)
        if j < 0 or after_keys.count(key) != 1 or after[first].rstrip() != before[j].rstrip():
            continue  # re-spaced (gofmt's alignment): the line is edited in place, not moved
        low = _kept_before(rows, old_of, first)
        if not low < j < _kept_after(rows, old_of, last):
            continue
        if kept is None:
            kept = {o for o in old_of if o >= 0}
        if any(before_keys[o] and o not in kept for o in range(low + 1, j)):
            return (
                f"sketch line {key[:60]!r} opens a chunk right after a marker, and the "
                f"original holds it once (line {j + 1}), but the merge writes it anew and "
                "deletes the original's copy: the marker keeps the lines before it, so the "
                "chunk starts there"
            )
    return None


def _held_once(keys: list[str]) -> dict[str, int]:
    """Each key the lines hold exactly once, with its line."""
    seen: dict[str, int] = {}
    for j, k in enumerate(keys):
        seen[k] = -1 if k in seen else j
    return {k: j for k, j in seen.items() if j >= 0}


def _kept_before(rows: list[int], old_of: list[int], row: int) -> int:
    """The original line of the nearest kept result row above `row` (-1: none)."""
    for r in reversed(rows[: bisect_left(rows, row)]):
        if old_of[r] >= 0:
            return old_of[r]
    return -1


def _kept_after(rows: list[int], old_of: list[int], row: int) -> int:
    """The original line of the nearest kept result row below `row` (a huge number: none)."""
    for r in rows[bisect_left(rows, row + 1) :]:
        if old_of[r] >= 0:
            return old_of[r]
    return 1 << 30
