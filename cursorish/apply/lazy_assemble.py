"""Assembling the merged file from a chosen placement of a lazy sketch's chunks, and the doubts
that refuse a merge whose reading is unclear (a chunk's edges, blank lines, comments, imports,
closers, lines it copies or crosses).
"""

from __future__ import annotations

import contextvars
import difflib
import itertools
import re
from collections import Counter

from cursorish.apply.align import MAX_GAP, STRONG, Index, Placement, fill, side_by_side
from cursorish.apply.blocks import declared_name
from cursorish.apply.edited import joined_statement, joined_statement_before
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import (
    _COMMON_WORDS,
    _EDGE_REACH,
    _LIKE,
    _TELLING_LENGTH,
    _WORD,
    WORDY,
    Chunk,
    LazySketch,
    Merge,
    RefusedMerge,
)
from cursorish.apply.lines import (
    STRING_LITERAL,
    SourceFile,
    convert_indent,
    indent_style,
    indent_width,
    key,
    leading,
    reindent,
    weight,
)
from cursorish.apply.spans import Span, block_end, dropped_blanks, match_between, refine, similar
from cursorish.apply.structure import Definition, definitions

# Whether blank original lines a chunk leaves out stay (`_kept_blanks`); off for a second try
# when keeping them leaves the file unchanged: then removing them was the edit.
KEEP_BLANKS: contextvars.ContextVar[bool] = contextvars.ContextVar("keep_blanks", default=True)

_CROSSED = 4  # repeated lines a chunk matches across a line it moves: a reading, not a move


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
    last = len(path) - 1
    spans: list[Span] = []
    doubts: list[str] = []
    bare = _bare_edges(sketch, path, source.lines, index)
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
            if before:
                joined_statement_before(keys, chunk.lines, span, index, lower)
            if after:
                joined_statement(keys, span, index, upper)
                _closers_after_new_code(chunk, span, index)
                _closer_past_span(chunk, span, index, upper, place.delta)
        else:
            span = _float_span(chunk, place, source.lines, (lower, upper))
        if not before:
            span.a = _head_start(chunk, span, source.lines, bare)
        elif span.matched:
            span.a = _replaced_definition(chunk, span, source.lines, lower, named)
        if not after:
            span.b = _tail_end(chunk, span, source.lines, bare)
        if not place.inserted:
            _to_blank_edges(chunk, span, source.lines, (lower, upper), (before, after))
            _reach_shown_edges(chunk, span, index, (lower, upper), (before, after))
            if after:
                _comment_before_next(chunk, span, source.lines, upper)
        if span.a < lower:
            raise RefusedMerge(f"{chunk.where()} overlap the chunk before them")
        doubts.extend(_check_edges(chunk, span, index, (lower, upper), (before, after)))
        doubts.extend(_other_copy_doubts(chunk, span, index, (lower, upper)))
        doubts.extend(_same_method_doubts(chunk, span, index, named))
        doubts.extend(_closer_reach_doubts(chunk, span, index))
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
        doubts.extend(_closer_led_rename(chunk, span, source.lines, gone))
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
            if j is not None and _same(text, source.lines[j]):
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
    doubts.extend(_copied_doubts(sketch, placed, kept, index, pinned))
    return Merge(pieces, deleted, added, doubts[0] if doubts else "", rewritten)


_IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+)?import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$")


_IMPORT_LINE = re.compile(r"^\s*(?:import\b|from\s+\S+\s+import\b)")


def _twice_spaced_doubt(chunk: Chunk, span: Span, index: Index, drop: set[int]) -> list[str]:
    """A chunk that ends, before a marker, on a line it matched, then blank lines, then new
    imports, where the original has blank lines right after that line which the marker keeps,
    and then imports: the sketch's blank lines may be those very lines (the new imports join
    the group the marker keeps) or new ones (the new imports a group of their own)."""
    k = max((k for k in span.matched if chunk.keys[k]), default=None)
    if k is None:
        return []
    rest = [x for x in range(k + 1, len(chunk.lines)) if x not in drop]
    blanks = 0
    while blanks < len(rest) and not chunk.keys[rest[blanks]]:
        blanks += 1
    new = rest[blanks:]
    j = span.matched[k] + 1
    if not blanks or not new or any(x in span.matched for x in new):
        return []
    if span.b != j or j >= len(index.keys) or not index.blank[j]:
        return []
    after = next((x for x in range(j, len(index.keys)) if not index.blank[x]), None)
    imports = [chunk.lines[x] for x in new if chunk.keys[x]]
    if after is None or not all(_IMPORT_LINE.match(x) for x in [*imports, index.lines[after]]):
        return []  # new code of another kind than what follows: spaced apart from it
    return [
        f"{chunk.where()} end with blank lines and then new imports after original line {j}, "
        f"and the marker after them keeps blank line {j + 1} and the imports after it: "
        "unclear whether the new imports join those (the sketch's blank lines being the "
        "original's) or make a group of their own"
    ]


def _edge_import_doubt(
    chunk: Chunk, span: Span, source: list[str], gone: list[int], markers: tuple[bool, bool]
) -> list[str]:
    """A chunk whose edge line next to a marker is a new import, where the merge deletes an
    original import of another name from the same module beyond the chunk's last (first)
    match: the marker may keep that import and the new one be added beside it (sorted imports
    look alike), so whether it replaces it is a guess."""
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    if not shown or not span.matched or not gone:
        return []
    edges = []
    if markers[1] and shown[-1] not in span.matched:
        edges.append((shown[-1], [j for j in gone if j > max(span.matched.values())]))
    if markers[0] and shown[0] not in span.matched:
        edges.append((shown[0], [j for j in gone if j < min(span.matched.values())]))
    for k, beyond in edges:
        new = _IMPORT.match(chunk.lines[k])
        if not new:
            continue
        for j in beyond:
            old = _IMPORT.match(source[j])
            if old and old.group(1) == new.group(1) and old.group(2) != new.group(2):
                return [
                    f"{chunk.where()} end on the new line {chunk.lines[k].strip()!r} next to "
                    f"a marker, and the merge deletes original line {j + 1} "
                    f"({source[j].strip()!r}) beyond it: unclear whether the new import "
                    "replaces it or is added beside it"
                ]
    return []


