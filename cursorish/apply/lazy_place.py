"""Placing a lazy sketch's chunks in the original: adjusting each chunk's candidate placements
(a block it closes, an earlier closer, a chunk at the file's edge or one that matches nowhere)
and the dynamic programme that picks the best in-order sequence, with what each marker costs.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections import Counter
from collections.abc import Callable

from cursorish.apply.align import (
    DELETE_COST,
    MAX_GAP,
    STRONG,
    WEAK_SHIFTED,
    Index,
    Placement,
    fill,
    side_by_side,
)
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import (
    _EDGE_REACH,
    _TELLING_LENGTH,
    WORDY,
    Chunk,
    LazySketch,
    RefusedMerge,
)
from cursorish.apply.lines import CLOSING_BRACKETS, indent_width, weight
from cursorish.apply.spans import block_end

# A marker indented into a block usually stands for lines of that block; planners are not
# always that careful, so leaving the block costs score instead of being ruled out.
FLOOR_COST = 3.0
# A marker that stands for no line at all is as unlikely as one that leaves its block: a planner
# elides something.
EMPTY_MARKER_COST = FLOOR_COST


class _Gaps:
    """Counts of non-blank original lines shallower than a column, as prefix sums per column."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.cache: dict[int, list[int]] = {}
        nonblank = [0]
        for blank in index.blank:
            nonblank.append(nonblank[-1] + (0 if blank else 1))
        self.nonblank = nonblank

    def shallower(self, column: int, start: int, end: int) -> int:
        if column <= 0 or end <= start:
            return 0
        prefix = self.cache.get(column)
        if prefix is None:
            prefix = [0]
            for blank, width in zip(self.index.blank, self.index.indents, strict=True):
                prefix.append(prefix[-1] + (1 if not blank and width < column else 0))
            self.cache[column] = prefix
        return prefix[end] - prefix[start]

    def content(self, start: int, end: int) -> int:
        if end <= start:
            return 0
        return self.nonblank[end] - self.nonblank[start]


KEPT = 3  # placement sequences the dynamic programme keeps by default


def _choose(
    sketch: LazySketch, options: list[list[Placement]], index: Index, gaps: _Gaps, keep: int = KEPT
) -> list[list[Placement]]:
    """The best few placement sequences (best first) by dynamic programming over the chunks."""
    n = len(index.keys)
    # table[i][c] = list of (score, previous candidate, previous rank)
    table: list[list[list[tuple[float, int, int]]]] = []
    for i, (chunk, cands) in enumerate(zip(sketch.chunks, options, strict=True)):
        row: list[list[tuple[float, int, int]]] = []
        for q in cands:
            entries: list[tuple[float, int, int]] = []
            if i == 0:
                start = 0.0
                if not sketch.leading_marker:
                    start = -DELETE_COST * gaps.content(0, q.a)
                entries.append((q.score + start, -1, -1))
            else:
                column = None
                if chunk.floor > 0:
                    column = chunk.floor - q.delta
                for c, p in enumerate(options[i - 1]):
                    if p.b > q.a:
                        continue
                    cost = _marker_cost(column, p, q, gaps)
                    for rank, (score, _pc, _pr) in enumerate(table[i - 1][c]):
                        entries.append((score + q.score - cost, c, rank))
            entries.sort(key=lambda e: -e[0])
            row.append(entries[:keep])
        table.append(row)
    finals: list[tuple[float, int, int]] = []
    last = len(options) - 1
    for c, q in enumerate(options[last]):
        end = 0.0
        if not sketch.trailing_marker:
            end = -DELETE_COST * gaps.content(q.b, n)
        for rank, (score, _pc, _pr) in enumerate(table[last][c]):
            finals.append((score + end, c, rank))
    finals.sort(key=lambda e: -e[0])
    paths: list[list[Placement]] = []
    for score, c, rank in finals[:keep]:
        path: list[Placement] = []
        i, cc, rr = last, c, rank
        while i >= 0:
            path.append(options[i][cc])
            _s, pc, pr = table[i][cc][rr]
            i, cc, rr = i - 1, pc, pr
        path.reverse()
        path[0] = dataclasses.replace(path[0], score=score)
        paths.append(path)
    return paths


def _marker_cost(column: int | None, p: Placement, q: Placement, gaps: _Gaps) -> float:
    """What the marker between placements p and q costs: leaving the block its indentation
    names, or standing for no line at all."""
    cost = 0.0
    if column is not None and gaps.shallower(column, p.b, q.a):
        cost = FLOOR_COST
    if p.b == q.a:
        cost += EMPTY_MARKER_COST
    return cost


