"""Spacing for a merge from a sketch that dropped every blank line (`blankless`): the
original's blank lines the merge deleted between kept lines go back (`restore_blanks`), and new
lines get the spacing the original says they have (`respace`)."""

from __future__ import annotations

import bisect
import difflib
import itertools
import re

from cursorish.apply.blankless import (
    JOINED,
    NOT_CODE,
    blankless_code,
    differing,
    dropped_every_blank,
    opcodes,
    shows_no_blank,
)
from cursorish.apply.languages import Language
from cursorish.apply.lines import indent_width
from cursorish.apply.markers import is_marker
from cursorish.apply.spans import _same_start, similar
from cursorish.apply.structure import definitions


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
    head, tail, old, new = differing(before, after)
    out = after[:head]
    for tag, i1, i2, j1, j2 in opcodes(old, new):
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
    code = blankless_code(lines, lang) if shows_no_blank(lines) else None
    if code is None:
        return merged
    before = original.split("\n")
    after = merged.split("\n")
    known = {line.strip() for line in before}
    _edits_past_blanks(lines, lang, known, after)
    _space_imports(before, after)
    # Cheap first: a blank line lost (the first rule), or a new line that opens a definition
    # (the second); a merge without either has nothing to respace.
    lost = sum(not line.strip() for line in after) < sum(not line.strip() for line in before)
    opens = any(line.strip() not in known and _opens(line) for line in code)
    if not lost and not opens:
        return "\n".join(after)
    head, tail, old, new = differing(before, after)
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


# A whole import statement on one line: Python's `import x` and `from x import y` (not the
# opening line of a parenthesised list), JavaScript's `import ... from "x"` and `import "x"`,
# Rust's `use ...;`.
_ONE_LINE_IMPORT = re.compile(
    r"(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*"
    r"|from\s+[\w.]+\s+import\s+[^(\\]*"
    r"|import\b.*\bfrom\s*['\"][^'\"]*['\"];?|import\s*['\"][^'\"]*['\"];?"
    r"|(?:pub(?:\([\w:]+\))?\s+)?use\s+[^;]*;)$"
)
# The first line of an import (of one line or several) or of a re-export: one of the imports.
_IMPORTS = re.compile(
    r"(?:import\b|from\s+\S+\s+import\b|(?:pub(?:\([\w:]+\))?\s+)?use\s|export\s+(?:type\s+)?[{*])"
)
# Comments (they may belong to the imports; Rust's `#[...]` attributes are no comments), and
# closers or the next branch of the block the import is in.
_IMPORT_WORDS = ("import", "from", "use", "pub")  # how every `_ONE_LINE_IMPORT` starts
_NOT_AFTER_IMPORTS = ("#", "//", "/*", "*", "}", ")", "]", "else", "elif", "except", "finally")


def _space_imports(before: list[str], after: list[str]) -> None:
    """An import a sketch without blank lines writes right before a line of code that is no
    import (at its depth or shallower; not a comment, which may belong to the imports, nor a
    closer or the next branch of the block it is in), where the original never has the two
    lines one after the other: the code sets its imports apart from what follows with a blank
    line (PEP 8, and the habit of every language's formatters and style guides), which the
    sketch could not show. Rewrites `after` in place."""
    adjacent: set[tuple[str, str]] | None = None  # built once needed
    blank = "\r" if after and after[0].endswith("\r") else ""
    for k in range(len(after) - 2, -1, -1):  # from the end: a blank line put in moves the rest
        line = after[k]
        # The cheap tests first: this runs on every line of the merged file.
        if "import" not in line and "use" not in line:
            continue
        first = line.strip()
        if not first.startswith(_IMPORT_WORDS) or not _ONE_LINE_IMPORT.match(first):
            continue
        second = after[k + 1].strip()
        if not second:
            continue
        if _IMPORTS.match(second) or (
            second.startswith(_NOT_AFTER_IMPORTS) and not second.startswith("#[")
        ):
            continue
        if indent_width(after[k + 1]) > indent_width(after[k]):
            continue
        if adjacent is None:
            adjacent = set(itertools.pairwise(line.strip() for line in before))
        if (first, second) not in adjacent:
            after.insert(k + 1, blank)


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
        if all(not text or text.startswith(NOT_CODE) for text in between):
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
        if len(rule) != 1 or counts[depth] < JOINED or _blanks_after(out, end) > 0:
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
        while k >= 0 and before[k].strip().startswith(NOT_CODE):
            k -= 1
        if k < 0 or not before[k].strip() or indent_width(before[k]) < depth:
            return False
        found = True
    return found
