"""Refining where a placed chunk starts and ends in the original.

A placement anchors a chunk on lines it shares with the original. Its edges need care: context
lines too common to anchor on, changed first/last lines (which replace their original rather
than join it), blank lines a planner puts around a marker, and blocks the sketch writes out in
full (whose original body the chunk then replaces entirely).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from cursorish.apply.align import Index
from cursorish.apply.blocks import declared_name
from cursorish.apply.lines import BARE_COMMENT, indent_width, leading

_SIMILAR = 0.6
_EDGE_WINDOW = 3
_SHORT_BODY = 8  # a body of this many lines more than twice the new one's may be rewritten whole
_CLOSERS = ("}", ")", "]", "end", "</")


@dataclass
class Span:
    """The original lines [a, b) a chunk replaces, and chunk line → original line matches."""

    a: int
    b: int
    matched: dict[int, int]


def _common_prefix(x: str, y: str) -> int:
    size = min(len(x), len(y))
    for index in range(size):
        if x[index] != y[index]:
            return index
    return size


def similar(a: str, b: str, *, loose: bool = False) -> bool:
    """Whether sketch line `a` reads as an edited version of original line `b`.

    `loose` also accepts a long shared start (the same name being assigned or declared)."""
    if indent_width(a) != indent_width(b):
        return False
    x, y = a.strip(), b.strip()
    if not x or not y or (x != y and (x in BARE_COMMENT or y in BARE_COMMENT)):
        return False
    prefix = _common_prefix(x, y)
    if prefix >= 8 and prefix >= 0.6 * min(len(x), len(y)):
        return True
    if loose and prefix >= 16 and any(c in x[:prefix] for c in "=:("):
        return True
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() >= _SIMILAR


# An import (or re-export) naming its module: `import { a } from 'm'`, `export * from 'm'`,
# Python's `from m import a`; what it binds, and the module.
_IMPORT_FROM = re.compile(r"^((?:import|export)\b.*?)\bfrom\s*(['\"])(.*?)\2")
_PY_FROM = re.compile(r"^from\s+(\S+)\s+(import\b.*)")
_IMPORT_WORDS = {"import", "export", "type", "as", "default", "from"}
_NAMES = re.compile(r"[A-Za-z_$][\w$]*")


def _import_of(line: str) -> tuple[str, set[str]] | None:
    """(module, names) of an import line that names its module, else None."""
    match = _IMPORT_FROM.match(line)
    if match:
        return match.group(3), set(_NAMES.findall(match.group(1))) - _IMPORT_WORDS
    match = _PY_FROM.match(line)
    if match:
        return match.group(1), set(_NAMES.findall(match.group(2))) - _IMPORT_WORDS
    return None


def _other_imports(x: str, y: str) -> bool:
    """Whether two lines import from different modules with no name in common: two imports,
    neither an edit of the other however alike they read."""
    if not x.startswith(("import", "export", "from")) or not y.startswith(x[:4]):
        return False
    old, new = _import_of(x), _import_of(y)
    return old is not None and new is not None and old[0] != new[0] and not old[1] & new[1]


def _complete_tail(
    keys: list[str], lines: list[str], index: Index, span: Span, upper: int, after_marker: bool
) -> None:
    """Anchor a chunk's last line when it is common (or edited) but sits right by the match."""
    matched = span.matched
    k1 = max(matched)
    tail = [k for k in range(k1 + 1, len(keys)) if keys[k]]
    if tail:
        last = tail[-1]
        end = _closes_anchor(keys, lines, index, span, (k1, last), upper)
        if end is not None:
            match_between(keys, index, matched, k1, last, span.b - 1, end)
            matched[last] = end
            span.b = end + 1
            return
        limit = min(upper, span.b + (last - k1) + _EDGE_WINDOW)
        # A bare `}` after a bare `}` matched at another shift than the chunk's first line:
        # neither says which block they close, too little to delete the code between.
        k0 = min(matched)
        guess = (
            _bare_closer(keys[last])
            and _bare_closer(keys[k1])
            and indent_width(lines[k1]) - index.indents[matched[k1]]
            != indent_width(lines[k0]) - index.indents[matched[k0]]
        )
        # A closer's block holds no line shallower than the closer: past an original line
        # shallower than the chunk's lines after its last match (a sibling `case`, the next
        # function), a closer found is another block's.
        shift = indent_width(lines[k1]) - index.indents[matched[k1]]
        floor = min(indent_width(lines[k]) for k in tail) - shift
        for j in range(span.b, limit):
            if index.keys[j] == keys[last] and _same_depth(lines, index, matched, k1, last, j):
                if _foreign_closer(lines, index, (k1, last), span.b, j):
                    break
                match_between(keys, index, matched, k1, last, span.b - 1, j)
                matched[last] = j
                span.b = j + 1
                return
            if guess and index.keys[j] and not _bare_closer(index.keys[j]):
                break
            if index.keys[j] and index.indents[j] < floor and _bare_closer(keys[last]):
                break
    else:
        return
    if last not in matched and after_marker:
        # The last line may be an edited version of an original line just below the match.
        # The original lines it would replace between must not outnumber the sketch's lines
        # there: a similar line further away is other code (an import below a blank is not the
        # one being edited).
        k1 = max(matched)
        limit = min(upper, span.b + (last - k1))
        for j in range(span.b, limit):
            if similar(lines[last], index.lines[j], loose=True) and not _other_imports(
                lines[last].strip(), index.lines[j].strip()
            ):
                span.b = j + 1
                break


