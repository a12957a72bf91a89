"""Where a placed chunk's span of original lines begins and ends: pulled to blank lines, to a
wrapped statement's tail, to the head or tail a chunk without an edge marker rewrites, and
whether a sketch's edges are bare. Where its closers belong is `lazy_closers`' part; the
bracket helpers both use live here.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable

from cursorish.apply.align import MAX_GAP, STRONG, Index, Placement, fill
from cursorish.apply.blocks import declared_name
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import (
    _LIKE,
    WORDY,
    Chunk,
    LazySketch,
    RefusedMerge,
)
from cursorish.apply.lines import (
    CLOSING_BRACKETS,
    STRING_LITERAL,
    indent_width,
    key,
    weight,
)
from cursorish.apply.spans import Span, block_end, match_between, similar
from cursorish.apply.structure import Definition, definitions


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
            _old_version(source[j : span.a], new)
            or _comment_rewrite(source[j : span.a], new)
            or _line_for_line(source[j : span.a], new)
        ):
            span.a = j
    if markers[1] and last < len(lines) - 1 and last not in span.matched and span.b < upper:
        new = [lines[k] for k in range(max(span.matched) + 1, last + 1) if lines[k].strip()]
        j = span.b
        while j < upper and source[j].strip():
            j += 1
        if j < upper and (
            _old_version(source[span.b : j], new)
            or _statement_tail(source, span, j)
            or _line_for_line(source[span.b : j], new)
            or _whole_statements(source, span.b, j, new, upper)
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


def _to_shown_blank(
    chunk: Chunk,
    span: Span,
    index: Index,
    bounds: tuple[int, int],
    markers: tuple[bool, bool],
) -> None:
    """A chunk set off from its marker by a blank line whose first (last) line is an original
    line, kept as it is, says the original line next to that one is blank. Where it is not, the
    original lines between that line and the nearest blank line are what the sketch deletes
    (an import dropped from the head of a group, a branch cut after a kept `return`): kept,
    they would stand between the blank line and the chunk the sketch shows next to it."""
    lines = chunk.lines
    shown = [k for k, line in enumerate(lines) if line.strip()]
    if not shown:
        return
    lower, upper = bounds
    first, last = shown[0], shown[-1]
    if markers[0] and first > 0 and _kept_as_is(lines[first], span, first, index, span.a):
        j = span.a
        while j > lower and not index.blank[j - 1]:
            j -= 1
        if lower < j < span.a:
            span.a = j
    if (
        markers[1]
        and last < len(lines) - 1
        and _kept_as_is(lines[last], span, last, index, span.b - 1)
    ):
        j = span.b
        while j < upper and not index.blank[j]:
            j += 1
        if span.b < j < upper:
            span.b = j


def _kept_as_is(line: str, span: Span, k: int, index: Index, at: int) -> bool:
    """Whether chunk line k is original line `at`, the span's edge, with the same text, a
    line the original holds once (a repeated one could be another copy's)."""
    text = key(line)
    return span.matched.get(k) == at and text == index.keys[at] and index.count(text) == 1


def _whole_statements(source: list[str], b: int, j: int, new: list[str], upper: int) -> bool:
    """Whether original lines b..j (up to a blank line) are whole statements of the block the
    new lines sit in, which the new lines replace: none shallower than the new lines, closing
    (opening) as many brackets as the new lines do, the first opening as the first new line
    does (`}` of `} & T;` and `};`, `const` and `const`), and the code after the blank line no
    deeper than the first of them (it does not go on inside them). A chunk whose new lines
    end with a blank line before its marker says the original's next line there is blank:
    kept, these lines would stand between."""
    if j <= b or not new or not source[b - 1].strip():
        return False  # the span ends on a blank line already: the chunk's blank line is there
    depth = min(indent_width(line) for line in new if line.strip())
    run = source[b:j]
    if any(indent_width(line) < depth for line in run) or _bracket_balance(run) != (
        _bracket_balance(new)
    ):
        return False
    if _opening(run[0]) != _opening(new[0]):
        return False  # the first of them is no older version of the first new line
    after = j
    while after < upper and not source[after].strip():
        after += 1
    return after >= upper or indent_width(source[after]) <= indent_width(run[0])


_PUNCTUATION_LEAD = re.compile(r"[^\w\s]+")


def _opening(line: str) -> str:
    """How a line opens: its first word (`return`, a name assigned), else the punctuation it
    opens with (`}` of `};` and `} & T;`); for a comment, the opener and its first word."""
    text = line.strip()
    if _line_kind(line) == "comment":
        return " ".join(text.split()[:2])
    word = _FIRST_WORD.match(text)
    if word:
        return word.group(1)
    lead = _PUNCTUATION_LEAD.match(text)
    return (lead.group() if lead else "").rstrip(";,") or text[:1]


def _bracket_closer(text: str) -> bool:
    """Whether a line is only closing brackets and punctuation (`}`, `});`, `],`)."""
    return text.startswith(CLOSING_BRACKETS) and not any(c.isalnum() for c in text)


def _bracket_balance(lines: list[str]) -> int:
    """Opening minus closing brackets in the lines, string literals left out."""
    total = 0
    for line in lines:
        text = STRING_LITERAL.sub("", line)
        total += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
    return total


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


_FIRST_WORD = re.compile(r"\s*([A-Za-z_$][\w$]*)")


def _line_for_line(old: list[str], new: list[str]) -> bool:
    """Whether original lines are, line for line, an older version of as many new ones:
    each pair at the same depth, opening with the same word (`case`, `return`, a name
    assigned) and ending on the same character (`case "GET":` for `case http.MethodGet:`)."""
    if not old or len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        x, y = _FIRST_WORD.match(a), _FIRST_WORD.match(b)
        if indent_width(a) != indent_width(b) or not x or not y or x.group(1) != y.group(1):
            return False
        if a.rstrip()[-1:] != b.rstrip()[-1:]:
            return False
    return True


def _comment_rewrite(old: list[str], new: list[str]) -> bool:
    """Whether original lines are one comment paragraph that new comment lines rewrite: all
    comments with words, the new ones too, and the first new line starts as the first old one
    does (a comment cut short or reworded from its opening words on)."""
    if not old or not new:
        return False
    if not all(_line_kind(line) == "comment" and _comment_words(line) for line in old + new):
        return False
    return similar(new[0], old[0])


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
        index.count(key(tail[shown_tail[-1]])) != 1
        and not _held_on(final.pairs[-2:][::-1], index)
        and not _tail_held(final, sketch.chunks[-1].keys, index, source)
    ):
        return False
    # A chunk that changes nothing within itself only shows a deletion at its outer edge.
    if not _edits_within(head, first, source) or not _edits_within(tail, final, source):
        return False
    return any(line.strip() for line in source[: first.pairs[0][1]]) and any(
        line.strip() for line in source[final.pairs[-1][1] + 1 :]
    )