def _to_blank_edges(
    chunk: Chunk,
    span: Span,
    source: list[str],
    bounds: tuple[int, int],
    markers: tuple[bool, bool],
) -> None:
    """A chunk set off from its marker by a blank line that opens (ends) with new lines edits
    from a blank original line on: where the original lines between that blank line and the
    chunk's first (last) match read as the old version of those new lines (most of them like
    one of the new lines), they are what the new lines replace, not lines the marker keeps.
    Where the last line is a kept line the chunk writes shallower, bare closers before the
    blank line close the blocks it was taken out of, and go."""
    lines = chunk.lines
    shown = [k for k, line in enumerate(lines) if line.strip()]
    if not shown or not span.matched:
        return
    lower, upper = bounds
    first, last = shown[0], shown[-1]
    if markers[0] and first > 0 and first not in span.matched and span.a > lower:
        new = [lines[k] for k in range(first, min(span.matched)) if lines[k].strip()]
        j = span.a
        while j > lower and source[j - 1].strip():
            j -= 1
        if j > lower and (
            _old_version(source[j : span.a], new) or _comment_rewrite(source[j : span.a], new)
        ):
            span.a = j
    if markers[1] and last < len(lines) - 1 and last not in span.matched and span.b < upper:
        new = [lines[k] for k in range(max(span.matched) + 1, last + 1) if lines[k].strip()]
        j = span.b
        while j < upper and source[j].strip():
            j += 1
        if j < upper and (
            _old_version(source[span.b : j], new) or _statement_tail(source, span, j)
        ):
            span.b = j
    elif markers[1] and last == len(lines) - 1 and last not in span.matched and span.b < upper:
        # New comment lines right at the marker, after a matched comment line: where the
        # original's comment lines there, up to the end of the paragraph (an empty comment
        # line or other code), read as their old version, the chunk reflows that paragraph.
        new = [lines[k] for k in range(max(span.matched) + 1, last + 1) if lines[k].strip()]
        if _line_kind(lines[max(span.matched)]) != "comment" or not all(
            _line_kind(line) == "comment" and _comment_words(line) for line in new
        ):
            return
        j = span.b
        while j < upper and _line_kind(source[j]) == "comment" and _comment_words(source[j]):
            j += 1
        if j > span.b and _reflowed(source[span.b : j], new):
            span.b = j
    elif markers[1] and last < len(lines) - 1 and last in span.matched and span.b < upper:
        # The chunk's last line, written shallower than its match (the code taken out of a
        # block: an `if`/`else` unwrapped), then a blank line: the original closers between
        # its match and the blank line, no shallower than the chunk writes it, close the
        # blocks the chunk removed.
        depth = indent_width(lines[last])
        if depth >= indent_width(source[span.matched[last]]):
            return
        j = span.b
        while j < upper and source[j].strip():
            text = source[j].strip()
            if any(c.isalnum() for c in text) or indent_width(source[j]) < depth:
                return
            j += 1
        if j < upper and j > span.b:
            span.b = j


def _bracket_closer(text: str) -> bool:
    """Whether a line is only closing brackets and punctuation (`}`, `});`, `],`)."""
    return text.startswith(("}", ")", "]")) and not any(c.isalnum() for c in text)


def _bracket_balance(lines: list[str]) -> int:
    """Opening minus closing brackets in the lines, string literals left out."""
    total = 0
    for line in lines:
        text = STRING_LITERAL.sub("", line)
        total += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
    return total


def _closers_after_new_code(chunk: Chunk, span: Span, index: Index) -> None:
    """A chunk that ends, before a marker, on closing lines (`}`) it leaves unmatched, after
    new lines that open exactly as many brackets as the run of closing lines matched just
    before them closes, with its closing lines the first lines of that run: the new code is
    written before the original's closers, and the chunk's last closers are those closers
    (the marker keeps the rest of the run). Read the other way, the run is matched where it
    stands and the chunk's closers are new, leaving the new code's blocks unclosed."""
    keys = chunk.keys
    if not span.matched:
        return
    shown = [k for k, kk in enumerate(keys) if kk]
    tail: list[int] = []
    for k in reversed(shown):
        if k in span.matched or not keys[k].startswith(("}", ")", "]")):
            break
        tail.insert(0, k)
    last = max(span.matched)
    if not tail or last >= tail[0]:
        return
    run: list[int] = []  # the matched closers just before the new lines, chunk lines
    k = last
    while k in span.matched and keys[k].startswith(("}", ")", "]")):
        if run and span.matched[k] != span.matched[run[0]] - 1:
            break
        run.insert(0, k)
        k -= 1
    m = len(tail)
    if len(run) <= m or span.matched[run[-1]] != span.b - 1 or len(span.matched) == len(run):
        return
    if run[-1] != last or _bracket_balance(chunk.lines[last + 1 : tail[0]]) != len(run):
        return
    if any(
        keys[t] != keys[c] or indent_width(chunk.lines[t]) != indent_width(chunk.lines[c])
        for t, c in zip(tail, run, strict=False)
    ):
        return
    ja = span.matched[run[0]]
    for c in run:
        del span.matched[c]
    for n, t in enumerate(tail):
        span.matched[t] = ja + n
    span.b = ja + m


def _closer_past_span(chunk: Chunk, span: Span, index: Index, upper: int, delta: int) -> None:
    """A chunk that ends, before a marker, on a closing line (`}`) it leaves unmatched (or
    matched at another depth, another block's) right after a line that is no original line
    there (new code), where its lines close more brackets than the original lines it
    replaces: read so, that closer ends a block the original's own closer ends again. It is
    the original's closer where the lines after the chunk's span first close as many brackets
    as the chunk closes beyond them, at the closer's depth (the sketch shows the block's end
    after its new code; the lines between, no marker standing for them, go)."""
    keys = chunk.keys
    shown = [k for k, kk in enumerate(keys) if kk]
    if not span.matched or not shown:
        return
    close = shown[-1]
    if not keys[close].startswith(("}", ")", "]")):
        return
    depth = indent_width(chunk.lines[close]) - delta
    if len(shown) < 2:
        return
    old = span.matched.get(close)
    if old is not None and (old != span.b - 1 or index.indents[old] == depth):
        return
    before = span.matched.get(shown[-2])
    if before is not None and index.indents[before] == indent_width(chunk.lines[shown[-2]]) - delta:
        return  # an original line then the closer: lines left out after it, or deleted?
    lines = index.lines
    need = _bracket_balance(chunk.lines) - _bracket_balance(lines[span.a : span.b])
    total = 0
    found = -1
    for j in range(span.b, min(upper, span.b + MAX_GAP) if need < 0 else span.b):
        total += _bracket_balance([lines[j]])
        if total <= need:
            if total == need and index.keys[j] == keys[close] and index.indents[j] == depth:
                found = j
            break
    if found < 0 or (old is not None and found != span.b):
        return  # a closer matched at another depth moves only to the line after it
    span.matched[close] = found
    k, i = close - 1, found - 1  # the chunk's lines just before the closer, the same lines there
    while k >= 0 and k not in span.matched and i >= span.b and keys[k] == index.keys[i]:
        span.matched[k] = i
        k, i = k - 1, i - 1
    span.b = found + 1


