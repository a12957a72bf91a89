"""Lines a chunk ends with that the merge writes anew while the original has the same lines
again a few lines on, kept under the marker after the chunk: the sketch showed the original's
copy there (its context, to end the chunk on), so the lines between are what the chunk
replaces; written again, the file holds them twice."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

_WORD = re.compile(r"[A-Za-z]{3,}")
_BESIDE = 6  # non-blank kept lines between the chunk's end and the original's copy


def _tail_written_again(
    after_keys: list[str],
    rows: list[int],
    old_of: list[int],
    spans: list[tuple[int, int]],
    trailing: bool,
) -> str | None:
    """None unless a chunk followed by a marker ends with two or more new lines (one with a
    word) that the original lines kept right after it repeat, in order, within a few lines."""
    last_chunk = len(spans) - 1
    for i, (first, last) in enumerate(spans):
        if i == last_chunk and not trailing:
            continue
        end = spans[i + 1][0] if i < last_chunk else len(after_keys)
        tail: list[int] = []
        # `rows` is sorted: slice it rather than walk the whole file once per chunk.
        for r in reversed(rows[bisect_left(rows, first) : bisect_right(rows, last)]):
            if old_of[r] >= 0:
                break
            tail.append(r)
        if len(tail) < 2:
            continue
        tail.reverse()
        kept = rows[bisect_right(rows, last) : bisect_left(rows, end)][: _BESIDE + len(tail)]
        if any(old_of[r] < 0 for r in kept):
            continue
        keys = [after_keys[r] for r in tail]
        kept_keys = [after_keys[r] for r in kept]
        for size in range(len(tail), 1, -1):
            suffix = keys[-size:]
            if not any(_WORD.search(k) for k in suffix):
                break
            for p in range(min(_BESIDE, len(kept_keys) - size) + 1):
                if kept_keys[p : p + size] == suffix:
                    return (
                        f"the merge writes {size} lines (from {suffix[0][:50]!r}) at the end of "
                        f"a chunk that the original has again {p} line(s) further on, kept: the "
                        "chunk should end on the original's copy"
                    )
    return None
