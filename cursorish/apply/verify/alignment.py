"""Which original line each result line is: a patience alignment of two lists of lines."""

from __future__ import annotations

import difflib
from bisect import bisect_left

_DIFF_LIMIT = 400_000  # cells of the quadratic fallback diff; larger gaps are not aligned


def _lines(text: str) -> list[str]:
    """The text's lines without their endings (a final newline ends the last line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [x[:-1] if x.endswith("\r") else x for x in lines]


def changed_rows(old_of: list[int], before_count: int) -> list[int]:
    """Result rows that are new (`old_of` -1), and both rows around each deletion."""
    rows: list[int] = []
    previous = -1
    for r, j in enumerate(old_of):
        if j < 0:
            rows.append(r)
            continue
        if j != previous + 1:
            rows.extend((r - 1, r) if r > 0 else (r,))
        previous = j
    if previous != before_count - 1 and old_of:
        rows.append(len(old_of) - 1)
    return rows


def _diff(before: list[str], after: list[str]) -> list[int]:
    """For each result line, the original line it is (unchanged, in order), or -1 for new."""
    old_of = [-1] * len(after)
    a = [x.rstrip() for x in before]
    b = [x.rstrip() for x in after]
    _align(a, b, 0, len(a), 0, len(b), old_of, 0)
    return old_of


def _align(
    a: list[str],
    b: list[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[int],
    depth: int,
) -> None:
    """Patience alignment: common ends, then lines unique on both sides as anchors (their
    longest increasing run), recursing between them; a plain diff on what is left."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        out[blo] = alo
        alo += 1
        blo += 1
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        out[bhi - 1] = ahi - 1
        ahi -= 1
        bhi -= 1
    if alo >= ahi or blo >= bhi:
        return
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        seen_b[b[j]] = -1 if b[j] in seen_b else j
    pairs = [
        (i, seen_b[x]) for x, i in seen_a.items() if i >= 0 and seen_b.get(x, -1) >= 0 and x.strip()
    ]
    if pairs and depth < 200:
        pairs.sort(key=lambda p: p[1])
        chain = _longest_increasing(pairs)
        pa, pb = alo, blo
        for i, j in chain:
            if i > pa and j > pb:
                _align(a, b, pa, i, pb, j, out, depth + 1)
            out[j] = i
            pa, pb = i + 1, j + 1
        _align(a, b, pa, ahi, pb, bhi, out, depth + 1)
        return
    if (ahi - alo) * (bhi - blo) > _DIFF_LIMIT:
        return
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            out[blo + block.b + k] = alo + block.a + k


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of pairs increasing in both coordinates (sorted by the second)."""
    tails: list[int] = []  # first coordinate at the end of the best chain of each length
    ends: list[int] = []  # index into pairs of that end
    back: list[int] = [-1] * len(pairs)
    for index, (i, _j) in enumerate(pairs):
        k = bisect_left(tails, i)
        if k == len(tails):
            tails.append(i)
            ends.append(index)
        else:
            tails[k] = i
            ends[k] = index
        back[index] = ends[k - 1] if k else -1
    chain: list[tuple[int, int]] = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = back[index]
    chain.reverse()
    return chain
