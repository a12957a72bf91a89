"""Assembling the merged file from a chosen placement of a lazy sketch's chunks: the original
lines between chunks, each chunk's lines in the file's indentation, the blank lines a chunk
leaves out, and the doubts (`lazy_doubts.py`) that refuse a merge whose reading is unclear.
"""

from __future__ import annotations

import contextvars
import itertools
from collections.abc import Callable

from cursorish.apply.align import Index, Placement, fill
from cursorish.apply.edited import joined_statement, joined_statement_before
from cursorish.apply.languages import Language
from cursorish.apply.lazy_closers import (
    _closer_at_own_depth,
    _closer_past_span,
    _closers_after_new_code,
    _closers_before_span,
    _closers_one_level_out,
)
from cursorish.apply.lazy_dead_edge import dead_edge, dead_prefix, leading_units
from cursorish.apply.lazy_doubts import (
    _blank_guess,
    _check_edges,
    _closer_led_rename,
    _closer_over_unlike,
    _closer_reach_doubts,
    _comment_goes_on,
    _copied_doubts,
    _crossed_doubts,
    _edge_import_doubt,
    _empty_comment_bounds,
    _one_line_anchors,
    _other_copy_doubts,
    _same_method_doubts,
    _twice_spaced_doubt,
)
from cursorish.apply.lazy_edges import (
    _bare_edges,
    _comment_before_next,
    _Definitions,
    _float_span,
    _head_start,
    _reach_shown_edges,
    _replaced_definition,
    _same,
    _tail_end,
    _to_blank_edges,
    _to_shown_blank,
)
from cursorish.apply.lazy_entries import new_entry
from cursorish.apply.lazy_sketch import (
    Chunk,
    LazySketch,
    Merge,
    RefusedMerge,
)
from cursorish.apply.lines import (
    SourceFile,
    convert_indent,
    indent_style,
    indent_width,
    leading,
    mixed_indent,
    reindent,
)
from cursorish.apply.spans import Span, dropped_blanks, refine

# Whether blank original lines a chunk leaves out stay (`_kept_blanks`); off for a second try
# when keeping them leaves the file unchanged: then removing them was the edit.
KEEP_BLANKS: contextvars.ContextVar[bool] = contextvars.ContextVar("keep_blanks", default=True)


def _kept_outside(
    sketch: LazySketch, path: list[Placement], spans: list[Span], source: list[str]
) -> Callable[[range, Span], list[str]]:
    """What the merge leaves outside original lines `region` at an edge of the file, for the
    chunk placed at `span`: the sketch's lines and the original lines no chunk covers (the
    spans of the chunks before, the placements of those after)."""

    def kept(region: range, span: Span) -> list[str]:
        later = [range(p.a, p.b) for p in path[len(spans) + 1 :] if not p.inserted]
        covered = [range(s.a, s.b) for s in spans] + [range(span.a, span.b), *later]
        lines = [line for c in sketch.chunks for line in c.lines]
        lines += [
            line
            for j, line in enumerate(source)
            if j not in region and not any(j in r for r in covered)
        ]
        return lines

    return kept


def _dead_head(
    span: Span, source: list[str], kept: Callable[[range, Span], list[str]], named: _Definitions
) -> int:
    """Where a new first chunk, with no marker before it and no line matched, stops replacing
    the file's head: after its leading imports and definitions where the merge leaves them all
    dead (`dead_prefix`), else where it stands (it goes before the file's first line)."""
    found = named.every()
    units = leading_units(source, found)
    if not units or units[-1][1].stop <= span.b:
        return span.b
    stop = units[-1][1].stop
    defined = {d.name for d in found if d.depth == 0}
    return stop if dead_prefix(source, units, kept(range(stop), span), defined) else span.b


