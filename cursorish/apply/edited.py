"""Placing a chunk that shares no line with the original: the lines it edits.

A sketch that changes one line (`substr` to `slice`, a new parameter) may keep no unchanged
line around it that is rare enough to anchor on (only `*/` or a blank). Its changed lines still
read as edited versions of original lines. Only a chunk whose every telling line is such an
edit, all at the same distance as in the sketch, is placed so; the usual ordering, marker
floors and tie checks decide between such placements or refuse.
"""

from __future__ import annotations

import difflib
import re

from cursorish.apply.align import Index, Placement
from cursorish.apply.lines import STRING_LITERAL, indent_width, weight
from cursorish.apply.spans import Span, similar

SCORE = 1.0  # an edited line is evidence, but less than an equal one (1.0 plus edge bonus)
_PREFIX = 8  # a line and its edited version share at least this many leading characters
MAX_MATCHES = 4  # a line similar to more original lines than this says nothing
_COMMENTS = ("#", "//", "/*", "*", "--", "<!--")
_ALIKE_LENGTH = 16  # a shorter line (`return 2`) is like too many others to be placed by likeness
_ALIKE = 0.8  # likeness of two lines' text that reads as one edited into the other
_CLOSENESS = 2.0  # the bonus of a line identical to its original but for a character
_FLOOR = 0.6  # likeness below which an edited line earns no bonus
PARTLY_SCORE = 0.5  # an edit among new lines anchors less than a chunk of edits only
_PARTLY_GAP = 12  # original lines an edit's neighbours may have replaced between two edits
_LONG_EDIT = 24  # a single edited line this long is telling enough to anchor new code


def edited_candidates(
    chunk_keys: list[str], chunk_lines: list[str], index: Index
) -> list[Placement]:
    """Placements of a chunk by its telling lines read as edits of similar original lines."""
    by_head: dict[str, list[int]] | None = None
    found: dict[int, list[int]] = {}
    for k, kk in enumerate(chunk_keys):
        if weight(kk) < 1.0 or len(kk) < _PREFIX:
            continue
        if by_head is None:
            by_head = _heads(index)
        width = indent_width(chunk_lines[k])
        matches = [
            j
            for j in by_head.get(kk[:_PREFIX], ())
            if index.indents[j] == width and similar(chunk_lines[k], index.lines[j], loose=True)
        ]
        if not matches:
            matches = _alike(chunk_lines[k], width, index)
        elif len(matches) > MAX_MATCHES:
            matches = _nearest(chunk_lines[k], matches, index)
        if 0 < len(matches) <= MAX_MATCHES:
            found[k] = matches
    telling = [k for k, kk in enumerate(chunk_keys) if weight(kk) >= 1.0]
    if not telling or not found:
        return []
    # Lines that wrap the rest of an edited line (`f(` / `a,` / `)`) are part of its edit.
    wrapped = _wrapped(chunk_keys, chunk_lines, found, index)
    telling = [k for k in telling if k not in wrapped]
    if any(k not in found for k in telling):
        # Some telling lines are new: the chunk adds code beside lines it edits.
        return _partly_edited(chunk_keys, chunk_lines, found, index)
    first = telling[0]
    out: list[Placement] = []
    folded = [0] * (len(chunk_keys) + 1)  # wrapped lines before each line
    for k in range(len(chunk_keys)):
        folded[k + 1] = folded[k] + (k in wrapped)
    for j0 in found[first]:
        pairs = [(k, j0 + k - first - folded[k] + folded[first]) for k in telling]
        if all(j in found[k] for k, j in pairs):
            score = sum(SCORE + _closeness(chunk_lines[k], index.lines[j]) for k, j in pairs)
            out.append(Placement(pairs, score, pairs[0][1], pairs[-1][1] + 1))
    return out


def _wrapped(
    chunk_keys: list[str], chunk_lines: list[str], found: dict[int, list[int]], index: Index
) -> set[int]:
    """The lines after an edited line ending in an opening bracket that a formatter wrapped
    off it: deeper lines up to the closer at its depth, where the edited line and those lines
    joined read as an edit of the original line it is found at (which it starts like). Its
    places are narrowed to those originals."""
    out: set[int] = set()
    for k in sorted(found):
        if k in out or not chunk_keys[k].endswith(_OPENERS):
            continue
        width = indent_width(chunk_lines[k])
        end = k + 1
        while end < len(chunk_keys) and (
            not chunk_keys[end] or indent_width(chunk_lines[end]) > width
        ):
            end += 1
        if end >= len(chunk_keys) or end == k + 1 or not chunk_keys[end].startswith(_CLOSING):
            continue
        joined = _unwrap(" ".join(kk for kk in chunk_keys[k : end + 1] if kk))
        places = [
            j
            for j in found[k]
            if index.keys[j].startswith(chunk_keys[k]) and similar(joined, _unwrap(index.keys[j]))
        ]
        if places:
            found[k] = places
            out.update(range(k + 1, end + 1))
    return out


