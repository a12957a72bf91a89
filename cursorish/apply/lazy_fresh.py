"""The reading of a sketch that writes its new definitions whole, next to the old ones.

A sketch that adds a definition much like one the file has (`CountP` beside `Count`) can be
lined up over the old one, as if it were its edit; the merge then deletes the old definition,
which the sketch still uses or never names, and the guard refuses it. The other reading writes
the new definition whole, its lines anchored nowhere, and places the chunk by the lines it
shows around it. `fresh_sketch` marks those lines; `fresh_reading` tries the merge again with
them, only where the first reading was refused for the definition it would delete, and keeps
it only where it removes no original line the first reading kept (it writes the new
definition beside the old one, and changes nothing else).

A sketch that moves a definition (writes it whole, exactly as the original has it in one place,
somewhere else) is lined up over a look-alike the same way. Where it has no new definition,
`moved_sketch` marks the moved one's lines instead: written whole where the sketch puts them,
its old copy may go as well (the chunk around it shows the lines on both sides of it next to
each other), and only it.
"""

from __future__ import annotations

import dataclasses
import re

from cursorish.apply.blocks import declared_name
from cursorish.apply.languages import Language
from cursorish.apply.lazy import merge_lazy_sketch
from cursorish.apply.lazy_rivals import plain_edit
from cursorish.apply.lazy_sketch import LazySketch, Merge, RefusedMerge, Validate
from cursorish.apply.lines import STRING_LITERAL, SourceFile, indent_width, key

_OPEN = "([{"
_CLOSE = ")]}"
_LEAD = ("//", "#", "/*", "*", "@", "///")


def fresh_reading(
    source: SourceFile,
    original: str,
    sketch: LazySketch,
    lang: Language,
    first: Merge,
    validate: Validate,
) -> Merge | None:
    """The merge that writes the sketch's new (else moved) definitions whole, where the first
    reading `first` was refused for a definition it deletes; None where there is none, it is
    refused, or it removes an original line the first reading kept (other than the old copy
    of a moved definition)."""
    fresh = fresh_sketch(sketch, original, lang)
    moved: set[int] = set()
    if fresh is None:
        found = moved_sketch(sketch, source.lines, lang)
        if found is None:
            return None
        fresh, moved = found
    try:
        merge = merge_lazy_sketch(source, fresh, lang, validate)
        if merge.doubt:
            return None
        validate(merge)
    except RefusedMerge:
        return None
    if merge.removed - first.removed - moved:
        return None
    if not plain_edit(source, fresh, merge):
        return None  # it deletes lines no chunk shows around them: more than the sketch says
    return merge


def fresh_sketch(sketch: LazySketch, original: str, lang: Language) -> LazySketch | None:
    """The sketch with the lines of each whole new definition (a name the original never
    writes) marked fresh, or None where it has none."""
    words = set(re.findall(r"[A-Za-z_$][\w$]*", original))
    chunks = []
    found = False
    for chunk in sketch.chunks:
        fresh: set[int] = set()
        for k, line in enumerate(chunk.lines):
            name = declared_name(line)
            if name is None or name in words or k in fresh:
                continue
            end = _definition_end(chunk.lines, k, lang)
            if end is None:
                continue
            start = k
            while start > 0 and chunk.lines[start - 1].strip().startswith(_LEAD):
                if indent_width(chunk.lines[start - 1]) != indent_width(line):
                    break
                start -= 1
            fresh.update(x for x in range(start, end + 1) if chunk.lines[x].strip())
        if fresh:
            found = True
        chunks.append(dataclasses.replace(chunk, fresh=frozenset(fresh)))
    if not found:
        return None
    return dataclasses.replace(sketch, chunks=chunks)


def _definition_end(lines: list[str], k: int, lang: Language) -> int | None:
    """The last line of the definition line k opens, where the chunk shows all of it."""
    width = indent_width(lines[k])
    if lang.name == "python":
        last = None
        for x in range(k + 1, len(lines)):
            if not lines[x].strip():
                continue
            if indent_width(lines[x]) <= width:
                return last
            last = x
        return last  # the chunk ends with it, before a marker or the sketch's end
    depth = 0
    opened = False
    for x in range(k, len(lines)):
        text = STRING_LITERAL.sub("", lines[x]).split("//")[0]
        for ch in text:
            if ch in _OPEN:
                depth += 1
                opened = True
            elif ch in _CLOSE:
                depth -= 1
        if opened and depth <= 0:
            return x if indent_width(lines[x]) <= width or x == k else None
    return None


def moved_sketch(
    sketch: LazySketch, source: list[str], lang: Language
) -> tuple[LazySketch, set[int]] | None:
    """The sketch with each whole definition it writes exactly as the original has it in one
    place (three lines at least, header to closer) marked fresh, and the original lines of
    those copies; None where it has none. Lined up over its own copy, such a chunk would
    change nothing there; over a look-alike, it loses the look-alike: written whole, it is
    code the sketch moves."""
    keys = [key(x) for x in source]
    chunks = []
    moved: set[int] = set()
    for chunk in sketch.chunks:
        fresh: set[int] = set()
        for k, line in enumerate(chunk.lines):
            if declared_name(line) is None or k in fresh:
                continue
            end = _definition_end(chunk.lines, k, lang)
            if end is None or end - k < 2:
                continue
            want = [key(x) for x in chunk.lines[k : end + 1]]
            at = [
                j
                for j, head in enumerate(keys)
                if head == want[0] and keys[j : j + len(want)] == want
            ]
            if len(at) != 1:
                continue
            fresh.update(x for x in range(k, end + 1) if chunk.lines[x].strip())
            moved.update(range(at[0], at[0] + len(want)))
        chunks.append(dataclasses.replace(chunk, fresh=frozenset(fresh)))
    if not moved:
        return None
    return dataclasses.replace(sketch, chunks=chunks), moved
