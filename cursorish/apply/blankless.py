"""Sketches that dropped every blank line: where the merge cannot know the spacing, refuse.

Planners often write a sketch without a single blank line, markers kept (one that twice shows
two lines next to each other that the original spaces apart has dropped them). Such a sketch says
nothing of where blank lines go: the merge keeps the original's blank lines between lines it
keeps, but new code that takes the place of original lines with blank lines among them, or that
goes in next to an original blank line, would get spacing the sketch never gave (the original's
spacing inside a rewritten function lost, a new definition glued to the next one); and original
blank lines deleted between lines the merge keeps were never said to go. Those merges are
refused; new code within a stretch that had no blank line is merged as usual.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from collections import Counter
from collections.abc import Iterator

from cursorish.apply.languages import Language
from cursorish.apply.lines import CLOSING_BRACKETS, indent_width
from cursorish.apply.markers import is_marker
from cursorish.apply.spans import _same_start, similar
from cursorish.apply.structure import definitions

_MIN_CODE_LINES = 2  # a one-line sketch has no spacing to drop
_JOINED = 2  # places where the sketch joins lines the original spaces apart, at least


def dropped_every_blank(lines: list[str], lang: Language, original: list[str]) -> bool:
    """Whether the sketch's code (markers aside) has no blank line and shows it dropped them:
    in two places, two lines it writes one after the other stand in the original with only
    blank lines between them (a sketch that shows its lines as they are would show those)."""
    code = _blankless_code(lines, lang)
    return code is not None and _joined_places(code, original) >= _JOINED


def _blankless_code(lines: list[str], lang: Language) -> list[str] | None:
    """The sketch's code lines (markers aside) when there are several and none is blank."""
    code = [line for line in lines if not is_marker(line, lang)]
    while code and not code[0].strip():
        code.pop(0)
    while code and not code[-1].strip():
        code.pop()
    if len(code) < _MIN_CODE_LINES or not all(line.strip() for line in code):
        return None
    return code


def _joined_places(code: list[str], original: list[str]) -> int:
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


def blankless_doubt(original: str, merged: str, lines: list[str], lang: Language) -> str | None:
    """The reason to refuse `merged`, or None (see the module docstring)."""
    code = _blankless_code(lines, lang)
    if code is None:
        return None  # the usual sketch, with blank lines: nothing split, nothing compared
    before = original.split("\n")
    # A marked sketch none of whose lines the original spaces apart (see `_spaced_anew`).
    markers = [is_marker(line, lang) for line in lines]
    joined = _joined_places(code, before)
    spaced = None
    if any(markers) and not joined:
        spaced = _spaced_anew(lines, markers, before, merged.split("\n"))
    if spaced:
        return (
            f"the sketch has no blank line at all and writes {spaced!r} right after the line "
            "before it, and the merge keeps an original blank line between them: a sketch "
            "without blank lines cannot say whether it stays"
        )
    # One joined place is enough where the sketch has no blank line at all, not even one
    # before a marker (a sketch that shows its spacing would show the blank line it keeps);
    # none where it also has a marker: a sketch that elides code and still writes all its
    # lines in one block shows nothing of the spacing, whether or not two of them show it.
    if joined < _joins_needed(lines, any(markers)):
        return None
    after = merged.split("\n")
    # Only the stretch between the common head and tail differs: compare that alone.
    head, _tail, old, new = _differing(before, after)
    for tag, i1, i2, j1, j2 in _opcodes(old, new):
        at = head + i1
        if tag == "delete" and not any(line.strip() for line in old[i1:i2]):
            return (
                f"the sketch has no blank line at all, and the merge deletes blank original "
                f"line(s) {at + 1}-{head + i2} between lines it keeps: a sketch without blank "
                "lines cannot say that they go"
            )
        if tag == "equal" or not any(line.strip() for line in new[j1:j2]):
            continue
        if any(not line.strip() for line in old[i1:i2]) and not _whole_body(
            after, head + j1, head + j2
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) take the place of original lines {at + 1}-{head + i2} with "
                "blank lines among them: unclear where the blank lines go now"
            )
        end = head + i2  # the original line after the stretch the new lines take
        if (
            tag == "replace"
            and j2 - j1 > i2 - i1
            and end < len(before)
            and not before[end].strip()
            and any(line[:1].isalpha() for line in new[j1 + 1 : j2])
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) start a new top-level statement right before blank original "
                f"line {end + 1}: unclear whether a blank line sets it apart"
            )
        if tag == "insert" and any(
            (p > 0 and not before[p - 1].strip()) or (p < len(before) and not before[p].strip())
            for p in _insert_spots(before, new[j1:j2], at)
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) go in next to blank original line(s) around line {at + 1}: "
                "unclear on which side of them, and with what spacing"
            )
        # An inserted block that ends with the line before it (or begins with the line after
        # it) reads the same shifted past that line, the diff picking one: both are read.
        start, stop = head + j1, head + j2
        if tag == "insert" and start > 0 and after[start - 1] == after[stop - 1]:
            start -= 1
        if tag == "insert" and stop < len(after) and after[stop] == after[head + j1]:
            stop += 1
        together = _run_together(after[start:stop]) if joined else iter(())
        run = next((k for k in together if _spaced_block(after, start + k)), None)
        if run is not None:
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{start + run + 1}) start a statement right after a block ends or begin a "
                "block right after a statement, in a block the original spaces with blank "
                "lines: unclear whether a blank line sets them apart"
            )
    return None