def _statement_tail(source: list[str], span: Span, j: int) -> bool:
    """Whether original lines span.b..j (up to a blank line) are the rest of a statement whose
    head the chunk replaces: they close exactly the brackets that the original lines the chunk
    drops open (`x = compile(` gone, `    "..."` and `).match` left). Kept without their head
    they would not parse; the chunk, ending with a blank line before its marker, ends there."""
    tail = _bracket_balance(source[span.b : j])
    if tail >= 0:
        return False
    used = set(span.matched.values())
    dropped = [source[x] for x in range(span.a, span.b) if x not in used]
    return _bracket_balance(dropped) == -tail


def _reach_shown_edges(
    chunk: Chunk,
    span: Span,
    index: Index,
    bounds: tuple[int, int],
    markers: tuple[bool, bool],
) -> None:
    """A chunk whose first (last) line, next to a marker, is a telling original line found
    once a little before (after) its match: the sketch shows it next to the chunk's other
    lines, so the original lines between them go (a deletion shown by leaving lines out).
    Reading that line as new code instead would write it twice."""
    if not span.matched:
        return
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    if len(shown) < 2:
        return
    keys = chunk.keys
    lower, upper = bounds
    k, k0 = shown[0], min(span.matched)
    if markers[0] and k < k0 and weight(keys[k]) >= STRONG:
        found = [
            j
            for j in index.positions.get(keys[k], ())
            if lower <= j < span.a and span.a - j <= MAX_GAP + (k0 - k)
        ]
        opens = indent_width(chunk.lines[shown[1]]) > indent_width(chunk.lines[k])
        if (
            len(found) == 1
            and _depth_agrees(chunk, index, span, k, found[0])
            # A header whose body the chunk shows: its match must be inside that block.
            and not (opens and span.matched[k0] > block_end(index, found[0]))
        ):
            match_between(keys, index, span.matched, k, k0, found[0], span.matched[k0])
            span.matched[k] = found[0]
            span.a = found[0]
    k, k1 = shown[-1], max(span.matched)
    if markers[1] and k > k1 and weight(keys[k]) >= STRONG:
        found = [
            j
            for j in index.positions.get(keys[k], ())
            if span.b <= j < upper and j - span.b <= MAX_GAP + (k - k1)
        ]
        if len(found) == 1 and _depth_agrees(chunk, index, span, k, found[0]):
            match_between(keys, index, span.matched, k1, k, span.matched[k1], found[0])
            span.matched[k] = found[0]
            span.b = found[0] + 1


def _comment_before_next(chunk: Chunk, span: Span, source: list[str], upper: int) -> None:
    """A chunk that ends, next to a marker, with blank lines and then new comment lines (a
    doc comment) writes the comment of the code after the marker: the blank lines are the
    original's between the match and that code, and the comment sits right above the code."""
    if not span.matched:
        return
    lines = chunk.lines
    k1 = max(span.matched)
    tail = list(range(k1 + 1, len(lines)))
    blanks = [k for k in tail if not lines[k].strip()]
    words = [k for k in tail if lines[k].strip()]
    if not blanks or not words or max(blanks) > min(words):
        return  # not blank lines first, then the rest
    if not all(_line_kind(lines[k]) == "comment" for k in words):
        return
    j = span.b
    run = 0
    while j + run < upper and not source[j + run].strip():
        run += 1
    after = j + run
    if run != len(blanks) or after >= upper:
        return
    if indent_width(source[after]) != indent_width(lines[words[0]]):
        return
    if _line_kind(source[after]) == "comment":
        return  # the code there has a comment of its own: the new one may go beside it
    for offset, k in enumerate(blanks):
        span.matched[k] = j + offset
    span.b = after


def _comment_words(line: str) -> bool:
    """Whether a comment line holds text past its comment opener (not a bare `//!`, `#`);
    a Rust attribute (`#[...]`) is code, not a comment."""
    return any(c.isalnum() for c in line) and not line.lstrip().startswith(("#[", "#!["))


_REFLOW = 0.8  # the share of a paragraph's words its reflowed lines hold, at least


def _reflowed(old: list[str], new: list[str]) -> bool:
    """Whether comment lines say what the new ones say, broken at other places (a reflow):
    they end on the same words, and the new lines hold most of their words."""
    if len(old) > 2 * len(new) + 2:
        return False
    before = [re.findall(r"\w+", line) for line in old]
    after = [re.findall(r"\w+", line) for line in new]
    if before[-1][-2:] != after[-1][-2:]:
        return False
    words = {w for line in before for w in line}
    held = {w for line in after for w in line}
    return len(words & held) >= _REFLOW * len(words)


def _depth_agrees(chunk: Chunk, index: Index, span: Span, k: int, j: int) -> bool:
    """Whether chunk line k sits against original line j as the chunk's matched lines sit
    against theirs (the same indentation shift)."""
    shifts = {indent_width(chunk.lines[x]) - index.indents[y] for x, y in span.matched.items()}
    return indent_width(chunk.lines[k]) - index.indents[j] in shifts


_OLD_VERSION = 0.5  # the share of passed-over lines that must read as one of the new lines


def _old_version(old: list[str], new: list[str]) -> bool:
    """Whether original lines read as an older version of new ones: at the new lines' depth
    or deeper (the same block), and most of them like some new line."""
    if not old or not new or len(old) > 2 * len(new) + 2:
        return False
    depth = min(indent_width(line) for line in new)
    if any(indent_width(line) < depth for line in old):
        return False
    texts = [line.strip() for line in new]
    alike = 0
    for line in old:
        text = line.strip()
        if text in texts or any(
            difflib.SequenceMatcher(None, text, other, autojunk=False).ratio() >= _LIKE
            for other in texts
        ):
            alike += 1
    return alike >= max(1, _OLD_VERSION * len(old))


def _comment_rewrite(old: list[str], new: list[str]) -> bool:
    """Whether original lines are one comment paragraph that new comment lines rewrite: all
    comments with words, the new ones too, and the first new line starts as the first old one
    does (a comment cut short or reworded from its opening words on)."""
    if not old or not new:
        return False
    if not all(_line_kind(line) == "comment" and _comment_words(line) for line in old + new):
        return False
    return similar(new[0], old[0])


