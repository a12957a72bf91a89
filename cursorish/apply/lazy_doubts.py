"""The doubts that refuse a merge whose reading is unclear: a chunk's weak edges, blank lines,
comments, imports, closers, and lines it copies or crosses. Each returns its reasons; the merge
is refused with the first.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

from cursorish.apply.align import STRONG, Index, side_by_side
from cursorish.apply.blocks import declared_name
from cursorish.apply.lazy_edges import _bracket_closer, _comment_words, _Definitions, _line_kind
from cursorish.apply.lazy_sketch import (
    _COMMON_WORDS,
    _EDGE_REACH,
    _LIKE,
    _TELLING_LENGTH,
    _WORD,
    WORDY,
    Chunk,
    LazySketch,
    RefusedMerge,
)
from cursorish.apply.lines import (
    indent_width,
    key,
    weight,
)
from cursorish.apply.spans import Span, block_end
from cursorish.apply.structure import Definition, definitions
from cursorish.apply.twin_copies import (
    doc_of_new_definition,
    in_other_function,
    innermost_function,
)

_CROSSED = 4  # repeated lines a chunk matches across a line it moves: a reading, not a move
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
    guess. So too where the chunk's edge line is an empty comment line shown right by a
    telling line (`_bare_edge_by`), the deleted line between them."""
    if not gone or len(span.matched) < 2:
        return []
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    anchors = sorted(span.matched.items())
    for (k1, j1), (k2, j2) in itertools.pairwise(anchors):
        if j2 - j1 < 2 or (k1 != shown[0] and k2 != shown[-1]):
            continue
        bare = (chunk.keys[k1] in _EMPTY_COMMENT, chunk.keys[k2] in _EMPTY_COMMENT)
        if not all(bare) and not _bare_edge_by(shown, (k1, k2), bare):
            continue
        lost = [j for j in gone if j1 < j < j2 and weight(index.keys[j]) >= STRONG]
        new = [chunk.keys[k] for k in range(k1 + 1, k2) if chunk.keys[k]]
        if lost and not any(
            difflib.SequenceMatcher(None, index.keys[j], line, autojunk=False).ratio() >= _LIKE
            for j in lost
            for line in new
        ):
            what = (
                "two empty comment lines, which recur"
                if all(bare)
                else "an empty comment line, which recurs, and the line shown next to it"
            )
            return [
                f"{chunk.where()} delete original line {lost[0] + 1} between {what}: unclear "
                "whether it goes or stays"
            ]
    return []


def _bare_edge_by(shown: list[int], pair: tuple[int, int], bare: tuple[bool, bool]) -> bool:
    """Whether one of two chunk lines shown one right after the other is an empty comment line
    at the chunk's edge (the other a telling line): the telling line pins the reading, but
    nothing pins the empty one, which may be a copy elsewhere (the chunk placed at another
    stretch) as well as the line before (after) the lines the merge deletes."""
    k1, k2 = pair
    if k1 not in shown or k2 not in shown or shown.index(k2) != shown.index(k1) + 1:
        return False
    return (bare[0] and k1 == shown[0]) or (bare[1] and k2 == shown[-1])


def _closer_led_rename(
    chunk: Chunk,
    span: Span,
    source: list[str],
    gone: list[int],
    written: frozenset[str],
) -> list[str]:
    """A chunk that opens with a bare closer (`}`) and then writes a new definition, read as
    renaming the original definition it deletes there: the closer ends any definition, so
    the chunk may as well add its definition after the one it seems to rename. Not where the
    sketch (its lines, stripped, `written`) also writes a line that uses the old name
    elsewhere in the file with the new name instead: it renames the uses, so the definition."""
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
        renamed = {
            declared_name(source[j])
            for j in gone
            if declared_name(source[j]) in old and indent_width(source[j]) == width
        }
        if renamed and not any(_uses_renamed(o, name, source, written) for o in renamed):
            return [
                f"{chunk.where()} open with a closing line and read as renaming a definition "
                f"into {name}: unclear whether they rename it or add {name} after it"
            ]
    return []


def _uses_renamed(old: str | None, new: str, source: list[str], written: frozenset[str]) -> bool:
    """Whether the sketch writes some original line that uses `old` (not one declaring it)
    with `new` in its place: the sketch renames that use as well."""
    if old is None:
        return False
    pattern = re.compile(rf"\b{re.escape(old)}\b")
    return any(
        pattern.sub(new, line).strip() in written
        for line in source
        if old in line and pattern.search(line) and declared_name(line) != old
    )


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