_OPENERS = ("(", "[", "{")
_CLOSING = (")", "]", "}")


def _unwrap(text: str) -> str:
    """A line's text as a formatter joins it: no space inside brackets, no trailing comma."""
    text = re.sub(r"([(\[{])\s+", r"\1", text)
    return re.sub(r",?\s*([)\]}])", r"\1", text)


def _closeness(line: str, original: str) -> float:
    """Extra evidence from how close an edited line is to the original one: a line with one
    typo fixed tells its place far better than one that only shares its start."""
    ratio = difflib.SequenceMatcher(None, line.strip(), original.strip(), autojunk=False).ratio()
    return _CLOSENESS * max(0.0, ratio - _FLOOR) / (1.0 - _FLOOR)


def _likeness(line: str) -> difflib.SequenceMatcher[str] | None:
    """A matcher set to `line`'s text, to measure original lines against it; None for a short
    line or a comment, which share their wording too often to tell an edit by likeness."""
    text = line.strip()
    if len(text) < _ALIKE_LENGTH or text.startswith(_COMMENTS):
        return None
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(text)
    return matcher


def _alike(line: str, width: int, index: Index) -> list[int]:
    """Original lines at the same depth that read as `line` with a word or two changed (no
    shared start needed: `list[str]` for `List[str]`), by a high likeness of their text."""
    matcher = _likeness(line)
    if matcher is None:
        return []
    text = line.strip()
    out: list[int] = []
    for j, other in enumerate(index.lines):
        if (
            index.indents[j] != width
            or index.blank[j]
            or abs(len(other.strip()) - len(text)) > len(text) // 3
        ):
            continue
        matcher.set_seq1(other.strip())
        if matcher.real_quick_ratio() < _ALIKE or matcher.quick_ratio() < _ALIKE:
            continue
        if matcher.ratio() >= _ALIKE:
            out.append(j)
            if len(out) > MAX_MATCHES:
                break
    return out


def _nearest(line: str, matches: list[int], index: Index) -> list[int]:
    """Of the many original lines that start like `line` (headers of one receiver's methods,
    `func (e *Entry) ...`), the one that reads as it with a word or two changed by a high
    likeness of its whole text: the one edited, not its siblings. Only for a line long
    enough to tell (not `return e`) and no comment, and only where one original line is so."""
    matcher = _likeness(line)
    if matcher is None:
        return []
    out: list[int] = []
    for j in matches:
        matcher.set_seq1(index.lines[j].strip())
        if matcher.quick_ratio() >= _ALIKE and matcher.ratio() >= _ALIKE:
            out.append(j)
    return out if len(out) == 1 else []


def _partly_edited(
    chunk_keys: list[str], chunk_lines: list[str], found: dict[int, list[int]], index: Index
) -> list[Placement]:
    """Placements of a chunk whose telling lines are partly new code and partly edits of
    original lines: the edits, in order and close together in the original, anchor it. One
    edit alone anchors only a chunk it is the most of (a long line, not `return x`)."""
    edits = sorted(k for k in found if not chunk_lines[k].strip().startswith(_COMMENTS))
    if not edits or (len(edits) == 1 and len(chunk_keys[edits[0]]) < _LONG_EDIT):
        return []
    out: list[Placement] = []
    for j0 in found[edits[0]]:
        pairs = [(edits[0], j0)]
        for k in edits[1:]:
            k_prev, j_prev = pairs[-1]
            nxt = [j for j in found[k] if j_prev < j <= j_prev + (k - k_prev) + _PARTLY_GAP]
            if not nxt:
                break
            pairs.append((k, nxt[0]))
        else:
            if _confirmed(chunk_keys, pairs, index):
                out.append(
                    Placement(pairs, PARTLY_SCORE * len(pairs), pairs[0][1], pairs[-1][1] + 1)
                )
    return out


def _confirmed(chunk_keys: list[str], pairs: list[tuple[int, int]], index: Index) -> bool:
    """Whether some edit's neighbour in the chunk (its next non-blank line up or down) is the
    very line next to the edited original: context that says this is the place. Without it,
    a line like an original one may be new code beside it (an overload, a sibling)."""
    for k, j in pairs:
        for step in (-1, 1):
            kk, jj = k + step, j + step
            while 0 <= kk < len(chunk_keys) and not chunk_keys[kk]:
                kk += step
            while 0 <= jj < len(index.keys) and index.blank[jj]:
                jj += step
            inside = 0 <= kk < len(chunk_keys) and 0 <= jj < len(index.keys)
            if inside and chunk_keys[kk] == index.keys[jj]:
                return True
    return False


def _heads(index: Index) -> dict[str, list[int]]:
    heads: dict[str, list[int]] = {}
    for j, k in enumerate(index.keys):
        if len(k) >= _PREFIX:
            heads.setdefault(k[:_PREFIX], []).append(j)
    return heads