def _complete_head(
    keys: list[str], lines: list[str], index: Index, span: Span, lower: int, before_marker: bool
) -> None:
    """Anchor a chunk's first line when it is common (or edited) but sits right by the match."""
    matched = span.matched
    k0 = min(matched)
    head = [k for k in range(k0) if keys[k]]
    if head:
        first = head[0]
        limit = max(lower, span.a - (k0 - first) - _EDGE_WINDOW)
        found = [j for j in range(span.a - 1, limit - 1, -1) if index.keys[j] == keys[first]]
        if found:
            j = _own_depth(lines, index, (first, k0), (lower, matched[k0]), found)
            match_between(keys, index, matched, first, k0, j, span.a)
            matched[first] = j
            span.a = j
            return
        if before_marker:
            for j in range(span.a - 1, max(lower, span.a - (k0 - first)) - 1, -1):
                if similar(lines[first], index.lines[j], loose=True):
                    span.a = j
                    return


def _own_depth(
    lines: list[str], index: Index, ks: tuple[int, int], js: tuple[int, int], found: list[int]
) -> int:
    """Of the original lines equal to the chunk's first line (nearest first), the one that
    chunk line takes. Where the chunk opens with two closers or more (`    }` then `}`) after
    the chunk before (it ends at original line `lower`) and before a first match k0 that sits
    at its original's very depth (original line j0), they take the nearest run of the same
    closers at their own depths, line for line, whose blocks were open where the chunk before
    ended (no line between as shallow as the run's outermost closer): the nearest `}` of any
    depth closes another block (a method's `}` is not its `impl`'s), and read so, the block
    the run does close is closed twice. Where k0 sits at another depth than j0 (the sketch
    written at another depth, or the edit re-indenting it) depths tell nothing."""
    first, k0 = ks
    lower, j0 = js
    run: list[int] = []
    for k in range(first, k0):
        if not lines[k].strip():
            continue
        if not _bare_closer(lines[k].strip()):
            break
        run.append(k)
    if lower <= 0 or len(run) < 2 or indent_width(lines[k0]) != index.indents[j0]:
        return found[0]
    outer = min(indent_width(lines[k]) for k in run)
    for j in found:
        rows = [x for x in range(j, j0) if not index.blank[x]][: len(run)]
        if len(rows) == len(run) and all(
            index.keys[x] == lines[k].strip() and index.indents[x] == indent_width(lines[k])
            for k, x in zip(run, rows, strict=True)
        ):
            if all(index.blank[x] or index.indents[x] > outer for x in range(lower, j)):
                return j
            break
    return found[0]