def _same_method_doubts(
    chunk: Chunk, span: Span, index: Index, named: _Definitions, bounds: tuple[int, int]
) -> list[str]:
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
        if not span.a <= other < span.b
        and bounds[0] <= other < bounds[1]
        and _next_key(index, other, -1) == _next_key(index, j, -1)
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


def _one_line_anchors(chunk: Chunk, span: Span, index: Index) -> list[str]:
    """A chunk whose only anchors are copies of one worded line the file writes more than once
    (a `// @ts-ignore`, a `# noqa`), matched at two copies with original lines between them
    that the merge deletes: which copies the sketch's lines are, and so what goes, is a guess."""
    pairs = sorted(span.matched.items())
    if len(pairs) < 2:
        return []
    texts = {chunk.keys[k] for k, _ in pairs}
    if len(texts) != 1:
        return []
    text = next(iter(texts))
    if not re.search(r"[A-Za-z]{2}", text) or index.count(text) < 2:
        return []  # a bare `}` or `//` anchors nothing alone: other doubts weigh those
    kept = {j for _, j in pairs}
    first, last = pairs[0][1], pairs[-1][1]
    gone = [j for j in range(first + 1, last) if j not in kept and not index.blank[j]]
    if not gone:
        return []
    return [
        f"{chunk.where()} anchor only on copies of {text!r}, which the file writes "
        f"{index.count(text)} times, and would delete original line {gone[0] + 1} between "
        "them: which copies the sketch means is a guess"
    ]


def _around(index: Index, j: int) -> tuple[str, str]:
    return _next_key(index, j, -1), _next_key(index, j, 1)


def _copied_doubts(
    sketch: LazySketch,
    placed: list[tuple[str, str, str, int, int]],
    kept: set[int],
    index: Index,
    pinned: list[tuple[list[str], dict[int, int], int]],
    lang: str,
) -> list[str]:
    """A telling line the original and the sketch each hold once, written as new code while
    the original's copy stays: the chunk was placed next to the lines it shows, not over them
    (the reading that is right may delete a definition the sketch never mentions). Far from
    the original's copy (beyond the markers next to the chunk), or between other lines than
    there, the line is deliberate code copied or moved elsewhere. One kept neighbour that
    agrees is enough when the other is new, unless it is a bare closer (`}`, which ends every
    block) and, on the new side, the chunk goes on past the lines it shares with the
    original's copy to a kept line the copy does not have there: the chunk puts the line
    beside other code than the copy's. Not where the chunk writes the line into another
    function than the original's copy, which the merge keeps whole (`_twin_function`), or a
    doc comment onto a new definition (`twin_copies.doc_of_new_definition`)."""
    shown = Counter(k for chunk in sketch.chunks for k in chunk.keys)
    parsed: list[list[Definition]] = []
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
        if _verbatim_copy(keys, at, index, j) and _replaces_unique(index, kept, matched):
            continue  # read over the copy the chunk changes nothing: no reading of an edit
        # A neighbour written new too (the line before it edited) says nothing either way.
        if a <= j < b and j in kept and up in ("", before) and down in ("", after):
            if doc_of_new_definition(keys[at:], index.lines, j):
                continue
            if not parsed:
                parsed.append(definitions("\n".join(index.lines), lang))
            if _twin_function(keys, matched, at, index, j, shown, kept, parsed[0]):
                continue
            return [
                f"the sketch's line {k[:60]!r} would appear twice: the original has it once "
                f"(line {j + 1}) and the sketch's copy was placed elsewhere"
            ]
    return []


def _twin_function(
    keys: list[str],
    matched: dict[int, int],
    at: int,
    index: Index,
    j: int,
    shown: Counter[str],
    kept: set[int],
    found: list[Definition],
) -> bool:
    """Whether the chunk (with these keys) writes its line `at` between lines it matched in
    another function than the one holding the original's copy (line j), which the merge
    keeps whole, and matched a telling line of that function the original and the sketch
    each hold once (`twin_copies.in_other_function`): the twin of a line of another function."""
    up = max((k for k in matched if k < at and keys[k]), default=None)
    down = min((k for k in matched if k > at and keys[k]), default=None)
    if up is None or down is None:
        return False
    home = innermost_function(found, [matched[up], matched[down]])
    pins = [
        oj
        for ck, oj in matched.items()
        if len(keys[ck]) >= _TELLING_LENGTH
        and weight(keys[ck]) >= STRONG
        and index.count(keys[ck]) == 1
        and shown[keys[ck]] == 1
    ]
    return in_other_function(index.lines, found, j, home, pins, kept.__contains__)