def _spaced_anew(
    lines: list[str], markers: list[bool], before: list[str], after: list[str]
) -> str | None:
    """A line the sketch writes right after another (no marker between) that the merge sets
    apart from it with the blank line that, in the original, ended the lines between them,
    which it deletes: whether that blank line goes with the lines it ended a sketch without
    any blank line cannot say. `markers[k]`: whether sketch line k is a marker."""
    pairs = {
        (lines[k].strip(), lines[k + 1].strip())
        for k in range(len(lines) - 1)
        if lines[k].strip() and lines[k + 1].strip() and not markers[k] and not markers[k + 1]
    }
    spaced = _pairs_past_blanks(after, pairs)
    if not spaced:
        return None
    # (a line, the line past the blank line that ends the lines after it), the line no deeper;
    # only for the second lines of `spaced`, so the walk stays a pass over the file
    seconds = {b for _, b in spaced}
    ended: set[tuple[str, str]] = set()
    paragraph: list[str] = []
    for k, line in enumerate(before):
        if line.strip():
            paragraph.append(line)
            continue
        if paragraph and k + 1 < len(before) and (after_blank := before[k + 1]).strip() in seconds:
            depth = indent_width(after_blank)
            ended.update(
                (first.strip(), after_blank.strip())
                for first in paragraph[:-1]
                if indent_width(first) <= depth
            )
        paragraph = []
    return next((b for a, b in spaced if (a, b) in ended), None)