def _kept_blanks(
    chunk: Chunk, span: Span, source: list[str], drop: set[int], marked: bool = False
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Blank original lines a chunk keeps although it does not show them: planners drop
    blank lines (a chunk without any blank line has dropped them). Between two lines of the
    chunk matched to original lines, the blank lines that open the original stretch between
    them stay after the first, and those that close it (when the sketch writes lines between
    the two) before the second. Not where the chunk writes new lines between the two and the
    sketch writes a marker at both its edges and some blank line (`marked`): a sketch that
    careful shows the lines of the stretch it rewrites (changed lines and their context),
    blank ones too. A sketch without any blank line cannot say so: it has dropped them all.
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
        if shown and marked:
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


def _blank_guess(chunk: Chunk, span: Span, source: list[str], gone: list[int]) -> list[str]:
    """A sketch without edge markers is loosely written: it may drop blank lines, so which
    of the original's blank lines it keeps is a guess wherever it matters. A blank line the
    merge deletes in a chunk's stretch, or one between two lines the chunk shows (next to each
    other, or with new lines between them), goes or stays by guess.

    Returns doubts: reasons to refuse this reading should it be the one chosen."""
    blanks = [j for j in gone if not source[j].strip()]
    if blanks:
        return [
            f"{chunk.where()} leave out edge markers and the merge deletes original blank "
            f"line {blanks[0] + 1}: unclear whether the sketch deletes it or dropped it"
        ]
    anchors = sorted(span.matched.items())
    for (k1, j1), (k2, j2) in itertools.pairwise(anchors):
        new = any(chunk.lines[k].strip() for k in range(k1 + 1, k2)) or k2 == k1 + 1
        if new and any(not source[j].strip() for j in range(j1, j2 + 1)):
            return [
                f"{chunk.where()} leave out edge markers and the original's blank lines "
                f"around original lines {j1 + 1}-{j2 + 1}: unclear whether those blank lines "
                "stay, and where"
            ]
    return []


_EMPTY_COMMENT = frozenset({"#", "//", "///", "//!", "*", "--", ";", "%"})


def _empty_comment_bounds(chunk: Chunk, span: Span, index: Index, gone: list[int]) -> list[str]:
    """A telling original line the merge deletes between two chunk lines that are empty
    comment lines (`///` between doc paragraphs), one of them the chunk's edge line, where no
    new line between them reads as its new version: an empty comment line recurs all through
    a comment, and one at the chunk's edge has no telling line beyond it to pin it, so matched
    at another copy the chunk keeps that line and only adds its own: which is meant is a
    guess."""
    if not gone or len(span.matched) < 2:
        return []
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    anchors = sorted(span.matched.items())
    for (k1, j1), (k2, j2) in itertools.pairwise(anchors):
        if j2 - j1 < 2 or (k1 != shown[0] and k2 != shown[-1]):
            continue
        if chunk.keys[k1] not in _EMPTY_COMMENT or chunk.keys[k2] not in _EMPTY_COMMENT:
            continue
        lost = [j for j in gone if j1 < j < j2 and weight(index.keys[j]) >= STRONG]
        new = [chunk.keys[k] for k in range(k1 + 1, k2) if chunk.keys[k]]
        if lost and not any(
            difflib.SequenceMatcher(None, index.keys[j], line, autojunk=False).ratio() >= _LIKE
            for j in lost
            for line in new
        ):
            return [
                f"{chunk.where()} delete original line {lost[0] + 1} between two empty "
                "comment lines, which recur: unclear whether it goes or stays"
            ]
    return []


def _closer_led_rename(chunk: Chunk, span: Span, source: list[str], gone: list[int]) -> list[str]:
    """A chunk that opens with a bare closer (`}`) and then writes a new definition, read as
    renaming the original definition it deletes there: the closer ends any definition, so
    the chunk may as well add its definition after the one it seems to rename."""
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    if not shown or shown[0] not in span.matched:
        return []
    opener = chunk.lines[shown[0]].strip()
    if not _bracket_closer(opener):
        return []
    text = "\n".join(chunk.lines)
    old = {n for n in (declared_name(source[j]) for j in gone) if n and n not in text}
    if not old:
        return []
    for k in shown:
        name = declared_name(chunk.lines[k])
        if k in span.matched or name is None or name in old:
            continue
        width = indent_width(chunk.lines[k])
        if any(declared_name(source[j]) in old and indent_width(source[j]) == width for j in gone):
            return [
                f"{chunk.where()} open with a closing line and read as renaming a definition "
                f"into {name}: unclear whether they rename it or add {name} after it"
            ]
    return []


def _other_copy_doubts(
    chunk: Chunk, span: Span, index: Index, bounds: tuple[int, int]
) -> list[str]:
    """A chunk that rewrites lines of one block while another block in reach opens with the
    same line after the same line (two `if (extraInfo.length > 0) {` blocks), and its new
    lines use a name the block it edits lacks but the other block holds: the chunk reads as
    that other block's new version, which the first one already resembles."""
    openers = [k for k in sorted(span.matched) if weight(chunk.keys[k]) >= STRONG]
    new = [line for k, line in enumerate(chunk.lines) if line.strip() and k not in span.matched]
    if not openers or not new:
        return []
    k = openers[0]
    j = span.matched[k]
    words = set(_WORD.findall(" ".join(new))) - _COMMON_WORDS
    mine = set(_WORD.findall(" ".join(index.lines[span.a : span.b])))
    fresh = words - mine
    if not fresh:
        return []
    for other in index.positions.get(chunk.keys[k], ()):
        if other == j or not bounds[0] <= other < bounds[1] or span.a <= other < span.b:
            continue
        if _next_key(index, other, -1) != _next_key(index, j, -1):
            continue
        theirs = set(_WORD.findall(" ".join(index.lines[other : block_end(index, other) + 1])))
        if fresh & theirs:
            return [
                f"{chunk.where()} fit the block at original line {j + 1} but use "
                f"{sorted(fresh & theirs)[0]!r} like the block at line {other + 1}, which opens "
                "the same way: unclear which block they rewrite"
            ]
    return []


_FUNCTION = re.compile("function|method")


def _same_method_doubts(chunk: Chunk, span: Span, index: Index, named: _Definitions) -> list[str]:
    """A chunk that rewrites lines of a function while another function of the same name (the
    same method in another `impl` block) holds the chunk's first telling line after the same
    line, and the chunk's new lines use more names that function holds and the one it edits
    lacks than the chunk matches telling lines the other lacks: the chunk reads as the other
    function's new version, which the first one resembles in its shape (`match self` arms
    written for an `Option` placed in the `Result` method alike)."""
    told = [k for k in sorted(span.matched) if weight(chunk.keys[k]) >= STRONG]
    new = [line for k, line in enumerate(chunk.lines) if line.strip() and k not in span.matched]
    if not told or not new:
        return []
    j = span.matched[told[0]]
    others = [
        other
        for other in index.positions.get(chunk.keys[told[0]], ())
        if not span.a <= other < span.b and _next_key(index, other, -1) == _next_key(index, j, -1)
    ]
    fresh = set(_WORD.findall(" ".join(new))) - _COMMON_WORDS
    fresh -= set(_WORD.findall(" ".join(index.lines[span.a : span.b])))
    if not others or not fresh:
        return []
    mine = [d for d in named.every() if d.start <= j <= d.end and _FUNCTION.search(d.kind)]
    if not mine:
        return []
    home = max(mine, key=lambda d: d.start)
    fresh -= set(_WORD.findall(" ".join(index.lines[home.start : home.end + 1])))
    siblings = [d for d in named.named(home.name) if d.kind == home.kind and d is not home]
    words = [set(_WORD.findall(" ".join(index.lines[d.start : d.end + 1]))) for d in siblings]
    # A name that several of the other functions use points at none of them in particular.
    fresh = {name for name in fresh if sum(name in held for held in words) == 1}
    for d, held in zip(siblings, words, strict=True):
        if d.start <= j <= d.end:
            continue
        if not any(d.start <= other <= d.end for other in others):
            continue
        theirs = fresh & held
        keys = set(index.keys[d.start : d.end + 1])
        if len(theirs) > sum(1 for k in told if chunk.keys[k] not in keys):
            return [
                f"{chunk.where()} fit {home.name} at original line {home.start + 1} but use "
                f"{sorted(theirs)[0]!r} like the {home.name} at line {d.start + 1}: unclear "
                "which of the two they rewrite"
            ]
    return []


def _closer_reach_doubts(chunk: Chunk, span: Span, index: Index) -> list[str]:
    """A bare closer (`]`, `}`) that ends the chunk, matched past more original lines at its own
    depth than the chunk writes there since its previous match: the lines passed over are other
    statements, so the closer read there is another construct's, and the deletion of the
    lines between rests on punctuation alone."""
    pairs = sorted(span.matched.items())
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    for (k1, j1), (k2, j2) in itertools.pairwise(pairs):
        text = chunk.keys[k2]
        if k2 != shown[-1]:
            continue  # inside the chunk, the lines after it say where it is
        if j2 - j1 < 3 or not _bracket_closer(text):
            continue
        depth = index.indents[j2]
        column = indent_width(chunk.lines[k2])
        old = sum(1 for j in range(j1 + 1, j2) if not index.blank[j] and index.indents[j] <= depth)
        new = sum(
            1 for k in range(k1 + 1, k2) if chunk.keys[k] and indent_width(chunk.lines[k]) <= column
        )
        if old >= 2 and old > new:
            return [
                f"{chunk.where()} close a construct with line {chunk.first + k2 + 1} "
                f"({text!r}), matched at original line {j2 + 1} past {old} lines as shallow "
                "as it, which the sketch leaves out: unclear which construct it closes"
            ]
    return []


def _neighbours(keys: list[str], k: int, matched: dict[int, int]) -> tuple[str, str]:
    """The keys of the non-blank lines before and after line k, where the reading matched
    them to original lines ("" where not, or at an end): a new line between kept ones."""
    up = next((x for x in range(k - 1, -1, -1) if keys[x]), -1)
    down = next((x for x in range(k + 1, len(keys)) if keys[x]), -1)
    return (keys[up] if up in matched else "", keys[down] if down in matched else "")


def _around(index: Index, j: int) -> tuple[str, str]:
    return _next_key(index, j, -1), _next_key(index, j, 1)


def _copied_doubts(
    sketch: LazySketch,
    placed: list[tuple[str, str, str, int, int]],
    kept: set[int],
    index: Index,
    pinned: list[tuple[list[str], dict[int, int], int]],
) -> list[str]:
    """A telling line the original and the sketch each hold once, written as new code while
    the original's copy stays: the chunk was placed next to the lines it shows, not over them
    (the reading that is right may delete a definition the sketch never mentions). Far from
    the original's copy (beyond the markers next to the chunk), or between other lines than
    there, the line is deliberate code copied or moved elsewhere. One kept neighbour that
    agrees is enough when the other is new, unless it is a bare closer (`}`, which ends every
    block) and, on the new side, the chunk goes on past the lines it shares with the
    original's copy to a kept line the copy does not have there: the chunk puts the line
    beside other code than the copy's."""
    shown = Counter(k for chunk in sketch.chunks for k in chunk.keys)
    for (text, up, down, a, b), (keys, matched, at) in zip(placed, pinned, strict=True):
        k = key(text)
        if len(k) < _TELLING_LENGTH or weight(k) < STRONG or shown[k] != 1:
            continue
        found = index.positions.get(k, [])
        if len(found) != 1 or not (up or down):
            continue
        j = found[0]
        closer = not (up and down) and not any(c.isalnum() for c in up or down)
        if closer and _kept_elsewhere(keys, matched, at, index, j, 1 if up else -1):
            continue
        if closer and _closer_alone(keys, matched, at, index, j, -1 if up else 1):
            continue
        before, after = _around(index, j)
        # A neighbour written new too (the line before it edited) says nothing either way.
        if a <= j < b and j in kept and up in ("", before) and down in ("", after):
            return [
                f"the sketch's line {k[:60]!r} would appear twice: the original has it once "
                f"(line {j + 1}) and the sketch's copy was placed elsewhere"
            ]
    return []


def _kept_elsewhere(
    keys: list[str], matched: dict[int, int], k: int, index: Index, j: int, step: int
) -> bool:
    """Chunk line k and original line j hold the same line: walking from them in direction
    `step` (blank lines skipped) past the lines both hold, the first line that differs is,
    in the chunk, one matched to the original (kept code, not the copy's neighbour)."""
    for ck, oj in side_by_side(keys, index, k, j, step):
        if not 0 <= ck < len(keys):
            return False
        if not 0 <= oj < len(index.keys) or keys[ck] != index.keys[oj]:
            return ck in matched
    return False  # the walk always leaves the chunk


def _closer_alone(
    keys: list[str], matched: dict[int, int], k: int, index: Index, j: int, step: int
) -> bool:
    """Chunk line k and original line j hold the same line, and their neighbours in direction
    `step` agree only on bare closers (`}`): past those, the chunk goes on with a new line
    where the original's copy goes on with another line. A `}` ends every block, so the
    agreement says nothing: the sketch writes the line amid other code than the copy's."""
    for shared, (ck, oj) in enumerate(side_by_side(keys, index, k, j, step)):
        if not 0 <= ck < len(keys) or not 0 <= oj < len(index.keys):
            return False
        if keys[ck] != index.keys[oj]:
            return shared > 0 and ck not in matched  # past at least one shared closer
        if any(c.isalnum() for c in keys[ck]):
            return False
    return False  # the walk always leaves the chunk or the file


def _crossed_doubts(chunk: Chunk, span: Span, index: Index, gone: list[int]) -> list[str]:
    """A telling line the original holds once, among the lines a chunk replaces, that the chunk
    shows once but as new code while the merge deletes the original's copy: the chunk's other
    lines were matched across it (lines shown before it to original lines after it, or after
    it to lines before it), and where each line so matched is one the original repeats
    (`},`, a common comment), the reading rests on lines that repeat rather than on the one
    line that does not: the chunk's new lines were read as edits of lines they only resemble.
    (Code moved within a chunk crosses lines the original holds once.)"""
    if not gone:
        return []
    counts = Counter(chunk.keys)
    new = {text: k for k, text in enumerate(chunk.keys) if k not in span.matched and text}
    for j in gone:
        text = index.keys[j]
        k = new.get(text)
        if k is None or counts[text] != 1 or len(text) < _TELLING_LENGTH or weight(text) < STRONG:
            continue
        if len(index.positions.get(text, ())) != 1:
            continue
        crossing = [index.keys[j2] for k2, j2 in span.matched.items() if (k2 < k) == (j2 > j)]
        if len(crossing) >= _CROSSED and all(len(index.positions.get(x, ())) > 1 for x in crossing):
            return [
                f"{chunk.where()} write line {chunk.first + k + 1} as new code and delete the "
                f"original's only copy of it (line {j + 1}) among the lines they replace: "
                "unclear how their other lines line up with the original"
            ]
    return []


def _check_edges(
    chunk: Chunk, span: Span, index: Index, bounds: tuple[int, int], markers: tuple[bool, bool]
) -> list[str]:
    """Refuse a chunk whose first (last) line, next to a marker, is written as new code while
    the very same line sits among the original lines that marker stands for: the chunk most
    likely starts (ends) there, and the placement found reads it as another copy.

    Returns doubts: reasons to refuse this reading should it be the one chosen."""
    if not span.matched:
        return []
    lines = [k for k, line in enumerate(chunk.lines) if line.strip()]
    keys = chunk.keys
    if len(lines) < 2:
        return []
    doubts: list[str] = []
    sides = (
        (markers[0], lines[0], lines[1], 1, bounds[0], span.a),
        (markers[1], lines[-1], lines[-2], -1, span.b, bounds[1]),
    )
    for marker, k, k2, step, lo, hi in sides:
        if marker and k in span.matched and k2 not in span.matched:
            doubts.extend(_weak_edge_doubt(chunk, span.matched[k], keys[k], index, -step, (lo, hi)))
        if not marker or k in span.matched or weight(keys[k]) < WORDY:
            continue
        # It could start (end) there when the original goes on there as the chunk does.
        # A first line the file holds once, telling, is context wherever it stands.
        found = index.positions.get(keys[k], ())
        unique = step > 0 and len(found) == 1 and weight(keys[k]) >= STRONG
        if any(lo <= j < hi and (unique or _next_key(index, j, step) == keys[k2]) for j in found):
            raise RefusedMerge(
                f"{chunk.where()} write line {chunk.first + k + 1} as new code though the same "
                "line is among the original lines a marker next to it stands for: unclear "
                "where the chunk starts"
            )
    return doubts


def _weak_edge_doubt(
    chunk: Chunk, j: int, text: str, index: Index, step: int, bounds: tuple[int, int]
) -> list[str]:
    """Refuse a chunk whose edge line, next to a marker and after (before) new lines, is a
    common line (`x = x + 1`) the same block repeats a little further under that marker: the
    new lines may be inserted before the first copy or replace the lines up to the second."""
    if not WORDY <= weight(text) < STRONG:
        return []  # punctuation (`}`, `/**`) repeats everywhere; telling lines anchor alone
    width = index.indents[j]
    other = j + step
    reach = 0
    while bounds[0] <= other < bounds[1] and reach <= _EDGE_REACH:
        if not index.blank[other]:
            if index.indents[other] < width:
                return []  # the block ends: a copy further on is another block's
            if index.keys[other] == text:
                return [
                    f"{chunk.where()} have a common line next to new code at their edge, and "
                    f"the same block repeats it at original line {other + 1} under the marker "
                    "next to it: unclear whether the new code is inserted or replaces the "
                    "lines between"
                ]
            reach += 1
        other += step
    return []


def _next_key(index: Index, j: int, step: int) -> str:
    """The key of the next non-blank original line from j in direction `step`."""
    j += step
    while 0 <= j < len(index.keys) and index.blank[j]:
        j += step
    return index.keys[j] if 0 <= j < len(index.keys) else ""


class _Definitions:
    """The original's definitions by name, parsed only when a chunk asks."""

    def __init__(self, lines: list[str], lang: Language) -> None:
        self.lines = lines
        self.lang = lang
        self._by_name: dict[str, list[Definition]] | None = None

    def named(self, name: str) -> list[Definition]:
        if self._by_name is None:
            self._by_name = {}
            if self.lang.has_grammar:
                for d in definitions("\n".join(self.lines), self.lang.name):
                    self._by_name.setdefault(d.name, []).append(d)
        return self._by_name.get(name, [])

    def every(self) -> list[Definition]:
        self.named("")
        return [d for found in (self._by_name or {}).values() for d in found]


def _replaced_definition(
    chunk: Chunk, span: Span, source: list[str], lower: int, named: _Definitions
) -> int:
    """A chunk after a marker that opens with a new declaration of a name the original
    declares right above the chunk's match replaces that declaration (a changed edge line)."""
    first = min(span.matched)
    lead = [k for k in range(first) if chunk.lines[k].strip()]
    if not lead:
        return span.a
    name = declared_name(chunk.lines[lead[0]])
    if name is None:
        return span.a
    for d in named.named(name):
        if (
            lower <= d.start
            and d.end < span.a
            and not any(source[j].strip() for j in range(d.end + 1, span.a))
        ):
            return d.start
    return span.a


def _bare_edges(sketch: LazySketch, path: list[Placement], source: list[str], index: Index) -> bool:
    """Whether the sketch leaves out both edge markers while its chunks, split by markers
    inside it, stop short of both edges of the file: it writes no edge markers at all (as a
    snippet without any marker does not), so the lines it leaves out at each edge are kept."""
    if sketch.leading_marker or sketch.trailing_marker or len(path) < 2:
        return False
    first, final = path[0], path[-1]
    if first.floating or final.floating or first.inserted or final.inserted:
        return False
    # Each edge chunk opens (closes) on a line of the original, with more of the file beyond.
    head, tail = sketch.chunks[0].lines, sketch.chunks[-1].lines
    shown_head = [k for k, line in enumerate(head) if line.strip()]
    shown_tail = [k for k, line in enumerate(tail) if line.strip()]
    if first.pairs[0][0] != shown_head[0] or final.pairs[-1][0] != shown_tail[-1]:
        return False
    # Nothing else bounds an edge chunk: its outermost line must say where it is, once in the
    # file (a copy further out could be where it starts, the lines between deleted).
    if (index.count(key(head[shown_head[0]])) != 1 and not _held_on(first.pairs[:2], index)) or (
        index.count(key(tail[shown_tail[-1]])) != 1 and not _held_on(final.pairs[-2:][::-1], index)
    ):
        return False
    # A chunk that changes nothing within itself only shows a deletion at its outer edge.
    if not _edits_within(head, first, source) or not _edits_within(tail, final, source):
        return False
    return any(line.strip() for line in source[: first.pairs[0][1]]) and any(
        line.strip() for line in source[final.pairs[-1][1] + 1 :]
    )


def _held_on(pairs: list[tuple[int, int]], index: Index) -> bool:
    """Whether an edge chunk's outermost line, a telling one that recurs in the file, is
    matched right next to the chunk's next line (adjacent in both, blank lines aside), and
    that next line is telling and found once: the outermost line is then held there by it."""
    if len(pairs) < 2:
        return False
    (k1, j1), (k2, j2) = pairs
    if weight(index.keys[j1]) < STRONG:
        return False  # bare punctuation (`}`) recurs everywhere and holds on to nothing
    lo, hi = (j1, j2) if j1 < j2 else (j2, j1)
    if abs(k2 - k1) != 1 or any(not index.blank[j] for j in range(lo + 1, hi)):
        return False
    inner = index.keys[j2]
    return weight(inner) >= STRONG and index.count(inner) == 1


def _edits_within(lines: list[str], place: Placement, source: list[str]) -> bool:
    """Whether a chunk writes a new line or leaves out original code between two lines it
    shows: an edit inside it, framed by the lines it shows around it."""
    matched = {k for k, _j in place.pairs}
    if any(line.strip() and k not in matched for k, line in enumerate(lines)):
        return True
    return any(
        source[j].strip()
        for (_k1, j1), (_k2, j2) in itertools.pairwise(place.pairs)
        for j in range(j1 + 1, j2)
    )


def _head_start(chunk: Chunk, span: Span, source: list[str], bare: bool = False) -> int:
    """Where a first chunk without a marker before it starts replacing the original.

    A sketch that opens with context from further down the file did not mean to delete the
    file's head (a docstring, a licence, imports): it leaves it out as if a marker stood there.
    Only a sketch whose opening lines rewrite the head (read as edits of its lines) replaces it.
    """
    head = [j for j in range(span.a) if source[j].strip()]
    if not head or not span.matched:
        return 0
    lead = [k for k in range(min(span.matched)) if chunk.lines[k].strip()]
    if not lead and (bare or _line_kind(source[head[-1]]) in ("comment", "string")):
        return span.a  # a docstring or header comment, or a sketch without edge markers
    if not lead and len(head) <= EDGE_LINES:
        return 0  # a sketch this close to the file's start reaches it
    if not lead:
        raise RefusedMerge(
            f"{chunk.where()} start at original line {span.a + 1} with {len(head)} line(s) of "
            "the file before them and no marker: unclear whether the sketch deletes them or "
            'leaves them out (start it with an "existing code" marker to keep them)'
        )
    if any(similar(chunk.lines[k], source[j]) for k in lead for j in head):
        return 0
    new_kind, old_kind = _line_kind(chunk.lines[lead[0]]), _line_kind(source[head[0]])
    if new_kind == old_kind and new_kind in ("comment", "string"):
        return 0  # a new docstring or header comment for the old one
    if new_kind == old_kind:
        raise RefusedMerge(
            f"{chunk.where()} start with new code like the file's first lines but without a "
            "marker before them: unclear whether they replace those lines or go before "
            f"original line {span.a + 1}"
        )
    return span.a


# A sketch without a marker at an edge that stops this many non-blank lines or fewer short of
# it reaches the edge (those lines go); more is unclear. verify.EDGE_CUT says the same.
EDGE_LINES = 3
_TAIL_REACH = 12  # original lines after a last chunk read as what it may rewrite


def _tail_end(chunk: Chunk, span: Span, source: list[str], bare: bool = False) -> int:
    """Where a last chunk without a marker after it stops replacing the original: the mirror
    of `_head_start`. A sketch whose closing lines rewrite the file's last lines (read as
    edits of them) replaces them; one that stops on an original line, or with new code unlike
    what follows, with more of the file after it, is unclear (deleted or left out?) and
    refused, as the same sketch stopping short of the file's start is."""
    n = len(source)
    tail = [j for j in range(span.b, n) if source[j].strip()]
    if not tail or not span.matched:
        return n
    near = tail[:_TAIL_REACH]
    trail = [k for k in range(max(span.matched) + 1, len(chunk.lines)) if chunk.lines[k].strip()]
    if trail and any(similar(chunk.lines[k], source[j]) for k in trail for j in near):
        return n
    if bare and not trail:
        return span.b  # a sketch without edge markers leaves the file's end out, as its start
    if len(tail) <= EDGE_LINES:
        return n  # a sketch this close to the file's end reaches it
    raise RefusedMerge(
        f"{chunk.where()} stop at original line {span.b} with {len(tail)} more line(s) of the "
        "file after them and no marker: unclear whether the sketch deletes them or leaves them "
        'out (end it with an "existing code" marker to keep them)'
    )


def _line_kind(line: str) -> str:
    """What a line opens with: a comment, a string (docstring), or a code keyword."""
    text = line.strip()
    if text.startswith(("#", "//", "/*", "*", "--", ";", "<!--")):
        return "comment"
    if text[:1] in "\"'`" or text[:2] in ('r"', "r'", 'b"', "f'", 'f"'):
        return "string"
    word = text.split()[0] if text.split() else ""
    return "import" if word == "from" else word  # Python's two import statements: one kind


def _float_span(chunk: Chunk, place: Placement, source: list[str], bounds: tuple[int, int]) -> Span:
    """A chunk that matches nothing, at the start or end of the file: lines it edits (similar
    to the original's first or last lines) replace them."""
    span = Span(place.a, place.b, {})
    lines = chunk.lines
    if place.a == 0:
        k = 0
        while k < len(lines) and span.b < bounds[1] and similar(lines[k], source[span.b]):
            k += 1
            span.b += 1
    else:
        closing = _closes_file(lines, source, bounds[0])
        if closing:
            # `}` `}` then new code after a marker: the marker's block closes with the file's
            # last lines (too common to anchor anywhere) and the new code follows them.
            span.a = min(closing.values())
            span.matched = closing
            return span
        k = len(lines) - 1
        while k >= 0 and span.a > bounds[0] and similar(lines[k], source[span.a - 1]):
            k -= 1
            span.a -= 1
    return span


def _closes_file(lines: list[str], source: list[str], lower: int) -> dict[int, int]:
    """The chunk's opening closers (`}`, `)`) that are, line for line and at the same
    depth, the file's last non-blank lines, followed in the chunk by more code: chunk line →
    original line, or empty when they are not."""
    heads = [k for k, line in enumerate(lines) if line.strip()]
    tail = [j for j in range(len(source) - 1, lower - 1, -1) if source[j].strip()]
    found: list[dict[int, int]] = []
    for m in range(1, min(len(heads) - 1, len(tail)) + 1):
        if weight(key(lines[heads[m - 1]])) >= WORDY:
            break
        pairs = dict(zip(heads[:m], reversed(tail[:m]), strict=True))
        if all(_same(lines[k], source[j]) for k, j in pairs.items()):
            found.append(pairs)
    # Two ways to line them up (`}` `}` at one depth): which lines close the file is a guess.
    return found[0] if len(found) == 1 else {}


def _same(text: str, original: str) -> bool:
    """Whether writing the original line instead of the sketch's changes nothing but bytes of
    whitespace the file owns (trailing spaces, tabs against spaces of the same width)."""
    return text.strip() == original.strip() and indent_width(text) == indent_width(original)


def _as_file(
    line: str, tabs: bool, unit: int, sketch_tabs: bool, sketch_unit: int, delta: int
) -> str:
    """A sketch line in the file's indentation style and at the file's depth."""
    if tabs != sketch_tabs and leading(line):
        line = convert_indent(line, to_tabs=tabs, unit=unit if not tabs else sketch_unit)
    if delta:
        line = reindent(line, -delta, tabs=tabs, unit=unit)
    return line


def _comment_goes_on(chunk: Chunk, span: Span, source: list[str], upper: int) -> list[str]:
    """A chunk that ends, right at a marker, on new comment lines written over fewer old ones
    (the lines after its last kept line rewrite or delete some original lines, and add more),
    where the original's comment goes on after the lines it replaces (the next original line
    is a comment line with words at the same depth): the merge joins the new lines to the
    rest of the old comment, which may as well be the old version of the lines it adds, and
    whether that rest stays or the new lines rewrite it too is a guess. (Lines only added,
    or as many old lines rewritten as new ones written, keep the rest.)"""
    lines = chunk.lines
    last = len(lines) - 1
    if last < 0 or last in span.matched or not lines[last].strip():
        return []
    if _line_kind(lines[last]) != "comment":
        return []
    j = span.b
    if j + 1 < upper and not source[j].strip() and _stacked_comment(chunk, span, source, j + 1):
        return [
            f"{chunk.where()} end on a new comment at a marker, set off by a blank line, right "
            f"before the original's own comment (original line {j + 2}): unclear whether the "
            "new comment replaces it"
        ]
    if j >= upper or _line_kind(source[j]) != "comment" or not _comment_words(source[j]):
        return []
    if indent_width(source[j]) != indent_width(lines[last]):
        return []
    kept = [k for k, at in span.matched.items() if key(lines[k]) == key(source[at])]
    if not kept:
        return []
    k0 = max(kept)
    new = [k for k in range(k0 + 1, last + 1) if lines[k].strip()]
    replaced = j - (span.matched[k0] + 1)
    if len(new) < 2 or replaced < 1 or len(new) <= replaced:
        return []  # lines only added, or as many old lines rewritten as the chunk writes
    return [
        f"{chunk.where()} end on new comment lines at a marker, written over old ones, and "
        f"the original's comment goes on after them (original line {j + 1}): unclear "
        "whether the rest of that comment stays or the new lines rewrite it too"
    ]


def _stacked_comment(chunk: Chunk, span: Span, source: list[str], j: int) -> bool:
    """The chunk's trailing new comment lines (two or more, after a blank line it writes and
    its last matched line) would stand right above original comment line j, at their depth:
    two comments stacked over one declaration."""
    lines = chunk.lines
    if _line_kind(source[j]) != "comment" or not _comment_words(source[j]):
        return False
    tail: list[int] = []
    k = len(lines) - 1
    while k >= 0 and lines[k].strip() and k not in span.matched:
        tail.append(k)
        k -= 1
    if len(tail) < 2 or k < 0 or lines[k].strip() or max(span.matched, default=-1) >= min(tail):
        return False
    if not all(_line_kind(lines[x]) == "comment" for x in tail):
        return False
    return indent_width(source[j]) == indent_width(lines[tail[0]])


def _closer_over_unlike(chunk: Chunk, span: Span, index: Index) -> list[str]:
    """A bare closer (`}`) that ends the chunk at a marker, matched after new lines that open
    a block, past original lines none of which reads like any of those new lines (nor starts
    as one does, a call broken over lines): the closer closes the new block as well as the
    old one, and the reading that the new lines replace the old ones rests on the `}` alone;
    they may as well come before them."""
    pairs = sorted((k, j) for k, j in span.matched.items() if chunk.keys[k])
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    if len(pairs) < 2 or not shown or pairs[-1][0] != shown[-1]:
        return []
    (k1, j1), (k2, j2) = pairs[-2], pairs[-1]
    text = chunk.keys[k2]
    if not _bracket_closer(text):
        return []
    new = [chunk.keys[k] for k in range(k1 + 1, k2) if chunk.keys[k]]
    old = [index.keys[j] for j in range(j1 + 1, j2) if index.keys[j]]
    if not new or not old or not new[0].endswith(("{", "(", "[")):
        return []
    if any(
        difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= _LIKE
        or a.startswith(b.rstrip("{([ "))
        or b.startswith(a.rstrip("{([ "))
        for a in old
        for b in new
    ):
        return []  # an old line reads like a new one (or is one broken over lines)
    return [
        f"{chunk.where()} end on a closer ({text!r}) matched at original line {j2 + 1} after "
        f"new lines that open a block, past original lines none of them reads like: unclear "
        "whether the new lines replace those lines or come before them"
    ]