def _can_float(sketch: LazySketch, i: int) -> bool:
    return (i == 0 and not sketch.leading_marker) or (
        i == len(sketch.chunks) - 1 and not sketch.trailing_marker
    )


def _floating(sketch: LazySketch, i: int, n: int, index: Index) -> Placement:
    """Where a chunk that matches nothing can go: only at the very start or end of the file."""
    chunk = sketch.chunks[i]
    last = len(sketch.chunks) - 1
    known = [k for k, kk in enumerate(chunk.keys) if weight(kk) >= WORDY and index.count(kk)]
    if known and _can_float(sketch, i):
        # New code at the file's edge holds no line the file has; one that does is an edit
        # of code whose enclosing blocks do not agree (a renamed function), somewhere.
        raise RefusedMerge(
            f"{chunk.where()} hold line {chunk.first + known[0] + 1} of the original but match "
            "it nowhere their enclosing blocks agree: unclear whether they are new code at the "
            "file's edge or an edit"
        )
    if i == 0 and not sketch.leading_marker:
        return Placement([], 0.0, 0, 0)
    if i == last and not sketch.trailing_marker:
        return Placement([], 0.0, n, n)
    raise RefusedMerge(
        f"{chunk.where()} match no line of the original and sit between markers, "
        "so there is no telling where they go"
    )


def _at_block_end(
    sketch: LazySketch, i: int, before: list[Placement], index: Index
) -> list[Placement]:
    """Where new code that matches nothing goes when the markers around it say so: after a
    chunk that opens a block (`def f(...):`), a marker inside the block (the rest of its
    body), the new lines at the body's depth, then a marker back at the opener's depth (what
    follows the block). The new lines end that block, before its closing line if it has one."""
    chunk = sketch.chunks[i]
    last = len(sketch.chunks) - 1
    if i < last:
        next_marker: int | None = sketch.chunks[i + 1].marker_indent
    else:
        next_marker = sketch.trailing_indent if sketch.trailing_marker else None
    depth = min(indent_width(line) for line in chunk.lines if line.strip())
    if next_marker is None or chunk.marker_indent is None:
        return []
    if not next_marker < depth <= chunk.marker_indent:
        return []
    prior = sketch.chunks[i - 1]
    openers = [k for k, line in enumerate(prior.lines) if line.strip()]
    opener = next((k for k in reversed(openers) if indent_width(prior.lines[k]) < depth), None)
    if opener is None or indent_width(prior.lines[opener]) != next_marker:
        return []
    places: dict[int, Placement] = {}
    for p in before:
        matched = dict(fill(p, prior.keys, index))
        j = matched.get(opener)
        if j is None:
            continue
        end = block_end(index, j)
        if end > j and index.indents[end] == index.indents[j] and index.keys[end][:1] in "})]":
            e = end  # before the block's closing brace
        else:
            e = end + 1
        if e >= p.b and e > j:
            places.setdefault(e, Placement([], 0.0, e, e, strong=False, inserted=True))
    return list(places.values())


def _weak_edge(sketch: LazySketch, i: int, index: Index, cands: list[Placement]) -> list[Placement]:
    """The placements to keep for a chunk at the file's edge anchored only by weak lines.

    Such a chunk floats there as new code (none kept), unless its weak lines with words in them
    (`x = x + 0`, not `}`) are among the file's own edge lines: then it edits there. Where such
    a line repeats in the file, which of the repeats it means is unclear."""
    chunk = sketch.chunks[i]
    wordy = {k for k in chunk.keys if weight(k) >= WORDY}
    if not wordy:
        return []
    n = len(index.keys)
    reach = len(chunk.lines) + _EDGE_REACH
    if i == 0 and not sketch.leading_marker:
        near = range(min(n, reach))
    else:
        near = range(max(0, n - reach), n)
    found = {index.keys[j] for j in near if index.keys[j] in wordy}
    if any(index.count(k) > 1 for k in found):
        raise RefusedMerge(
            f"{chunk.where()} hold only common lines that also sit at that edge of the original: "
            "unclear whether they add code at the file's edge or edit which of those lines"
        )
    if not found:
        return []
    return [p for p in cands if any(j in near for _k, j in p.pairs)]


