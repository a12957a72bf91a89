"""A block the sketch moves, its old copy kept right against the chunk that writes it anew.

A sketch that swaps two neighbouring blocks (`if a {...}` written before `if b {...}` where the
file has them the other way round) writes one of them again whole; where the chunk ends on the
other block, the original's copy of the moved one follows the chunk at once, under the marker,
and a merge that keeps it leaves the same block twice, one right after the other's neighbour.
No sketch writes a block again verbatim beside its original to mean a copy of it: the copy
stays only because the marker was read as keeping it."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.lines import indent_width as _width

_TELLING = 8  # an opener this long is unlikely to be written twice on purpose
_OPENERS = ("{", ":")


def _block(keys: list[str], lines: list[str], start: int) -> list[str]:
    """The non-blank keys of the block the line at `start` opens: it and the deeper lines
    after it, with a closing line at its depth (`}`) that ends it."""
    depth = _width(lines[start])
    out = [keys[start]]
    for r in range(start + 1, len(lines)):
        if not keys[r]:
            continue
        if _width(lines[r]) > depth:
            out.append(keys[r])
            continue
        if keys[r][0] in ")]}":
            out.append(keys[r])
        break
    return out


def _moved_block(
    before_keys: list[str],
    after: list[str],
    after_keys: list[str],
    old_of: list[int],
    spans: list[tuple[int, int]],
    sketch_keys: list[str],
) -> str | None:
    """A block the chunk writes anew (its opener telling, once in the sketch and once in the
    original, the block two lines or more beyond its opener) whose original copy, key for key,
    the merge keeps right after the chunk's last line or right before its first, in the same
    block as the chunk's copy."""
    in_sketch = Counter(sketch_keys)
    in_before = Counter(k for k in before_keys if k.endswith(_OPENERS) and len(k) >= _TELLING)
    for first, last in spans:
        for r in range(first, last + 1):
            k = after_keys[r]
            if old_of[r] >= 0 or in_before[k] != 1 or in_sketch[k] != 1:
                continue
            block = _block(after_keys, after, r)
            if len(block) < 3 or r + len(block) - 1 > last:
                continue
            for copy in _copies(after_keys, old_of, k, first, last):
                if (
                    _block(after_keys, after, copy) == block
                    and _against(after_keys, copy, len(block), first, last)
                    and _same_scope(after, after_keys, min(r, copy), max(r, copy))
                ):
                    return (
                        f"the merged file keeps the original block {k[:50]!r} (merged line "
                        f"{copy + 1}) right against the chunk that writes it anew: the sketch "
                        "moved it, and its old copy was meant to go"
                    )
    return None


def _copies(after_keys: list[str], old_of: list[int], k: str, first: int, last: int) -> list[int]:
    """Rows outside the chunk's span that keep an original line with key `k`."""
    return [
        r for r, x in enumerate(after_keys) if x == k and old_of[r] >= 0 and not first <= r <= last
    ]


def _same_scope(after: list[str], after_keys: list[str], low: int, high: int) -> bool:
    """Whether rows `low` and `high` sit at one depth with no shallower line between them: in
    one block (a copy in a sibling function is code written twice on purpose)."""
    depth = _width(after[low])
    return _width(after[high]) == depth and all(
        _width(after[r]) >= depth for r in range(low + 1, high) if after_keys[r]
    )


def _against(after_keys: list[str], copy: int, size: int, first: int, last: int) -> bool:
    """Whether a block of `size` non-blank lines at row `copy` starts at the first non-blank
    row after the chunk, or ends at the last one before it."""
    if copy > last:
        return not any(after_keys[r] for r in range(last + 1, copy))
    seen = 0
    r = copy
    while r < first and seen < size:
        if after_keys[r]:
            seen += 1
        r += 1
    return seen == size and not any(after_keys[x] for x in range(r, first))