def _verbatim_copy(keys: list[str], k: int, index: Index, j: int) -> bool:
    """Whether the chunk (with these keys), read with its line k over original line j, is a
    copy of the original there, line for line (blank lines aside): placed over that copy, it
    would change nothing, so the copy is no place the sketch edits."""
    for step in (-1, 1):
        for ck, oj in side_by_side(keys, index, k, j, step):
            if not 0 <= ck < len(keys):
                break
            if not 0 <= oj < len(index.keys) or keys[ck] != index.keys[oj]:
                return False
    return True


def _replaces_unique(index: Index, kept: set[int], matched: dict[int, int]) -> bool:
    """Whether every telling original line the chunk (its lines matched to these original
    ones) replaces occurs once in the original: a replaced line the file repeats may be meant
    at its other copy."""
    if not matched:
        return False
    low, high = min(matched.values()), max(matched.values())
    return all(
        index.count(index.keys[j]) == 1
        for j in range(low, high + 1)
        if j not in kept and weight(index.keys[j]) >= STRONG
    )


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
    if j >= upper or _line_kind(source[j]) != "comment":
        return []
    if key(source[j]) in _EMPTY_COMMENT:
        return _before_empty_comment(chunk, span, source, j)
    if not _comment_words(source[j]):
        return []
    if indent_width(source[j]) != indent_width(lines[last]):
        return []
    kept = [k for k, at in span.matched.items() if key(lines[k]) == key(source[at])]
    if not kept:
        return []
    k0 = max(kept)
    new = [k for k in range(k0 + 1, last + 1) if lines[k].strip()]
    replaced = j - (span.matched[k0] + 1)
    if not replaced and new and chunk.keys[k0] in _EMPTY_COMMENT:
        return [
            f"{chunk.where()} end on a new comment paragraph at a marker, after an empty "
            f"comment line that recurs, right before the original's next paragraph (original "
            f"line {j + 1}): unclear whether an empty comment line parts the two"
        ]
    if len(new) == 1 == replaced and _cut_short(lines[new[0]], source[j - 1]):
        return [
            f"{chunk.where()} end at a marker on a comment line that cuts original line {j} "
            f"short, and the original's comment goes on after it (original line {j + 1}): "
            "unclear whether the rest of that comment stays"
        ]
    if len(new) < 2 or replaced < 1 or len(new) <= replaced:
        return []  # lines only added, or as many old lines rewritten as the chunk writes
    return [
        f"{chunk.where()} end on new comment lines at a marker, written over old ones, and "
        f"the original's comment goes on after them (original line {j + 1}): unclear "
        "whether the rest of that comment stays or the new lines rewrite it too"
    ]


def _before_empty_comment(chunk: Chunk, span: Span, source: list[str], j: int) -> list[str]:
    """The chunk, the file's first lines (its header comment), ends at a marker on one new
    comment line right after a kept comment line, and the original line after that kept one
    is an empty comment line (`//`, `#`) at its depth: the new line may be added above the
    empty one or write words into it. (Further down, a doc comment's new line ending a
    paragraph before its empty comment line merges: test_go_5.)"""
    lines = chunk.lines
    last = len(lines) - 1
    k0 = last - 1
    if span.a or k0 not in span.matched or span.matched[k0] != j - 1 or j - 1 != k0:
        return []  # only the file's own head: the chunk's lines are its first lines
    if key(lines[k0]) != key(source[j - 1]) or _line_kind(lines[k0]) != "comment":
        return []
    if indent_width(source[j]) != indent_width(lines[last]):
        return []
    return [
        f"{chunk.where()} end at a marker on a new comment line right before the original's "
        f"empty comment line {j + 1}: unclear whether it is added or fills that line"
    ]


def _cut_short(new: str, old: str) -> bool:
    """Whether comment line `new` is `old` with words cut off its end (a sentence the old line
    started, and the lines after it may go on, dropped)."""
    x, y = new.strip(), old.strip()
    return len(x) < len(y) and y.startswith(x) and bool(_WORD.search(y[len(x) :]))


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
    column = indent_width(chunk.lines[k2])
    opens = bool(new) and new[0].endswith(("{", "(", "["))
    # Or a later new line opens a block at the closer's depth while an original line passed
    # over opened the block the closer ends there: the old block goes but for its closer.
    opens = opens or (
        any(
            chunk.keys[k].endswith(("{", "(", "[")) and indent_width(chunk.lines[k]) == column
            for k in range(k1 + 1, k2)
        )
        and any(
            index.keys[j].endswith(("{", "(", "[")) and index.indents[j] == index.indents[j2]
            for j in range(j1 + 1, j2)
        )
    )
    if not new or not old or not opens:
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