_TERMINAL = ("return", "raise", "throw")  # code after these in their block never runs


def block_tail_candidates(
    chunk_keys: list[str], chunk_lines: list[str], index: Index
) -> list[Placement]:
    """Where new code that ends a block goes: a chunk whose last lines are an edited
    `return` and the block's closer (`}`) replaces the one block ending in a `return` like it
    followed by that very closer. A second `return` after the old one would never run, so the
    new one replaces it; the chunk's other lines come before it. Several such blocks are
    candidates like any others: the markers' depths and the tie checks decide."""
    lines = [k for k, kk in enumerate(chunk_keys) if kk]
    if len(lines) < 2:
        return []
    close, last = lines[-1], lines[-2]
    if weight(chunk_keys[close]) >= 0.5 or weight(chunk_keys[last]) < 1.0:
        return []
    if chunk_keys[last].split(" ", 1)[0] not in _TERMINAL:
        return []
    depth = indent_width(chunk_lines[last])
    if depth <= indent_width(chunk_lines[close]):
        return []
    out: list[Placement] = []
    for j in index.positions.get(chunk_keys[close], ()):
        if index.indents[j] != indent_width(chunk_lines[close]):
            continue
        before = j - 1
        while before >= 0 and index.blank[before]:
            before -= 1
        if before < 0 or index.indents[before] != depth:
            continue
        if index.keys[before].split(" ", 1)[0] != chunk_keys[last].split(" ", 1)[0]:
            continue
        if similar(chunk_lines[last], index.lines[before]):
            pairs = [(last, before), (close, j)]
            out.append(Placement(pairs, SCORE, before, j + 1))
    return out


_STATEMENT_LINES = 40  # a wrapped statement longer than this is no single line's original


def joined_statement(keys: list[str], span: Span, index: Index, upper: int) -> None:
    """A chunk's last line that joins a statement the original wraps over several lines
    (`call(` / its arguments / `)` written as one `call(a, b)`), edited, replaces that whole
    statement through its closing line: read as an edit of `call(` alone it would leave the
    old arguments and closer behind. The line stands for the last original line the span
    replaces (no other chunk line is matched to it), starts with that line, closes every
    bracket it opens and reads as the statement's lines joined."""
    shown = [k for k, kk in enumerate(keys) if kk]
    if not shown or not span.matched or span.b <= span.a:
        return
    last, j = shown[-1], span.b - 1
    if keys[last] == index.keys[j] or any(v == j for k, v in span.matched.items() if k != last):
        return
    if last not in span.matched and (max(span.matched) > last or j <= max(span.matched.values())):
        return  # the line is new code after the chunk's last match, not an edit of one
    end = _statement_end(keys[last], index, j, upper)
    if end is not None:
        span.b = end + 1


def joined_statement_before(
    keys: list[str], lines: list[str], span: Span, index: Index, lower: int
) -> None:
    """The mirror at a chunk's start: its one new line before its first match, joining the
    wrapped statement that ends right before that match in the original (with blank lines
    between them in both or in neither), replaces that statement from its first line on."""
    if not span.matched:
        return
    k0 = min(span.matched)
    shown = [k for k in range(k0) if keys[k]]
    if len(shown) != 1:
        return
    first, j0 = shown[0], span.matched[k0]
    if j0 != span.a:
        return
    close = j0 - 1
    while close > lower and index.blank[close]:
        close -= 1
    if close <= lower or (k0 - first > 1) != (j0 - close > 1):
        return
    width = indent_width(lines[first]) - (indent_width(lines[k0]) - index.indents[j0])
    if index.indents[close] != width or not index.keys[close].startswith(_CLOSING):
        return
    opener = close - 1
    while opener > lower and (index.blank[opener] or index.indents[opener] > width):
        opener -= 1
    if index.indents[opener] != width or index.blank[opener]:
        return
    if _statement_end(keys[first], index, opener, j0) == close:
        span.a = opener


def _statement_end(key: str, index: Index, j: int, upper: int) -> int | None:
    """The closing line of the statement original line `j` opens and wraps, when `key` (one
    line) starts with line `j`, closes every bracket it opens and reads as its lines joined."""
    first = index.keys[j]
    if not first.endswith(_OPENERS) or not key.startswith(first) or key == first:
        return None
    if not _balanced(key):
        return None
    width = index.indents[j]
    end = j + 1
    stop = min(upper, j + _STATEMENT_LINES)
    while end < stop and (index.blank[end] or index.indents[end] > width):
        end += 1
    if end >= stop or end == j + 1 or not index.keys[end].startswith(_CLOSING):
        return None
    joined = _unwrap(" ".join(kk for kk in index.keys[j : end + 1] if kk))
    if not _balanced(joined) or not similar(_unwrap(key), joined):
        return None
    return end


def _balanced(text: str) -> bool:
    """Whether a line closes every bracket it opens, in order (strings left out)."""
    depth = 0
    for c in STRING_LITERAL.sub("", text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