def _closed_block(place: Placement, chunk: Chunk, index: Index) -> Placement:
    """A chunk that ends on a closing line (`}`) its chain leaves unmatched, after an opener
    it matches at the closer's depth with every line between them deeper, closes that block:
    the closer is the opener's own closing line in the original, and the block's lines after
    the chunk's last match go (the sketch shows the whole body, with no marker in it). Read
    as a new line, the `}` would close the block early and leave the file unbalanced."""
    keys = chunk.keys
    shown = [k for k, kk in enumerate(keys) if kk]
    if not place.pairs or len(shown) < 3:
        return place
    close = shown[-1]
    k_last, j_last = place.pairs[-1]
    if k_last >= close or not keys[close].startswith(CLOSING_BRACKETS):
        return place
    width = indent_width(chunk.lines[close])
    opener = next((k for k in reversed(shown[:-1]) if indent_width(chunk.lines[k]) <= width), -1)
    if opener < 0 or indent_width(chunk.lines[opener]) != width:
        return place
    if not keys[opener].endswith(("{", "(", "[")):
        return place
    at = next((n for n, (k, _j) in enumerate(place.pairs) if k >= opener), -1)
    if at < 0:
        return place
    jo = place.pairs[at][1]
    if place.pairs[at][0] > opener:
        # The opener is an edited line: its body's lines, matched deeper, say where it is.
        if index.indents[jo] <= width or place.deltas[at] != 0:
            return place
        jo -= 1
        while jo >= 0 and (index.blank[jo] or index.indents[jo] > width):
            jo -= 1
        if jo < 0:
            return place
    if index.indents[jo] != width:
        return place  # a `}` says only how deep it is: at another depth it is another block's
    # At most MAX_GAP lines deleted past the last match, as between any two matched lines.
    stop = min(len(index.keys), j_last + MAX_GAP + 2)
    e = jo + 1
    while e < stop and (index.blank[e] or index.indents[e] > width):
        e += 1
    if e >= stop or e <= j_last or index.keys[e] != keys[close]:
        return place
    return dataclasses.replace(
        place,
        pairs=[*place.pairs, (close, e)],
        b=e + 1,
        deltas=[*place.deltas, place.deltas[at]],
        alternatives=[[*alt, (close, e)] for alt in place.alternatives if alt[-1][1] < e],
    )


def _pasted_closers(place: Placement, chunk: Chunk, index: Index) -> Placement:
    """A chunk pasted flush left whose lines with words all match the same depth shallower
    than the file: a punctuation line (`}`) it matched at its own depth is another block's
    (a `}` says only how deep it is), and the lines right next to those anchors that are the
    file's lines at the anchors' shift are its own. Read otherwise, the chunk's new lines stay
    at the sketch's depth and its closers clash with the file's."""
    if not place.flush_left or len(place.pairs) < 2:
        return place
    keys = chunk.keys
    told = [
        d
        for (k, _j), d in zip(place.pairs, place.deltas, strict=True)
        if weight(keys[k]) >= WEAK_SHIFTED
    ]
    if not told or told[0] >= 0 or any(d != told[0] for d in told):
        return place
    shift = told[0]
    kept = [
        (pair, d)
        for pair, d in zip(place.pairs, place.deltas, strict=True)
        if d == shift or weight(keys[pair[0]]) >= WEAK_SHIFTED
    ]
    if len(kept) == len(place.pairs):
        return place
    pairs = [pair for pair, _d in kept]
    n, m = len(index.keys), len(keys)

    def own(k: int, j: int) -> bool:
        return index.keys[j] == keys[k] and index.indents[j] == indent_width(chunk.lines[k]) - shift

    # The punctuation lines after the last anchor, blank lines skipped, and before the first.
    for k, j in side_by_side(keys, index, *pairs[-1], 1):
        if k >= m or j >= n or not own(k, j):
            break
        pairs.append((k, j))
    for k, j in side_by_side(keys, index, *pairs[0], -1):
        if k < 0 or j < 0 or not own(k, j):
            break
        pairs.insert(0, (k, j))
    return dataclasses.replace(
        place,
        pairs=pairs,
        a=pairs[0][1] if place.a == place.pairs[0][1] else min(place.a, pairs[0][1]),
        b=pairs[-1][1] + 1 if place.b == place.pairs[-1][1] + 1 else max(place.b, pairs[-1][1] + 1),
        deltas=[shift] * len(pairs),
        alternatives=[],
    )