def _closes_anchor(
    keys: list[str],
    lines: list[str],
    index: Index,
    span: Span,
    ends: tuple[int, int],
    upper: int,
) -> int | None:
    """The original closer of the block the chunk's last matched line opens, when the chunk
    ends by closing that block (`func f() {`, a new body, `}`): the new body replaces the old
    one to its own closer. Only where the old body is not much longer than the new one: a
    sketch that leaves many lines out without a marker says nothing clear about them."""
    k1, last = ends
    if not _bare_closer(keys[last]):
        return None
    depth = indent_width(lines[k1])
    if indent_width(lines[last]) != depth:
        return None
    if any(keys[k] and indent_width(lines[k]) <= depth for k in range(k1 + 1, last)):
        return None
    j1 = span.matched[k1]
    end = block_end(index, j1)
    if end <= j1 or end >= upper or index.keys[end] != keys[last]:
        return None
    if index.indents[end] != index.indents[j1]:
        return None
    removed = sum(1 for j in range(span.b, end) if not index.blank[j])
    written = sum(1 for k in range(k1 + 1, last) if keys[k])
    return end if removed <= 2 * written + _SHORT_BODY else None


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'')


def _foreign_closer(
    lines: list[str], index: Index, ends: tuple[int, int], start: int, j: int
) -> bool:
    """Whether original closer j, past the chunk's last match, closes a definition that the
    chunk's lines after that match never name (`fn make_error(...) {` ... `}`) while those
    lines close every bracket they open, their last closer theirs, and are spaced (a blank line
    among them: new items, not lines of a sketch that dropped its blank lines): taken for j,
    that closer would read the new code as that definition rewritten under another name,
    deleting it whole on the strength of a `}`."""
    k1, last = ends
    tail = [_QUOTED.sub("", line) for line in lines[k1 + 1 : last + 1]]
    if all(text.strip() for text in tail):
        return False  # no spacing shown (a sketch that dropped its blank lines): no new items
    opened = sum(text.count(c) for text in tail for c in "([{")
    if not opened or opened != sum(text.count(c) for text in tail for c in ")]}"):
        return False
    depth = index.indents[j]
    for x in range(j - 1, start - 1, -1):
        if index.blank[x] or index.indents[x] != depth:
            continue
        if index.keys[x].startswith(("//", "/*", "*", "#[", "@")):
            continue  # a comment or attribute above the block's opener
        name = declared_name(index.lines[x])
        if name is None:
            return False
        return not any(re.search(rf"\b{re.escape(name)}\b", text) for text in tail)
    return False


def _bare_closer(text: str) -> bool:
    """Whether a line only closes: brackets and punctuation (`}`, `});`) or a JSX `</>`. Wider
    than lazy_edges' bracket closer, which leaves JSX out."""
    return text.startswith(_CLOSERS) and not any(c.isalnum() for c in text)


def _same_depth(
    lines: list[str], index: Index, matched: dict[int, int], anchor: int, k: int, j: int
) -> bool:
    """Whether chunk line k, no deeper than the matched chunk line `anchor`, sits as deep as
    original line j, or as deep relative to the anchor as j does relative to the anchor's
    match: the `}` that closes a function is not the `}` of a block inside it."""
    sketch = indent_width(lines[k]) - indent_width(lines[anchor])
    if sketch > 0 or indent_width(lines[k]) == index.indents[j]:
        return True  # a closer of a block opened after the anchor: restructured code, maybe
    return sketch == index.indents[j] - index.indents[matched[anchor]]


