"""Where a placed chunk's closers (`}`, `)`, `end`) belong: after new code, past the span, at
their own depth, one level out, or reaching back before the span to an opening closer. Split
from `lazy_edges`, which pulls the rest of a chunk's edges.
"""

from __future__ import annotations

from cursorish.apply.align import MAX_GAP, Index
from cursorish.apply.lazy_edges import (
    _bracket_balance,
    _bracket_closer,
    _same,
)
from cursorish.apply.lazy_sketch import (
    Chunk,
)
from cursorish.apply.lines import (
    CLOSING_BRACKETS,
    indent_width,
)
from cursorish.apply.spans import Span


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
        if k in span.matched or not keys[k].startswith(CLOSING_BRACKETS):
            break
        tail.insert(0, k)
    last = max(span.matched)
    if not tail or last >= tail[0]:
        return
    run: list[int] = []  # the matched closers just before the new lines, chunk lines
    k = last
    while k in span.matched and keys[k].startswith(CLOSING_BRACKETS):
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
    if not keys[close].startswith(CLOSING_BRACKETS):
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


def _closer_at_own_depth(chunk: Chunk, span: Span, index: Index, bounds: tuple[int, int]) -> None:
    """A chunk that ends, before a marker, on a closing line (`}`) matched deeper than the
    sketch writes it, at the end of a block whose body the chunk's lines are, each written
    out by as much as well, while the original line right after that closer is the
    same closer at the sketch's depth: the sketch drops the block's wrapper (`if (x) {` and
    its `}`), moving the body out a level, and its `}` is the enclosing block's. The wrapper's
    opener, right before the chunk's lines (nothing but blank lines between), and its closer
    go. Matched one level deeper, the merge would keep the enclosing closer and write the
    sketch's `}` as new: one closer too many."""
    lower, upper = bounds
    keys = chunk.keys
    shown = [k for k, kk in enumerate(keys) if kk]
    if len(shown) < 2:
        return
    close = shown[-1]
    old = span.matched.get(close)
    if old is None or old != span.b - 1 or span.b >= upper or not _bracket_closer(keys[close]):
        return
    depth = indent_width(chunk.lines[close])
    shift = depth - index.indents[old]
    if shift >= 0 or index.keys[span.b] != keys[close] or index.indents[span.b] != depth:
        return
    jo = old - 1
    while jo >= lower and (index.blank[jo] or index.indents[jo] > index.indents[old]):
        jo -= 1
    if jo < lower or index.indents[jo] != index.indents[old] or jo >= span.a:
        return
    if not index.keys[jo].endswith(("{", "(", "[")) or any(
        not index.blank[j] for j in range(jo + 1, span.a)
    ):
        return
    body = {j: k for k, j in span.matched.items() if jo < j < old and keys[k]}
    if not body or any(not index.blank[j] and j not in body for j in range(jo + 1, old)):
        return
    if any(indent_width(chunk.lines[k]) - index.indents[j] != shift for j, k in body.items()):
        return
    span.matched[close] = span.b
    span.a = jo
    span.b += 1


def _closers_one_level_out(chunk: Chunk, span: Span, index: Index, delta: int) -> None:
    """A chunk that ends, before a marker, on a run of closing lines (`}`) matched to a run of
    the original's closers ending the span, each one level deeper than the original closer it
    is matched to, while the chunk's lines open one block more than the original lines they
    replace (new code wraps old lines: `if val != nil {` around a kept `return val`) and the
    first closer's opener is such a line (new, or an edited line that now opens a block,
    `id := f()` become `if id := f(); id != "" {`): that closer closes the new block, and the
    others are the original's closers one line earlier, at their own depth. Matched as they
    stand, the last original closer (its block's end, kept under the marker) would be taken
    for the chunk's and dropped."""
    keys = chunk.keys
    shown = [k for k, kk in enumerate(keys) if kk]
    run: list[int] = []
    for k in reversed(shown):
        if k not in span.matched or not _bracket_closer(keys[k]):
            break
        if run and span.matched[k] != span.matched[run[0]] - 1:
            break
        run.insert(0, k)
    if len(run) < 2 or span.matched[run[-1]] != span.b - 1 or len(span.matched) == len(run):
        return
    first = span.matched[run[0]]
    depths = [indent_width(chunk.lines[k]) - delta for k in run]
    if any(depths[n] == index.indents[first + n] for n in range(len(run))):
        return  # some closer already sits at its original's depth
    if any(
        depths[n] != index.indents[first + n - 1] or keys[run[n]] != index.keys[first + n - 1]
        for n in range(1, len(run))
    ):
        return
    depth = indent_width(chunk.lines[run[0]])
    opener = next(
        (k for k in reversed(shown) if k < run[0] and indent_width(chunk.lines[k]) <= depth), None
    )
    if opener is None or (
        opener in span.matched
        and _bracket_balance([chunk.lines[opener]])
        <= _bracket_balance([index.lines[span.matched[opener]]])
    ):
        return  # the first closer's block is no new one the chunk opens
    balance = _bracket_balance(chunk.lines)
    lines = index.lines
    if balance == _bracket_balance(lines[span.a : span.b]):
        return
    if balance != _bracket_balance(lines[span.a : span.b - 1]):
        return
    del span.matched[run[0]]
    for n, k in enumerate(run[1:]):
        span.matched[k] = first + n
    span.b -= 1


_CLOSER_REACH = 12  # original lines a chunk's opening closer may reach back over


def _closers_before_span(chunk: Chunk, span: Span, source: list[str], lower: int) -> None:
    """A chunk after a marker that opens with a bare closer (`}`), written as a new line before
    its first match, closes a block the original opened (no line of the chunk before it could
    open one): where the original has the same closer (text and depth) a few lines above the
    span, it is that closer, not a second copy of it (a block closed twice). The lines between
    are the ones the chunk writes next to it (blank lines too), or, none of them blank and none
    shallower, lines the chunk, running on from that closer, replaces."""
    lines = chunk.lines
    first = min(span.matched) if span.matched else len(lines)
    shown = [k for k in range(first) if lines[k].strip()]
    if not shown or shown[0] in span.matched:
        return
    k = shown[0]
    if not _bracket_closer(lines[k].strip()):
        return
    depth = indent_width(lines[k])
    j = span.a - 1
    while j >= max(lower, span.a - _CLOSER_REACH):
        if _same(lines[k], source[j]):
            between = range(j + 1, span.a)
            mirrored = [line.strip() for line in lines[k + 1 : k + 1 + len(between)]] == [
                source[x].strip() for x in between
            ]
            if mirrored or all(
                source[x].strip() and indent_width(source[x]) >= depth for x in between
            ):
                span.a = j
                span.matched[k] = j
            return
        if source[j].strip() and indent_width(source[j]) < depth:
            return
        j -= 1