def _new_block_closer(place: Placement, chunk: Chunk, index: Index) -> Placement:
    """A chain that starts on a closing line (`}`) whose opener in the chunk is one of the new
    lines before it (`if (x) {` matched nowhere, at the closer's depth, every line between
    deeper): that `}` closes the sketch's new block, while the original's `}` it matched
    closes a block opened before the chunk, which the marker before it keeps. Matched, the
    merge would leave one of the two openers without its closer (a file that does not parse);
    the closer is new too, and the chunk starts at its next match. The chains as good as this
    one (its alternatives) are read the same way: one that starts on another new block's
    closer is no other reading."""
    keys = chunk.keys
    if len(place.pairs) < 2 or not _closes_new_block(chunk.lines, keys, place.pairs[0][0]):
        return place
    pairs = place.pairs[1:]
    return dataclasses.replace(
        place,
        pairs=pairs,
        score=place.score - weight(keys[place.pairs[0][0]]),
        a=pairs[0][1],
        deltas=place.deltas[1:],
        strong=any(weight(keys[k]) >= STRONG for k, _j in pairs),
        alternatives=[
            alt[1:] if len(alt) > 1 and _closes_new_block(chunk.lines, keys, alt[0][0]) else alt
            for alt in place.alternatives
        ],
    )


def _closes_new_block(lines: list[str], keys: list[str], k: int) -> bool:
    """Whether chunk line k is a closing line (`}`, not `} else {`) whose opener is an earlier
    line of the chunk at its depth (every line between deeper), no line before k matched."""
    text = keys[k]
    if not text.startswith(CLOSING_BRACKETS) or text.endswith(("{", "(", "[")):
        return False
    width = indent_width(lines[k])
    opener = next(
        (x for x in range(k - 1, -1, -1) if keys[x] and indent_width(lines[x]) <= width), -1
    )
    return (
        opener >= 0
        and indent_width(lines[opener]) == width
        and keys[opener].endswith(("{", "(", "["))
    )


_SHORT_DECLARATION = re.compile(r"^\s*([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*:=")
_TOKEN = re.compile(r"[\w$]+|[^\w\s]+")
_LEXICAL_DECLARATION = re.compile(r"^\s*(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*[=:]")


def _new_lines(chunk: Chunk, place: Placement, index: Index) -> list[tuple[str, int, list[str]]]:
    """The chunk's telling new lines (matched nowhere) after its first, each with its depth
    in the original's terms and the original lines its placement replaces where it writes it
    (between the matched lines around it)."""
    keys = chunk.keys
    pairs = place.pairs
    found: list[tuple[str, int, list[str]]] = []
    at = 0  # pairs[at] is the first match after line k
    for k in range(1, len(keys)):
        while at < len(pairs) and pairs[at][0] < k:
            at += 1
        if (at < len(pairs) and pairs[at][0] == k) or weight(keys[k]) < STRONG:
            continue
        low = pairs[at - 1][1] + 1 if at else 0
        high = pairs[at][1] if at < len(pairs) and at else low
        replaced = [index.keys[j] for j in range(low, min(high, low + MAX_GAP)) if index.keys[j]]
        found.append((keys[k], indent_width(chunk.lines[k]) - place.deltas[0], replaced))
    return found


def _edited_here(text: str, depth: int, edits: list[tuple[str, int, list[str]]]) -> bool:
    """Whether an original line reads as the line one of a chunk's new lines rewrites: a
    telling line at the new line's depth whose tokens the new line keeps whole, in order,
    adding no more than as many again (`if (x === root) {` made `if (x === root && !x.id) {`),
    and more like it than each original line the chunk replaces where it writes that line
    (those it edits in place)."""
    if weight(text) < STRONG or len(text) < _TELLING_LENGTH:
        return False
    old = _TOKEN.findall(text)
    for line, width, replaced in edits:
        new = _TOKEN.findall(line)
        if width != depth or not len(old) < len(new) <= 2 * len(old):
            continue
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        if sum(block.size for block in matcher.get_matching_blocks()) < len(old):
            continue
        like = difflib.SequenceMatcher(None, text, line, autojunk=False).ratio()
        if all(
            difflib.SequenceMatcher(None, other, line, autojunk=False).ratio() < like
            for other in replaced
        ):
            return True
    return False