def _tail_held(place: Placement, keys: list[str], index: Index, source: list[str]) -> bool:
    """Whether a last chunk's closing line, one the file repeats, is held where it is placed:
    by the telling line it follows at once (among all the lines the chunk matches, not only
    its anchors), or, a bare closer (`}`), by closing the block whose opening line the chunk
    shows, a telling line found once in the file (no other copy closes that block)."""
    pairs = fill(place, keys, index)
    if _held_on(pairs[-2:][::-1], index):
        return True
    j = pairs[-1][1]
    if not _bracket_closer(source[j].strip()):
        return False
    depth = indent_width(source[j])
    opener = j - 1
    while opener >= 0 and (not source[opener].strip() or indent_width(source[opener]) > depth):
        opener -= 1
    return (
        opener >= 0
        and indent_width(source[opener]) == depth
        and any(o == opener for _k, o in pairs)
        and weight(index.keys[opener]) >= STRONG
        and index.count(index.keys[opener]) == 1
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


def _head_start(
    chunk: Chunk,
    span: Span,
    source: list[str],
    bare: bool = False,
    dead: Callable[[range, Span], bool] | None = None,
) -> int:
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
        if _package_before(chunk, source, head):
            raise RefusedMerge(
                f"{chunk.where()} start at original line {span.a + 1}, below the Go package "
                "clause, with no marker before them: a Go file keeps its package clause, so "
                "the sketch does not reach the file's start, and what it keeps there is unclear"
            )
        return 0  # a sketch this close to the file's start reaches it
    if not lead and dead is not None and dead(range(span.a), span):
        return 0  # the head is code the merge leaves dead: the sketch deletes it
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


# A Go file's package clause: no sketch that leaves it out means to delete it.
_GO_PACKAGE = re.compile(r"package\s+[A-Za-z_]\w*\s*(//.*)?")


def _package_before(chunk: Chunk, source: list[str], head: list[int]) -> bool:
    """Whether the original lines before a first chunk hold a Go package clause the chunk does
    not write: a Go file cannot lose it, so the sketch does not reach the file's start."""
    return any(_GO_PACKAGE.fullmatch(source[j]) for j in head) and not any(
        _GO_PACKAGE.fullmatch(line.strip()) for line in chunk.lines
    )


# A sketch without a marker at an edge that stops this many non-blank lines or fewer short of
# it reaches the edge (those lines go); more is unclear. verify.EDGE_CUT says the same.
EDGE_LINES = 3
_TAIL_REACH = 12  # original lines after a last chunk read as what it may rewrite


def _tail_end(
    chunk: Chunk,
    span: Span,
    source: list[str],
    bare: bool = False,
    dead: Callable[[range, Span], bool] | None = None,
) -> int:
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
    if dead is not None and dead(range(span.b, n), span):
        return n  # the tail is code the merge leaves dead: the sketch deletes it
    if _body_ends_before(chunk, span, source, trail, tail):
        return n
    raise RefusedMerge(
        f"{chunk.where()} stop at original line {span.b} with {len(tail)} more line(s) of the "
        "file after them and no marker: unclear whether the sketch deletes them or leaves them "
        'out (end it with an "existing code" marker to keep them)'
    )


_EXITS = re.compile(r"(?:return|raise|throw|panic)\b")


def _body_ends_before(
    chunk: Chunk, span: Span, source: list[str], trail: list[int], tail: list[int]
) -> bool:
    """Whether the file's last lines are the rest of the block whose header is the chunk's
    last match (all deeper than it: no closer of its own to keep), and the chunk's new lines after
    that header end with a `return` (`raise`) at the body's depth: any original body line
    kept after it could never run, so the new body replaces the old one to the file's end."""
    if not trail:
        return False
    header = indent_width(source[max(span.matched.values())])
    body = min(indent_width(chunk.lines[k]) for k in trail)
    last = chunk.lines[trail[-1]]
    if body <= indent_width(chunk.lines[max(span.matched)]) or indent_width(last) != body:
        return False
    if not _EXITS.match(last.strip()):
        return False
    return all(indent_width(source[j]) > header for j in tail)


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
