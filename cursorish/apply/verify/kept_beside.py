"""Runs of new lines in a merge and the kept original lines right beside them: where a marker's
edge guessed one line too far or too short, the line it kept there and the new lines that
replace it sit side by side. The checks that look for such pairs (kept_lookalike,
kept_restatement) share this walk."""

from __future__ import annotations

from collections.abc import Iterator


def new_runs_beside_kept(
    after: list[str], old_of: list[int], shown: set[str]
) -> Iterator[tuple[range, list[int]]]:
    """Each run of new lines (blank lines inside it included) with the merged rows of the kept
    original lines next to it, past blank lines, that the sketch does not show itself."""
    n = len(after)
    r = 0
    while r < n:
        if old_of[r] >= 0 or not after[r].strip():
            r += 1
            continue
        end = r
        while end < n and (old_of[end] < 0 or not after[end].strip()):
            end += 1
        beside: list[int] = []
        for first, step in ((r - 1, -1), (end, 1)):
            p = first
            while 0 <= p < n and not after[p].strip():
                p += step
            if 0 <= p < n and old_of[p] >= 0 and after[p].strip() not in shown:
                beside.append(p)
        yield range(r, end), beside
        r = end