def match_between(
    keys: list[str], index: Index, matched: dict[int, int], k1: int, k2: int, j1: int, j2: int
) -> None:
    """Match the equal lines between chunk lines k1..k2 and original lines j1..j2."""
    left = keys[k1 + 1 : k2]
    right = index.keys[j1 + 1 : j2]
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for block in matcher.get_matching_blocks():
        for x in range(block.size):
            matched[k1 + 1 + block.a + x] = j1 + 1 + block.b + x


def _other_block(
    keys: list[str], lines: list[str], index: Index, k: int, j: int, *, own: bool = False
) -> bool:
    """Whether chunk line k, a closer (`}`), closes a block the chunk opens itself with another
    line than the one original line j closes: growing the match over it would take the
    original's closer for the chunk's and drop one. `own`: the original's opener is looked
    for at j's own depth (the chunk may be written deeper or shallower than the file)."""
    if not _bare_closer(keys[k]):
        return False
    depth = indent_width(lines[k])
    opener = next(
        (x for x in range(k - 1, -1, -1) if keys[x] and indent_width(lines[x]) <= depth), None
    )
    if opener is None or indent_width(lines[opener]) != depth:
        return False
    at = index.indents[j] if own else depth
    theirs = next(
        (x for x in range(j - 1, -1, -1) if index.keys[x] and index.indents[x] <= at), None
    )
    return theirs is None or index.keys[theirs] != keys[opener]


def _blank_pair(keys: list[str], index: Index, k: int, j: int) -> bool:
    """Whether chunk line k and original line j are both blank, or the same bare comment line
    (`///`): such lines join a match only with an equal telling line past them."""
    if not keys[k]:
        return index.blank[j]
    return keys[k] == index.keys[j] and keys[k] in BARE_COMMENT


def _extend_exact(
    keys: list[str], lines: list[str], index: Index, span: Span, bounds: tuple[int, int]
) -> None:
    """Grow the matched run outward over equal lines; a blank run (blank lines, or bare
    comment lines like `///`) only joins the match when an equal telling line follows it, or
    when it ends the chunk. Either way, a closer of a block the chunk opens with another line
    stops the growth (forward: the `}` of a new `else` the chunk wraps kept lines in is not
    the enclosing `switch`'s, which the chunk's last line closes)."""
    lower, upper = bounds
    matched = span.matched
    k, j = min(matched), span.a
    while k > 0 and j > lower:
        run = 0
        while (
            k - run > 0 and j - run > lower and _blank_pair(keys, index, k - run - 1, j - run - 1)
        ):
            run += 1
        kk, jj = k - run, j - run
        if (
            kk > 0
            and jj > lower
            and keys[kk - 1]
            and keys[kk - 1] == index.keys[jj - 1]
            and not _other_block(keys, lines, index, kk - 1, jj - 1)
        ):
            kk, jj = kk - 1, jj - 1
        elif not (run and kk == 0):
            break
        for x in range(k - kk):
            matched[kk + x] = jj + x
        k, j = kk, jj
    span.a = j
    k, j = max(matched), span.b - 1
    size = len(keys)
    while k + 1 < size and j + 1 < upper:
        run = 0
        while (
            k + run + 1 < size
            and j + run + 1 < upper
            and _blank_pair(keys, index, k + run + 1, j + run + 1)
        ):
            run += 1
        kk, jj = k + run, j + run
        if (
            kk + 1 < size
            and jj + 1 < upper
            and keys[kk + 1]
            and keys[kk + 1] == index.keys[jj + 1]
            and not _other_block(keys, lines, index, kk + 1, jj + 1, own=True)
        ):
            kk, jj = kk + 1, jj + 1
        elif not (run and kk == size - 1):
            break
        for x in range(1, kk - k + 1):
            matched[k + x] = j + x
        k, j = kk, jj
    span.b = j + 1


_WORDS = re.compile(r"[A-Za-z0-9_]{3,}")