def _assemble(
    source: SourceFile,
    sketch: LazySketch,
    path: list[Placement],
    index: Index,
    lang: Language,
) -> Merge:
    n = len(source.lines)
    named = _Definitions(source.lines, lang)
    tabs, unit = indent_style(source.lines)
    sketch_tabs, sketch_unit = indent_style([line for c in sketch.chunks for line in c.lines])
    if tabs != sketch_tabs and mixed_indent(source.lines):
        sketch_tabs = tabs
    last = len(path) - 1
    doubts: list[str] = []
    bare = _bare_edges(sketch, path, source.lines, index)
    spans: list[Span] = []
    outside = _kept_outside(sketch, path, spans, source.lines)

    def dead(region: range, span: Span) -> bool:
        return dead_edge(source.lines, region, outside(region, span), named.every(), lang.name)

    written = frozenset(line.strip() for c in sketch.chunks for line in c.lines)
    for i, (chunk, place) in enumerate(zip(sketch.chunks, path, strict=True)):
        keys = chunk.keys
        lower = spans[-1].b if spans else 0
        upper = path[i + 1].a if i < last else n
        before = i > 0 or sketch.leading_marker
        after = i < last or sketch.trailing_marker
        next_indent = (
            sketch.chunks[i + 1].marker_indent
            if i < last
            else (sketch.trailing_indent if sketch.trailing_marker else None)
        )
        pairs = fill(place, keys, index)
        if place.inserted:
            span = Span(place.a, place.a, {})
        elif pairs:
            span = refine(
                chunk.anchors,
                keys,
                index,
                source.lines,
                pairs,
                (lower, upper),
                (before, after, next_indent),
            )
            new_entry(chunk, span, index)
            if before:
                joined_statement_before(keys, chunk.lines, span, index, lower)
            if after:
                joined_statement(keys, span, index, upper)
                _closers_after_new_code(chunk, span, index)
                _closer_past_span(chunk, span, index, upper, place.delta)
                _closer_at_own_depth(chunk, span, index, (lower, upper))
                _closers_one_level_out(chunk, span, index, place.delta)
        else:
            span = _float_span(chunk, place, source.lines, (lower, upper))
        if not before and not pairs and span.a == 0 and lang.name == "python":
            span.b = _dead_head(span, source.lines, outside, named)
        if not before:
            span.a = _head_start(chunk, span, source.lines, bare, dead)
        elif span.matched:
            span.a = _replaced_definition(chunk, span, source.lines, lower, named)
        if not after:
            span.b = _tail_end(chunk, span, source.lines, bare, dead)
        if not place.inserted:
            _to_blank_edges(chunk, span, source.lines, (lower, upper), (before, after))
            _to_shown_blank(chunk, span, index, (lower, upper), (before, after))
            _reach_shown_edges(chunk, span, index, (lower, upper), (before, after))
            if before:
                _closers_before_span(chunk, span, source.lines, lower)
            if after:
                _comment_before_next(chunk, span, source.lines, upper)
        if span.a < lower:
            raise RefusedMerge(f"{chunk.where()} overlap the chunk before them")
        doubts.extend(_check_edges(chunk, span, index, (lower, upper), (before, after)))
        doubts.extend(_other_copy_doubts(chunk, span, index, (lower, upper)))
        doubts.extend(_same_method_doubts(chunk, span, index, named, (lower, upper)))
        doubts.extend(_closer_reach_doubts(chunk, span, index))
        doubts.extend(_one_line_anchors(chunk, span, index))
        if after:
            doubts.extend(_closer_over_unlike(chunk, span, index))
        spans.append(span)
    pieces: list[tuple[str, str | None]] = []
    deleted: list[int] = []
    added: list[str] = []
    rewritten: list[tuple[int, str]] = []
    kept: set[int] = set()
    # New lines, the keys of their chunk neighbours, and the original lines from the chunk
    # before to the chunk after (what the chunk and its markers stand for).
    placed: list[tuple[str, str, str, int, int]] = []
    where_placed: list[tuple[int, int]] = []  # the chunk and chunk line of each placed line
    cursor = 0
    for i, (chunk, span) in enumerate(zip(sketch.chunks, spans, strict=True)):
        pieces.extend(source.original_pieces(cursor, span.a))
        kept.update(range(cursor, span.a))
        delta = path[i].delta
        if delta and _edges_at_own_depth(chunk, span, source.lines):
            delta = 0
        used = set(span.matched.values())
        spaced = span.a == 0 or not source.lines[span.a - 1].strip()
        # A blank line a chunk ends with, where the next chunk goes on right after it in the
        # original (the marker between them keeps no line, and no blank line is there): the
        # sketch spaces the two apart, so that blank line is new, not spacing at a marker.
        joined = (
            i < last
            and spans[i + 1].a == span.b
            and 0 < span.b < n
            and bool(source.lines[span.b - 1].strip())
            and bool(source.lines[span.b].strip())
        )
        drop = dropped_blanks(
            chunk.keys,
            span.matched,
            (i > 0 or sketch.leading_marker) and spaced,
            (i < last or sketch.trailing_marker) and not joined,
        )
        blanks_before, blanks_after = _kept_blanks(chunk, span, source.lines, drop, sketch.marked)
        for restored in (*blanks_before.values(), *blanks_after.values()):
            used.update(restored)
        gone = [j for j in range(span.a, span.b) if j not in used]
        if bare:
            doubts.extend(_blank_guess(chunk, span, source.lines, gone))
        deleted.extend(gone)
        doubts.extend(_crossed_doubts(chunk, span, index, gone))
        edges = (i > 0 or sketch.leading_marker, i < last or sketch.trailing_marker)
        doubts.extend(_edge_import_doubt(chunk, span, source.lines, gone, edges))
        doubts.extend(_closer_led_rename(chunk, span, source.lines, gone, written))
        doubts.extend(_empty_comment_bounds(chunk, span, index, gone))
        if edges[1]:
            high = spans[i + 1].a if i < last else n
            doubts.extend(_comment_goes_on(chunk, span, source.lines, high))
        for k, line in enumerate(chunk.lines):
            if k in blanks_before:
                pieces.extend(source.original_piece(j) for j in blanks_before[k])
                kept.update(blanks_before[k])
            if k in drop:
                continue
            text = _as_file(line, tabs, unit, sketch_tabs, sketch_unit, delta)
            j = span.matched.get(k)
            if (
                j is not None
                and _same(text, source.lines[j])
                and not _retabbed(text, source.lines[j])
            ):
                pieces.append(source.original_piece(j))
                kept.add(j)
            else:
                pieces.append((text, None))
                if j is not None:
                    rewritten.append((j, text))
                if j is None:
                    added.append(text)
                    around = _neighbours(chunk.keys, k, span.matched)
                    low = spans[i - 1].b if i else 0
                    high = spans[i + 1].a if i < last else n
                    placed.append((text, *around, low, high))
                    where_placed.append((i, k))
            if k in blanks_after:
                pieces.extend(source.original_piece(j) for j in blanks_after[k])
                kept.update(blanks_after[k])
        if edges[1]:
            doubts.extend(_twice_spaced_doubt(chunk, span, index, drop))
        cursor = max(cursor, span.b)
    pieces.extend(source.original_pieces(cursor, n))
    kept.update(range(cursor, n))
    pinned = [(sketch.chunks[i].keys, spans[i].matched, k) for i, k in where_placed]
    doubts.extend(_copied_doubts(sketch, placed, kept, index, pinned, lang.name))
    return Merge(pieces, deleted, added, doubts[0] if doubts else "", rewritten)


