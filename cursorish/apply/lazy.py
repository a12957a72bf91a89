"""Merging a lazy sketch: kept code plus "existing code" markers that stand for original lines.

The sketch is split at its markers into chunks. Each chunk gets candidate placements in the
original (see `align`); a dynamic programme over the chunks picks the best sequence that keeps
them in order and respects each marker's indentation (a marker indented into a block stands for
lines of that block only). When a different sequence scores about as well and gives a different
file, the merge is refused: the sketch does not say where it goes.

This module is the entry (`merge_lazy`, `merge_lazy_sketch`); the steps live beside it:
`lazy_sketch` (the sketch's types and splitting), `lazy_place` (the placements and the
dynamic programme), `lazy_assemble` (the merged file and its doubts) and `lazy_rivals` (rival
readings and ties). The names other modules import from here are re-exported.
"""

from __future__ import annotations

from collections import Counter

from cursorish.apply.align import Index, Placement, candidates
from cursorish.apply.edited import block_tail_candidates, edited_candidates
from cursorish.apply.languages import Language
from cursorish.apply.lazy_assemble import KEEP_BLANKS, _assemble
from cursorish.apply.lazy_doubts import _empty_comment_bounds
from cursorish.apply.lazy_earlier_blank import _earlier_blank
from cursorish.apply.lazy_edges import _closes_file
from cursorish.apply.lazy_head import _anchored_head
from cursorish.apply.lazy_place import (
    KEPT,
    _after_previous,
    _at_block_end,
    _can_float,
    _choose,
    _closed_block,
    _earlier_closer,
    _floating,
    _Gaps,
    _new_block_closer,
    _order_reason,
    _pasted_closers,
    _weak_edge,
)
from cursorish.apply.lazy_rivals import (
    _depth_tells,
    _later_closer_readings,
    _margin,
    _overlap,
    _past_unchanged,
    _recurring_edge_readings,
    _repeated_readings,
    _settle,
    _tie_reason,
)
from cursorish.apply.lazy_sketch import (
    Chunk,
    LazySketch,
    Merge,
    RefusedMerge,
    Validate,
    split_sketch,
)
from cursorish.apply.lines import SourceFile
from cursorish.apply.verify.toplevel import _declared_twice

# The names other modules import from here, and two private ones the tests import.
__all__ = [
    "KEEP_BLANKS",
    "Chunk",
    "LazySketch",
    "Merge",
    "RefusedMerge",
    "Validate",
    "_closes_file",
    "_empty_comment_bounds",
    "merge_lazy",
    "merge_lazy_sketch",
    "split_sketch",
]

EXACT_TIE = 0.25  # within the same places, only a dead heat is ambiguous


def merge_lazy(
    source: SourceFile, lines: list[str], lang: Language, validate: Validate | None = None
) -> Merge:
    """Merge a lazy sketch's lines into the original; raises `RefusedMerge` when unsure."""
    sketch = split_sketch(lines, lang)
    if not sketch.chunks:
        raise RefusedMerge("the sketch has only markers and no code")
    return merge_lazy_sketch(source, sketch, lang, validate)


def _doubles_declaration(source: SourceFile, merged: Merge, lang: Language) -> bool:
    """Whether the best reading declares a top-level name twice that the original declares
    once: it wrote the sketch's declaration as new code beside the original's (lined up over
    a look-alike's body), a file that does not compile. Then a placement that scores lower is
    still a rival (the one over the original declaration, whose header the sketch repeats):
    `_settle` takes the one reading the validator lets stand."""
    after = source.render(merged.pieces).split("\n")
    return _declared_twice(source.lines, after, lang.name) is not None