def _same_start(a: str, b: str) -> bool:
    """Whether two lines share a long start (most of the shorter one)."""
    x, y = a.strip(), b.strip()
    prefix = _common_prefix(x, y)
    return prefix >= 8 and prefix >= 0.6 * min(len(x), len(y))


def _extend_similar(
    lines: list[str], source: list[str], span: Span, lower: int, upper: int
) -> None:
    """A changed first (last) line of context replaces its original instead of joining it;
    at the end also past blank lines both have, for a line that starts as its original does."""
    matched = span.matched
    k0 = min(matched)
    while k0 > 0 and span.a > lower and similar(lines[k0 - 1], source[span.a - 1]):
        k0 -= 1
        span.a -= 1
    k1 = max(matched)
    # The tail may already replace lines past its last match with its own edited lines: only
    # an original line sharing a word with the next sketch line then goes too (not `/// }`).
    consumed = span.b > matched[k1] + 1
    # Once consumed, the lines after the last match are edits of the original lines after it,
    # one for one at most: a sketch line does not rewrite two original lines (an import line
    # like the next one, which shares `import` and `from` with it).
    room = matched[k1] + sum(1 for line in lines[k1 + 1 :] if line.strip())
    while True:
        # Over blank lines the sketch and the original both have there (a new paragraph).
        run = 0
        while (
            k1 + run + 1 < len(lines)
            and span.b + run < upper
            and not lines[k1 + run + 1].strip()
            and not source[span.b + run].strip()
        ):
            run += 1
        k, j = k1 + run + 1, span.b + run
        if k >= len(lines) or j >= upper or not similar(lines[k], source[j]):
            return
        if _other_imports(lines[k].strip(), source[j].strip()):
            return
        if run and not _same_start(lines[k], source[j]):
            return  # past blank lines, only a line that starts as the original one does
        if consumed and not set(_WORDS.findall(source[j])) & set(_WORDS.findall(lines[k])):
            return
        if consumed and j > room:
            return
        for x in range(run):
            matched[k1 + 1 + x] = span.b + x
        k1, span.b = k, j + 1


def block_end(index: Index, j: int) -> int:
    """Last line of the block that line j opens (by indentation), its closing line included."""
    width = index.indents[j]
    end = j
    n = len(index.keys)
    cursor = j + 1
    while cursor < n and (index.blank[cursor] or index.indents[cursor] > width):
        if not index.blank[cursor]:
            end = cursor
        cursor += 1
    if cursor < n and index.indents[cursor] == width and index.keys[cursor].startswith(_CLOSERS):
        end = cursor
    return end


def _extend_blocks(
    lines: list[str], index: Index, span: Span, upper: int, next_marker: int | None
) -> None:
    """Where the sketch writes a block out to its end, the chunk replaces the whole block.

    The sketch's block must end with the chunk, before a marker no deeper than the block's
    opener; the original lines this removes must be few next to the lines the sketch wrote.
    """
    matched = span.matched
    k1 = max(matched)
    widths = [indent_width(line) if line.strip() else -1 for line in lines]
    for k in sorted(matched):
        v = widths[k]
        if v < 0:
            continue
        later = [w for w in widths[k + 1 :] if w >= 0]
        if not later or later[0] <= v or any(w <= v for w in later):
            continue  # not an opener, or its block closes inside the chunk
        if next_marker is not None and next_marker > v:
            continue
        if k1 < k:
            continue
        end = block_end(index, matched[k])
        last = max(x for x, w in enumerate(widths) if w >= 0)
        if (
            widths[last] > v
            and end > matched[k]
            and index.indents[end] == index.indents[matched[k]]
            and index.keys[end].startswith(_CLOSERS)
        ):
            end -= 1  # the sketch stops inside the block: the marker after it keeps its `}`
        if end < span.b or end >= upper:
            continue
        if k1 == last and end >= span.b:
            # The chunk ends on a line it kept, inside the block: a marker's indentation alone
            # (planners write them at column 0) does not say the block's remaining lines go.
            return
        removed = sum(1 for j in range(span.b, end + 1) if not index.blank[j])
        written = sum(1 for x in range(k1 + 1, len(lines)) if lines[x].strip())
        if removed <= 2 * written + 2:
            span.b = end + 1
        return
    _replace_rest_of_block(lines, index, span, upper, next_marker, k1)


