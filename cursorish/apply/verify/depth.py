"""A chunk the merge wrote entirely as new lines although much of it is the original lines
it replaced at another depth: the sketch was indented unlike the file there (a pasted
snippet), and the merge, matching none of its lines, kept the sketch's depth."""

from __future__ import annotations


def _repasted(
    before: list[str], after: list[str], old_of: list[int], spans: list[tuple[int, int]]
) -> str | None:
    """The first chunk (result rows per span) none of whose lines is an original line kept,
    while two or more of them, and half at least, are original lines it replaces (gone from
    that place) written at another indentation."""
    for first, last in spans:
        rows = [r for r in range(first, last + 1) if after[r].strip()]
        if len(rows) < 2 or any(old_of[r] >= 0 for r in rows):
            continue
        lo = next((old_of[r] for r in range(first - 1, -1, -1) if old_of[r] >= 0), -1)
        hi = next((old_of[r] for r in range(last + 1, len(after)) if old_of[r] >= 0), len(before))
        gone = {before[j].strip(): before[j] for j in range(lo + 1, hi) if before[j].strip()}
        moved = [r for r in rows if after[r].strip() in gone and gone[after[r].strip()] != after[r]]
        if len(moved) >= 2 and 2 * len(moved) >= len(rows):
            return (
                f"merged lines {first + 1}-{last + 1} rewrite {len(moved)} of the original "
                "lines they replace at another indentation: the sketch is indented unlike "
                "the file there, so its depth (and where its new lines sit) is unclear"
            )
    return None