def _pairs_past_blanks(text: list[str], wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs of `wanted` (stripped lines) that `text` holds with only blank lines between
    them."""
    stripped = list(map(str.strip, text))
    seconds = {b for _, b in wanted}
    pairs: set[tuple[str, str]] = set()
    for k in [k for k, line in enumerate(stripped) if line in seconds]:
        j = k - 1
        while j >= 0 and not stripped[j]:
            j -= 1
        if 0 <= j < k - 1 and (stripped[j], stripped[k]) in wanted:
            pairs.add((stripped[j], stripped[k]))
    return pairs


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
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


_OPENS_BLOCK = ("{", ":")
# What goes on a statement at its own depth: its closer, or the next branch of it.
_GOES_ON = ("}", ")", "]", "else", "elif", "except", "finally", "catch")


def _whole_body(after: list[str], start: int, end: int) -> bool:
    """Whether merged lines [start, end) are a block's whole body, between the line that opens
    the block and the shallower line after it, written as one statement (its other lines
    deeper, or its closer or next branch): a body of one statement has no place for a blank
    line, so the blank lines of the body it replaces go with it."""
    if start == 0 or end >= len(after):
        return False
    body = after[start:end]
    opener, closer = after[start - 1], after[end]
    if not all(line.strip() for line in body) or not opener.strip() or not closer.strip():
        return False
    depth = indent_width(body[0])
    if not opener.rstrip().endswith(_OPENS_BLOCK) or indent_width(opener) >= depth:
        return False
    if indent_width(closer) >= depth:
        return False
    return all(
        indent_width(line) > depth
        or (indent_width(line) == depth and line.strip().startswith(_GOES_ON))
        for line in body[1:]
    )


_OPENS = ("{", "(", "[", ":")  # how a line that opens a block (or a bracket) ends


def _run_together(block: list[str]) -> Iterator[int]:
    """The indices in `block` (new lines, no blank line among them) of a line that starts a
    statement right after the line before it ends a block (a closer at its depth, or a deeper
    line) or that opens a block right after a simple statement at its depth: where an author
    writing the lines anew most often sets the two apart, and a sketch without blank lines
    cannot say. Comments, decorators and attributes before it, and lines that go on a
    statement (closers, `else` and its kind), are not such starts."""
    for k in range(1, len(block)):
        first, second = block[k - 1].strip(), block[k].strip()
        if not first or not second or first.startswith(_NOT_CODE):
            continue
        if second.startswith((*_GOES_ON, "case", "default")):
            continue
        depth, was = indent_width(block[k]), indent_width(block[k - 1])
        ended = first.startswith(CLOSING_BRACKETS) and not first.endswith(_OPENS)
        if depth == was and ended:
            yield k
            continue
        opens = second.endswith(_OPENS) and not second.startswith(_NOT_CODE)
        if (
            depth == was
            and opens
            and not ended
            and not first.endswith(_OPENS)
            and not _tests_what_it_binds(first, second)
        ):
            yield k


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_BINDS = re.compile(r"^(.*?)(?::=|(?<![=!<>:])=(?!=))")  # what an assignment's left side holds


def _tests_what_it_binds(first: str, second: str) -> bool:
    """Whether the block `second` opens names what statement `first` binds (its assignment's
    left side, or the names it imports): a value made and tested at once reads as one step,
    and is most often written without a blank line between."""
    bound = _BINDS.match(first)
    if bound:
        names = set(_WORD.findall(bound.group(1)))
    elif " import " in f" {first}":
        names = set(_WORD.findall(first.split("import", 1)[1]))
    else:
        return False
    return bool(names & set(_WORD.findall(second)))


def _spaced_block(after: list[str], at: int) -> bool:
    """Whether the block around merged line `at` (the lines about it no shallower than it)
    holds a blank line: a block written with blank lines sets statements apart."""
    depth = indent_width(after[at])
    for step in (-1, 1):
        k = at
        while 0 <= k < len(after):
            line = after[k]
            if not line.strip():
                return True
            if indent_width(line) < depth:
                break
            k += step
    return False


def _joins_needed(lines: list[str], marked: bool) -> int:
    """How many joined places make a sketch without blank lines (with a marker where
    `marked`) read as one that dropped them (see `blankless_doubt`)."""
    if not _shows_no_blank(lines):
        return _JOINED
    return 0 if marked else 1


def _insert_spots(before: list[str], block: list[str], at: int) -> list[int]:
    """Where an inserted block could go as well as at `at`: a block that begins with the line
    after it (or ends with the line before it) reads the same shifted past that line, and the
    diff picks one of those alignments, so each is a place it may take; one where the shifted
    block begins or ends with a blank line is not, as it brings its own spacing there."""
    spots = [at]
    size = len(block)
    for s in range(size):  # shifted right past s + 1 lines: block[s + 1:] + block[: s + 1]
        if at + s >= len(before) or block[s] != before[at + s]:
            break
        if block[(s + 1) % size].strip() and block[s].strip():
            spots.append(at + s + 1)
    for s in range(size):  # shifted left past s + 1 lines: block[-s - 1:] + block[: -s - 1]
        if at - s - 1 < 0 or block[size - 1 - s] != before[at - s - 1]:
            break
        if block[size - 1 - s].strip() and block[size - 2 - s].strip():
            spots.append(at - s - 1)
    return spots


def _stretch(before: list[str], after: list[str]) -> tuple[int, int]:
    """The common head and tail (in lines) of two files: only the stretch between differs."""
    shorter = min(len(before), len(after))
    pairs = zip(before, after, strict=False)
    head = next((k for k, (x, y) in enumerate(pairs) if x != y), shorter)
    ends = zip(reversed(before), reversed(after), strict=False)
    tail = next((k for k, (x, y) in enumerate(ends) if x != y or k >= shorter - head), shorter)
    return head, min(tail, shorter - head)


def _differing(before: list[str], after: list[str]) -> tuple[int, int, list[str], list[str]]:
    """The common head and tail of two files (`_stretch`) and the two stretches between them."""
    head, tail = _stretch(before, after)
    return head, tail, before[head : len(before) - tail], after[head : len(after) - tail]


def _blank_run(lines: list[str], start: int, step: int) -> list[str]:
    """The blank lines from `start` on, in direction `step` (+1 or -1), in file order."""
    run: list[str] = []
    j = start
    while 0 <= j < len(lines) and not lines[j].strip():
        run.append(lines[j])
        j += step
    return run if step > 0 else run[::-1]


def restore_blanks(original: str, merged: str, lines: list[str], lang: Language) -> str:
    """A whole file written again without a single blank line, shown dropped (see
    `dropped_every_blank`): the original's blank lines that the merge deletes between lines it
    keeps go back where they were, as a sketch that drops every blank line never says that
    they go; the rest is left to `respace` and `blankless_doubt`."""
    before = original.split("\n")
    if not dropped_every_blank(lines, lang, before):
        return merged
    after = merged.split("\n")
    head, tail, old, new = _differing(before, after)
    out = after[:head]
    for tag, i1, i2, j1, j2 in _opcodes(old, new):
        gone = tag == "delete" and not any(line.strip() for line in old[i1:i2])
        out.extend(old[i1:i2] if gone else new[j1:j2])
    out.extend(after[len(after) - tail :] if tail else [])
    return "\n".join(out)


def respace(original: str, merged: str, lines: list[str], lang: Language) -> str:
    """Give new lines from a sketch without any blank line the spacing it could not show, where
    the original says what it is: new lines that take the place of original lines which began
    (or ended), next to a line the merge keeps, with blank lines begin (or end) with those blank
    lines too, when the lines they replace are one paragraph (no blank line inside) or their
    first (last) new line reads as an edit of the first (last) line replaced; and a new
    definition glued to its neighbour gets the file's own spacing (`_space_definitions`); a
    new line at a marker that edits the line the marker keeps past blank lines takes that
    line's place (`_edits_past_blanks`)."""
    code = _blankless_code(lines, lang) if _shows_no_blank(lines) else None
    if code is None:
        return merged
    before = original.split("\n")
    after = merged.split("\n")
    known = {line.strip() for line in before}
    _edits_past_blanks(lines, lang, known, after)
    # Cheap first: a blank line lost (the first rule), or a new line that opens a definition
    # (the second); a merge without either has nothing to respace.
    lost = sum(not line.strip() for line in after) < sum(not line.strip() for line in before)
    opens = any(line.strip() not in known and _opens(line) for line in code)
    if not lost and not opens:
        return "\n".join(after)
    head, tail, old, new = _differing(before, after)
    following = after[len(after) - tail] if tail else ""
    out: list[str] = after[:head]
    fresh: list[bool] = [False] * head  # per merged line: whether the sketch wrote it anew
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        part = new[j1:j2]
        lead: list[str] = []
        trail: list[str] = []
        if tag == "replace" and part[0].strip() and part[-1].strip():
            lead = _blank_run(old, i1, 1)
            trail = _blank_run(old, i2 - 1, -1)
            inner = old[i1 + len(lead) : i2 - len(trail)]
            one = all(line.strip() for line in inner)
            nxt = new[j2] if j2 < len(new) else following
            if not (inner and out and out[-1].strip() and (one or similar(part[0], inner[0]))):
                lead = []
            if not (inner and trail and nxt.strip() and (one or similar(part[-1], inner[-1]))):
                trail = []
        out.extend(lead + part + trail)
        fresh.extend([False] * len(lead) + [tag != "equal"] * len(part) + [False] * len(trail))
    out.extend(after[len(after) - tail :] if tail else [])
    fresh.extend([False] * tail)
    if opens:
        _space_definitions(before, out, fresh, lang)
    return "\n".join(out)


def _edits_past_blanks(lines: list[str], lang: Language, known: set[str], after: list[str]) -> None:
    """A new line a sketch without blank lines writes between a kept line and a marker (or a
    marker and a kept line), merged next to that kept line, where blank lines and then an
    original line it starts as (an edit of it) follow (precede) the kept line: the sketch
    edits that line, the first (last) one the marker keeps, and the blank lines stay between;
    a sketch that showed its spacing would have shown them. Rewrites `after` in place."""
    shown = {line.strip() for line in lines}
    stripped: list[str] | None = None  # built once needed, again after an edit
    for k in range(1, len(lines) - 1):
        down = is_marker(lines[k + 1], lang) and not is_marker(lines[k - 1], lang)
        up = is_marker(lines[k - 1], lang) and not is_marker(lines[k + 1], lang)
        text = lines[k].strip()
        if not (down or up) or not text or text in known:
            continue
        kept = lines[k - 1 if down else k + 1].strip()
        if stripped is None:
            stripped = [x.strip() for x in after]
        first, second = (kept, text) if down else (text, kept)
        pairs = [r for r in _rows(stripped, first) if stripped[r + 1 : r + 2] == [second]]
        if len(pairs) != 1 or not kept:
            continue
        r = pairs[0] + 1 if down else pairs[0]
        step = 1 if down else -1
        b = r + step
        while 0 <= b < len(after) and not after[b].strip():
            b += step
        if b in (r + step, -1, len(after)):
            continue
        old = after[b]
        if old.strip() not in known or old.strip() in shown:
            continue
        if indent_width(old) != indent_width(after[r]) or not _same_start(old, after[r]):
            continue
        after[b] = after[r]
        del after[r]
        stripped = None


def _rows(lines: list[str], text: str) -> list[int]:
    """The rows of `lines` that are `text` (list.index scans at C speed: most files hold a
    sketch's new line nowhere)."""
    rows: list[int] = []
    at = -1
    while True:
        try:
            at = lines.index(text, at + 1)
        except ValueError:
            return rows
        rows.append(at)


_NOT_CODE = ("#", "//", "/*", "*", "@")  # comments, attributes, decorators: part of what follows
# The words a definition's first line starts with, in the languages with a grammar (decorators
# and attributes lead one too).
_OPENERS = frozenset(
    [
        "def",
        "class",
        "async",
        "fn",
        "func",
        "impl",
        "struct",
        "enum",
        "trait",
        "mod",
        "type",
        "interface",
        "function",
        "export",
        "pub",
        "const",
        "let",
        "var",
        "static",
        "abstract",
        "public",
        "private",
        "protected",
    ]
)


def _opens(line: str) -> bool:
    """Whether a line may open a definition (its first word a definition's, or a decorator or
    attribute)."""
    word = line.split(None, 1)[0].split("(", 1)[0]
    return word in _OPENERS or word.startswith(("@", "#["))


def _siblings(lines: list[str], lang: Language) -> list[tuple[int, int, int]]:
    """(depth, last line of a definition, first line of the next) for definitions of several
    lines each, one after the other at the same depth and indentation, with nothing but blank
    lines, comments and attributes between them."""
    found = [d for d in definitions("\n".join(lines), lang.name) if d.end > d.start]
    starts = [d.start for d in found]  # sorted
    pairs: list[tuple[int, int, int]] = []
    for d1 in found:
        at = bisect.bisect_right(starts, d1.end)
        if at == len(found) or found[at].depth != d1.depth:
            continue
        d2 = found[at]
        if indent_width(lines[d1.start]) != indent_width(lines[d2.start]):
            continue
        between = [line.strip() for line in lines[d1.end + 1 : d2.start]]
        if all(not text or text.startswith(_NOT_CODE) for text in between):
            pairs.append((d1.depth, d1.end, d2.start))
    return pairs


def _blanks_after(lines: list[str], j: int) -> int:
    return len(_blank_run(lines, j + 1, 1))


def _space_definitions(
    before: list[str], out: list[str], fresh: list[bool], lang: Language
) -> None:
    """A new definition glued to the one before or after it (of several lines each, at the same
    depth) gets the spacing the original gives every such pair at that depth, when it gives
    them all the same number of blank lines (two such pairs at least)."""
    spacing: dict[int, set[int]] = {}
    counts: dict[int, int] = {}
    for depth, end, _ in _siblings(before, lang):
        spacing.setdefault(depth, set()).add(_blanks_after(before, end))
        counts[depth] = counts.get(depth, 0) + 1
    blank = "\r" if out and out[0].endswith("\r") else ""
    # From the last pair up (outer definitions come first in the list): a blank line put in
    # moves every line after it.
    for depth, end, start in sorted(_siblings(out, lang), key=lambda pair: -pair[1]):
        rule = spacing.get(depth, set())
        if len(rule) != 1 or counts[depth] < _JOINED or _blanks_after(out, end) > 0:
            continue
        if not any(fresh[end : start + 1]):
            continue  # both the original's, glued as they were
        if _glued_before(before, out[start]):
            continue  # an edit of a definition the original glues to the code before it
        out[end + 1 : end + 1] = [blank] * next(iter(rule))
        fresh[end + 1 : end + 1] = [False] * next(iter(rule))


def _glued_before(before: list[str], first: str) -> bool:
    """Whether the original has the definition that starts with `first` (that very line, or
    an edit of it: a long common start), at its depth, right after a line of code no shallower
    (its own comments aside), and nowhere else: the file glues that definition to the code
    before it, and rewriting it (`const f = a || b` written over several lines) does not
    change that."""
    depth = indent_width(first)
    found = False
    for j, line in enumerate(before):
        if indent_width(line) != depth or not _same_start(line, first):
            continue
        k = j - 1
        while k >= 0 and before[k].strip().startswith(_NOT_CODE):
            k -= 1
        if k < 0 or not before[k].strip() or indent_width(before[k]) < depth:
            return False
        found = True
    return found


def _shows_no_blank(lines: list[str]) -> bool:
    """Whether the sketch has no blank line between its first and last non-blank line."""
    shown = [k for k, line in enumerate(lines) if line.strip()]
    return bool(shown) and all(lines[k].strip() for k in range(shown[0], shown[-1] + 1))