_RETURN = re.compile(r"return\b")


def _replace_rest_of_block(
    lines: list[str], index: Index, span: Span, upper: int, next_marker: int | None, k1: int
) -> None:
    """New lines that end a chunk, before a marker shallower than the original lines that
    follow: the marker does not stand for those lines, so the new ones replace them (only
    when there are no more of them than new lines)."""
    if next_marker is None:
        return
    written = [x for x in range(k1 + 1, len(lines)) if lines[x].strip()]
    if not written or min(indent_width(lines[x]) for x in written) <= next_marker:
        return
    # New lines that are all the new versions of original lines the span already covers (old
    # versions past the last match) edit those lines and say nothing of the lines after them.
    spent = sum(1 for j in range(span.matched[k1] + 1, span.b) if not index.blank[j])
    end = span.b
    removed = 0
    while end < upper and (index.blank[end] or index.indents[end] > next_marker):
        removed += 0 if index.blank[end] else 1
        end += 1
    while end > span.b and index.blank[end - 1]:
        end -= 1
    # A definition among those lines that the sketch never names is other code the marker
    # keeps: its depth says nothing of the new lines replacing it.
    names = set(_NAMES.findall(" ".join(lines)))
    if any(
        (name := declared_name(index.lines[j])) and name not in names for j in range(span.b, end)
    ):
        return
    # A block's last `return` goes only where the new lines write a return of their own at its
    # depth: new lines without one add to the block rather than end it anew.
    last = max((j for j in range(span.b, end) if not index.blank[j]), default=None)
    if last is not None and _RETURN.match(index.lines[last].strip()):
        depth = index.indents[last]
        if not any(
            _RETURN.match(lines[x].strip()) and indent_width(lines[x]) == depth for x in written
        ):
            return
    if 0 < removed <= len(written) and spent < len(written):
        span.b = end


def refine(
    lines: list[str],
    keys: list[str],
    index: Index,
    source: list[str],
    pairs: list[tuple[int, int]],
    bounds: tuple[int, int],
    markers: tuple[bool, bool, int | None],
) -> Span:
    """The span a placed chunk replaces, within `bounds`; `markers` says (marker before it,
    marker after it, that marker's indentation or None at the end of the sketch)."""
    lower, upper = bounds
    before, after, next_indent = markers
    span = Span(pairs[0][1], pairs[-1][1] + 1, dict(pairs))
    _extend_exact(keys, lines, index, span, (lower, upper))
    _complete_tail(keys, lines, index, span, upper, after)
    _complete_head(keys, lines, index, span, lower, before)
    _extend_exact(keys, lines, index, span, (lower, upper))
    _extend_similar(lines, source, span, lower, upper)
    if after:
        _extend_blocks(lines, index, span, upper, next_indent)
    return span


def dropped_blanks(keys: list[str], matched: dict[int, int], before: bool, after: bool) -> set[int]:
    """Unmatched blank lines right next to a marker: spacing around the elision, not new code.

    `before` is only set by the caller where the original already has a blank line there."""
    dropped: set[int] = set()
    if after:
        k = len(keys) - 1
        while k >= 0 and not keys[k] and k not in matched:
            dropped.add(k)
            k -= 1
    if before:
        k = 0
        while k < len(keys) and not keys[k] and k not in matched:
            dropped.add(k)
            k += 1
    return dropped


def leading_of(line: str) -> str:
    return leading(line)