def _edges_at_own_depth(chunk: Chunk, span: Span, source: list[str]) -> bool:
    """Whether the chunk's first and last lines both match original lines at the very depth
    the sketch writes them: the chunk is written at the file's depth, and anchors between them
    at another depth are lines the edit re-indents, not a sign the sketch sits elsewhere."""
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    if len(shown) < 2:
        return False
    for k in (shown[0], shown[-1]):
        j = span.matched.get(k)
        if j is None or indent_width(chunk.lines[k]) != indent_width(source[j]):
            return False
    return True


def _kept_blanks(
    chunk: Chunk, span: Span, source: list[str], drop: set[int], marked: bool = False
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Blank original lines a chunk keeps although it does not show them: planners drop
    blank lines (a chunk without any blank line has dropped them). Between two lines of the
    chunk matched to original lines, the blank lines that open the original stretch between
    them stay after the first, and those that close it (when the sketch writes lines between
    the two) before the second. Not where the sketch writes a marker at both its edges and
    some blank line (`marked`): a sketch that careful shows the lines of the stretch it
    rewrites (changed lines and their context), blank ones too, in each chunk (two lines it
    writes one right after the other are so in the file). A sketch without any blank line
    cannot say so: it has dropped them all.
    Returns chunk line -> original blank lines to write before it, and after it."""
    before: dict[int, list[int]] = {}
    after: dict[int, list[int]] = {}
    if not KEEP_BLANKS.get() or any(not line.strip() for line in chunk.lines):
        return before, after  # a chunk that writes blank lines means the ones it leaves out
    anchors = sorted(span.matched.items())
    for (k1, j1), (k2, j2) in itertools.pairwise(anchors):
        if j2 <= j1 + 1:
            continue
        if not _same(chunk.lines[k2], source[j2]):
            continue  # re-indented lines: the code around them is restructured, not spaced
        # Only the first re-indented: the spacing before the second is still the code's own.
        restructured = not _same(chunk.lines[k1], source[j1])
        lead: list[int] = []
        j = j1 + 1
        while j < j2 and not source[j].strip():
            lead.append(j)
            j += 1
        tail: list[int] = []
        j = j2 - 1
        while j > j1 and not source[j].strip() and j not in lead:
            tail.insert(0, j)
            j -= 1
        shown = [chunk.lines[k] for k in range(k1 + 1, k2) if k not in drop]
        if not shown and len(tail) > len(lead) and _not_deeper(source, j1, j2):
            # Lines left out between two shown ones, not a block's body: the wider spacing
            # around them is the code's own, kept where it was.
            before[k2] = tail
            continue
        if restructured:
            continue
        if marked:
            continue
        if lead:
            after[k1] = lead
        if tail and shown:
            before[k2] = tail
    return before, after


def _not_deeper(source: list[str], j1: int, j2: int) -> bool:
    """Whether the first non-blank original line after j1 (before j2) is no deeper than j1."""
    for j in range(j1 + 1, j2):
        if source[j].strip():
            return indent_width(source[j]) <= indent_width(source[j1])
    return False


def _neighbours(keys: list[str], k: int, matched: dict[int, int]) -> tuple[str, str]:
    """The keys of the non-blank lines before and after line k, where the reading matched
    them to original lines ("" where not, or at an end): a new line between kept ones."""
    up = next((x for x in range(k - 1, -1, -1) if keys[x]), -1)
    down = next((x for x in range(k + 1, len(keys)) if keys[x]), -1)
    return (keys[up] if up in matched else "", keys[down] if down in matched else "")


def _retabbed(text: str, original: str) -> bool:
    """Whether a sketch line of the original's width re-writes an indentation that puts a space
    before a tab (`    \tx`) in either of them: no style conversion of ours writes one, so the
    sketch's own bytes are the edit (a commit that cleans such indentation, or makes it)."""
    lead, old = leading(text), leading(original)
    return lead != old and (" \t" in lead or " \t" in old)


def _as_file(
    line: str, tabs: bool, unit: int, sketch_tabs: bool, sketch_unit: int, delta: int
) -> str:
    """A sketch line in the file's indentation style and at the file's depth."""
    if tabs != sketch_tabs and leading(line):
        line = convert_indent(line, to_tabs=tabs, unit=unit if not tabs else sketch_unit)
    if delta:
        line = reindent(line, -delta, tabs=tabs, unit=unit)
    return line
