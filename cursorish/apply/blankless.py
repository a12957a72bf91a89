"""Sketches that dropped every blank line: where the merge cannot know the spacing, refuse.

Planners often write a sketch without a single blank line, markers kept (one that twice shows
two lines next to each other that the original spaces apart has dropped them). Such a sketch says
nothing of where blank lines go: the merge keeps the original's blank lines between lines it
keeps, but new code that takes the place of original lines with blank lines among them, or that
goes in next to an original blank line, would get spacing the sketch never gave (the original's
spacing inside a rewritten function lost, a new definition glued to the next one); and original
blank lines deleted between lines the merge keeps were never said to go. Those merges are
refused; new code within a stretch that had no blank line is merged as usual.

This module tells such a sketch and holds the line diff the two others share: the doubt is in
`blankless_doubt`, the spacing given back in `blankless_respace`.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections import Counter

from cursorish.apply.languages import Language
from cursorish.apply.markers import is_marker

_MIN_CODE_LINES = 2  # a one-line sketch has no spacing to drop
JOINED = 2  # places where the sketch joins lines the original spaces apart, at least
NOT_CODE = ("#", "//", "/*", "*", "@")  # comments, attributes, decorators: part of what follows


def dropped_every_blank(lines: list[str], lang: Language, original: list[str]) -> bool:
    """Whether the sketch's code (markers aside) has no blank line and shows it dropped them:
    in two places, two lines it writes one after the other stand in the original with only
    blank lines between them (a sketch that shows its lines as they are would show those)."""
    code = blankless_code(lines, lang)
    return code is not None and joined_places(code, original) >= JOINED


def blankless_code(lines: list[str], lang: Language) -> list[str] | None:
    """The sketch's code lines (markers aside) when there are several and none is blank."""
    code = [line for line in lines if not is_marker(line, lang)]
    while code and not code[0].strip():
        code.pop(0)
    while code and not code[-1].strip():
        code.pop()
    if len(code) < _MIN_CODE_LINES or not all(line.strip() for line in code):
        return None
    return code


def joined_places(code: list[str], original: list[str]) -> int:
    """How often two lines the sketch writes one after the other stand in the original with
    only blank lines between them (one such place alone may be a blank line the edit
    deletes)."""
    after_blanks: dict[str, set[str]] = {}  # line -> the lines that follow it past blank lines
    previous: str | None = None
    gap = False
    for line in original:
        if not line.strip():
            gap = previous is not None
            continue
        if gap and previous is not None:
            after_blanks.setdefault(previous.strip(), set()).add(line.strip())
        previous, gap = line, False
    return sum(
        second.strip() in after_blanks.get(first.strip(), ())
        for first, second in itertools.pairwise(code)
    )


def shows_no_blank(lines: list[str]) -> bool:
    """Whether the sketch has no blank line between its first and last non-blank line."""
    shown = [k for k, line in enumerate(lines) if line.strip()]
    return bool(shown) and all(lines[k].strip() for k in range(shown[0], shown[-1] + 1))


def opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes from `old` to `new`, diffed gap by gap between the lines each of them
    holds once (a chain increasing in both): one diff of a whole file's stretch is quadratic in
    its repeated lines (blank lines, closers), and a merge of chunks far apart spans the file."""
    once_old = Counter(old)
    once_new = Counter(new)
    at_new = {line: j for j, line in enumerate(new) if once_new[line] == 1}
    pairs = [
        (i, at_new[line]) for i, line in enumerate(old) if once_old[line] == 1 and line in at_new
    ]
    ops: list[tuple[str, int, int, int, int]] = []
    a = b = 0  # where the gap after the last anchor begins
    run = (0, 0)  # where the equal run that ends at the gap began
    for i, j in [*_increasing(pairs), (len(old), len(new))]:
        if i == a and j == b and i < len(old):  # the next line of an equal run
            a, b = i + 1, j + 1
            continue
        # The gap's own common ends need no diff: most gaps are all common ends. (Walked in
        # place: `_stretch` on each gap's slices cost 1 ms more at 2,500 lines.)
        head = 0
        while a + head < i and b + head < j and old[a + head] == new[b + head]:
            head += 1
        if a + head == i and b + head == j and i < len(old):  # no gap: the run goes on
            a, b = i + 1, j + 1
            continue
        tail = 0
        while (
            a + head < i - tail and b + head < j - tail and old[i - 1 - tail] == new[j - 1 - tail]
        ):
            tail += 1
        a, b = a + head, b + head
        if run[0] < a:
            ops.append(("equal", run[0], a, run[1], b))
        if a < i - tail or b < j - tail:
            gap = difflib.SequenceMatcher(a=old[a : i - tail], b=new[b : j - tail], autojunk=False)
            ops.extend(
                (tag, a + i1, a + i2, b + j1, b + j2) for tag, i1, i2, j1, j2 in gap.get_opcodes()
            )
        run = (i - tail, j - tail)
        a, b = i + 1, j + 1
    if run[0] < len(old):
        ops.append(("equal", run[0], len(old), run[1], len(new)))
    return ops


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of `pairs` (in increasing first order) whose second items increase."""
    if all(x[1] < y[1] for x, y in itertools.pairwise(pairs)):
        return pairs  # the usual merge: no line moved
    tails: list[int] = []  # the second item ending the best chain of each length
    ends: list[int] = []  # the index in `pairs` of that chain's last pair
    before: list[int] = []
    for k, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            ends.append(k)
        else:
            tails[at] = j
            ends[at] = k
        before.append(ends[at - 1] if at else -1)
    chain: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        chain.append(pairs[k])
        k = before[k]
    return chain[::-1]


def _stretch(before: list[str], after: list[str]) -> tuple[int, int]:
    """The common head and tail (in lines) of two files: only the stretch between differs."""
    shorter = min(len(before), len(after))
    pairs = zip(before, after, strict=False)
    head = next((k for k, (x, y) in enumerate(pairs) if x != y), shorter)
    ends = zip(reversed(before), reversed(after), strict=False)
    tail = next((k for k, (x, y) in enumerate(ends) if x != y or k >= shorter - head), shorter)
    return head, min(tail, shorter - head)


def differing(before: list[str], after: list[str]) -> tuple[int, int, list[str], list[str]]:
    """The common head and tail of two files (`_stretch`) and the two stretches between them."""
    head, tail = _stretch(before, after)
    return head, tail, before[head : len(before) - tail], after[head : len(after) - tail]