def _earlier_closer(
    place: Placement,
    chunk: Chunk,
    index: Index,
    written: Counter[str],
    lang: Language,
    before: list[Placement],
) -> Placement:
    """A chunk after a marker that opens on a closing line (`}`), matched just before its next
    anchor (or left unmatched, blank lines alone between it and that anchor), where the same
    closer also ends the lines a little earlier in the same block (one or two closers back):
    the earlier one is meant where the original lines between would otherwise stay beside the
    chunk and clash with it: a name its new lines declare (`x :=` in Go, `const` or `let` in
    JavaScript and TypeScript) declared there again in one scope, or a telling line another
    chunk writes (code the sketch moves) kept as well, or, inside a body, the one original line
    that one of the chunk's new lines reads as an extension of (`_edited_here`): kept, it would
    stand right above its own edited version. (At the top level a new definition written like
    a sibling is common, so there likeness alone tells nothing.) The lines between then go."""
    keys = chunk.keys
    shown = [k for k, kk in enumerate(keys) if kk]
    if not place.pairs or not shown or weight(keys[shown[0]]) >= STRONG:
        return place
    k0 = shown[0]
    mine = set(keys)
    if place.pairs[0][0] == k0:
        if len(place.pairs) < 2:
            return place
        j0 = place.pairs[0][1]
        new = [k for k in range(k0 + 1, place.pairs[1][0]) if keys[k]]
        rest = place.pairs[1:]
        depth = index.indents[j0]
    elif not any(keys[k] for k in range(k0 + 1, place.pairs[0][0])):
        j0 = place.pairs[0][1]
        new = []
        rest = place.pairs
        depth = indent_width(chunk.lines[k0]) - place.deltas[0]
    else:
        return place
    closers: list[int] = []  # the same closer earlier in the block, nearest first (two at most)
    for j in range(j0 - 1, max(-1, j0 - MAX_GAP - 1), -1):
        if not index.blank[j] and index.indents[j] < depth:
            break
        if index.keys[j] == keys[k0] and index.indents[j] == depth:
            closers.append(j)
            if len(closers) == 2:
                break
    declaration = {
        "go": _SHORT_DECLARATION,
        "typescript": _LEXICAL_DECLARATION,
        "tsx": _LEXICAL_DECLARATION,
        "javascript": _LEXICAL_DECLARATION,
    }.get(lang.name)
    names: set[tuple[str, int]] = set()
    for k in new:
        match = declaration.match(chunk.lines[k]) if declaration else None
        if match:
            names.add((match.group(1), indent_width(chunk.lines[k]) - place.deltas[0]))

    if not closers:
        return place
    edits = _new_lines(chunk, place, index) if depth > 0 else []

    def clashes(j: int) -> bool:
        text = index.keys[j]
        match = declaration.match(index.lines[j]) if declaration and text else None
        return (
            bool(match and (match.group(1), index.indents[j]) in names)
            or (
                written[text] > (text in mine)  # another chunk writes it: code the sketch moves
                and weight(text) >= STRONG
                and len(text) >= _TELLING_LENGTH
                and index.count(text) == 1
            )
            or (
                bool(edits)
                and index.count(text) == 1
                and _edited_here(text, index.indents[j], edits)
            )
        )

    je = next((c for c in closers if any(clashes(j) for j in range(c + 1, j0))), -1)
    if je < 0 or any(je < p.b <= j0 for p in before):
        return place
    first, dropped = (k0, je), len(place.pairs) - len(rest)
    return dataclasses.replace(
        place,
        pairs=[first, *rest],
        a=je,
        deltas=[place.deltas[0], *place.deltas[dropped:]],  # the closer at its match's depth
        alternatives=[[first, *alt[dropped:]] for alt in place.alternatives],
        closer_told=True,
    )


def _order_reason(sketch: LazySketch, options: list[list[Placement]]) -> str:
    for i in range(1, len(options)):
        if not any(p.b <= q.a for p in options[i - 1] for q in options[i]):
            return (
                f"{sketch.chunks[i].where()} only match original lines before those of "
                f"{sketch.chunks[i - 1].where()}: the sketch is out of order"
            )
    return "no placement of the sketch keeps its chunks in order inside the blocks its markers name"


def _after_previous(
    sketch: LazySketch,
    options: list[list[Placement]],
    place: Callable[[int, int], list[Placement]],
    index: Index,
    gaps: _Gaps,
) -> list[list[Placement]]:
    """Where no placement keeps the chunks in order because the sketch's last chunk, with no
    marker after it, matches only lines before every placement of the chunk before it, its
    placements after that chunk's that reach the file's end are looked for: its recurring
    lines (`#[test]`, a signature like its siblings') filled the candidates kept with earlier
    copies, while new code after the last item of the file's last block anchors on that
    block's closers (`}`) at the end of the file. `place(i, start)` gives chunk i's placements
    from line `start` on. `options` takes the placements found where the DP then finds a
    path; else it is left as it was (and the merge refused as out of order)."""
    last = len(options) - 1
    if last < 1 or sketch.trailing_marker:
        return []
    if any(p.b <= q.a for p in options[last - 1] for q in options[last]):
        return []
    try:
        found = place(last, min(p.b for p in options[last - 1]))
    except RefusedMerge:
        return []
    n = len(index.keys)
    found = [q for q in found if q.pairs and gaps.content(q.b, n) == 0]
    if not found:
        return []
    paths = _choose(sketch, [*options[:last], found], index, gaps)
    if paths:
        options[last] = found
    return paths