def merge_lazy_sketch(
    source: SourceFile, sketch: LazySketch, lang: Language, validate: Validate | None = None
) -> Merge:
    """Merge an already split sketch (chunks and markers) into the original.

    `validate` tells a merge that must not stand; an alternative placement it rejects is no
    rival to the best one."""
    # key() inlined: this runs once per line of the original on every merge.
    index = Index([" ".join(line.split()) for line in source.lines], source.lines)
    gaps = _Gaps(index)
    n = len(source.lines)
    options: list[list[Placement]] = []
    written = Counter(k for c in sketch.chunks for k in set(c.keys))

    def place(i: int, start: int = 0) -> list[Placement]:
        """Chunk i's placements in the original's lines from `start` on."""
        chunk = sketch.chunks[i]
        cands = candidates(chunk.keys, chunk.lines, index, start)
        cands = [_closed_block(q, chunk, index) for q in cands]
        cands = [_pasted_closers(q, chunk, index) for q in cands]
        cands = [_new_block_closer(q, chunk, index) for q in cands]
        if i > 0 or sketch.leading_marker:
            prior = options[i - 1] if i > 0 else []
            cands = [_earlier_closer(q, chunk, index, written, lang, prior) for q in cands]
            cands = [_earlier_blank(q, chunk, index, lang, prior) for q in cands]
            cands = _anchored_head(cands, chunk, index, written, start)
        if _can_float(sketch, i):
            # At the file's edge, a chunk anchored by punctuation only (`}`) is new code there.
            if any(p.strong for p in cands):
                cands = [p for p in cands if p.strong]
            elif cands and not start:  # after the chunk before it, its closers tell where
                cands = _weak_edge(sketch, i, index, cands)
        if not any(p.strong for p in cands) and not _can_float(sketch, i):
            # Only punctuation (`*/`, `}`) anchors it, if anything: its lines may be edits.
            edited = edited_candidates(chunk.keys, chunk.lines, index)
            if not edited and i > 0:
                edited = block_tail_candidates(chunk.keys, chunk.lines, index)
            cands = [q for q in edited if q.a >= start] or cands
        if not cands and 0 < i < len(sketch.chunks) and options[i - 1]:
            cands = _at_block_end(sketch, i, options[i - 1], index)
        return cands or [_floating(sketch, i, n, index)]

    for i in range(len(sketch.chunks)):
        options.append(place(i))
    if len(options) > 1 and all(p.floating for opts in options for p in opts):
        raise RefusedMerge("no line of the sketch occurs in the original: is it for another file?")
    paths = _choose(sketch, options, index, gaps)
    if not paths:
        paths = _after_previous(sketch, options, place, index, gaps)
    if not paths:
        raise RefusedMerge(_order_reason(sketch, options))
    merged = _assemble(source, sketch, paths[0], index, lang)
    if not KEEP_BLANKS.get() and len(paths) > 1:
        # Where the DP cut placements off, more of them may hold the one reading that edits.
        further = (
            (lambda: _choose(sketch, options, index, gaps, KEPT * 3))
            if len(paths) == KEPT
            else None
        )
        paths, merged = _past_unchanged(source, sketch, paths, merged, index, lang, further)
    # Readings as good as the best one that give other files: (merge, why it is a rival).
    rivals = _repeated_readings(source, sketch, paths[0], index, lang)
    rivals.extend(_later_closer_readings(source, sketch, paths[0], index, lang))
    rivals.extend(_recurring_edge_readings(source, sketch, paths[0], merged, index, lang))
    doubled: bool | None = None  # worked out once a placement falls outside the margin
    for other in paths[1:]:
        gap = paths[0][0].score - other[0].score
        if _depth_tells(sketch, paths[0], other):
            continue
        if gap >= _margin(paths[0], other):
            if doubled is None:
                doubled = _doubles_declaration(source, merged, lang)
            if not doubled:
                continue
        rivals.extend(_repeated_readings(source, sketch, other, index, lang))
        if gap >= EXACT_TIE and all(_overlap(p, q) for p, q in zip(paths[0], other, strict=True)):
            continue  # the same places, matched in less detail: the better match stands
        try:
            alt = _assemble(source, sketch, other, index, lang)
        except RefusedMerge:
            continue  # a placement whose own reading refuses outright is no rival
        rivals.append((alt, _tie_reason(sketch, paths[0], other)))
    # Every placement as good as the best one is among the rivals (none was cut off).
    every = len(paths) < KEPT or (
        paths[0][0].score - paths[-1][0].score >= _margin(paths[0], paths[-1])
    )
    chosen = _settle(source, merged, rivals, validate, lang, every, sketch)
    if chosen.doubt:
        raise RefusedMerge(chosen.doubt)
    return chosen
