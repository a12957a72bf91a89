"""Of rival readings of a sketch, the one that leaves none of its telling lines twice.

A telling line (a long line) that the sketch writes once and the original holds once is in
the merged file once where the sketch is read right: the sketch's copy is the original's,
edited in place or moved. Readings the placement leaves tied can differ just there: one
takes a chunk for new code beside the lines it edits (after another copy of the `}` it opens
on), or keeps under a marker the old copy of code the sketch moves (another copy of the line
a chunk ends on), and so holds several such lines twice. Where exactly one reading holds
none twice and every other holds several, that one is the sketch's; fewer doubled lines
tell nothing (a line may be copied on purpose)."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.lazy_sketch import LazySketch, Merge
from cursorish.apply.lines import SourceFile, key

_TELLING = 8  # a line this long is unlikely to be written twice on purpose
_COPIED = 3  # telling lines left twice that make a reading keep a moved block


def moved_reading(
    source: SourceFile, distinct: dict[str, tuple[Merge, str]], sketch: LazySketch
) -> Merge | None:
    """The one reading (of `distinct`, by its text) that leaves no telling line of the sketch
    twice, where each other one leaves at least `_COPIED` of them twice; else None."""
    written = Counter(key(x) for c in sketch.chunks for x in c.lines)
    telling = {k for k, n in written.items() if n == 1 and len(k) >= _TELLING}
    held = Counter(k for k in map(key, source.lines) if k in telling)
    once = {k for k, n in held.items() if n == 1}
    if len(once) < _COPIED:
        return None
    clean: list[Merge] = []
    for text, (merge, _why) in distinct.items():
        counts = Counter(k for k in map(key, text.split("\n")) if k in once)
        twice = sum(1 for n in counts.values() if n > 1)
        if not twice:
            clean.append(merge)
        elif twice < _COPIED:
            return None
    return clean[0] if len(clean) == 1 else None
