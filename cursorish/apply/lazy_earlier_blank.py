"""A chunk that opens on a blank line after a marker: which blank line of the block it is.

A blank line says nothing of where it sits, so a chain starts on the chunk's first line with
words and the blank is read as the original's blank line right before that match (or as a new
one). Where the chunk's new lines before that match declare a name the original declares at
the same depth right after an earlier blank line of the same block (past blank lines between
declarations the new lines rewrite, as they space them), that reading keeps the original's
declaration beside its rewrite (the verifier refuses a name declared again beside it). The
sketch's blank line is then the earlier one, and the lines between go: the chunk's new lines
replace them (`_earlier_blank`).

(Its mirror for a chunk that ends on new lines, a blank line and a marker was tried and dropped:
it cost an exact merge on code never studied.)
"""

from __future__ import annotations

import dataclasses
import re

from cursorish.apply.align import MAX_GAP, Index, Placement
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import Chunk
from cursorish.apply.lines import indent_width

# A name a scope does not declare twice: `x :=` (Go), `const x`/`let x` (JavaScript and
# TypeScript), `let x` (Rust, unless it derives the name from itself: `let x = x.trim();`).
_DECLARATIONS = {
    "go": re.compile(r"^\s*([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*:="),
    "typescript": re.compile(r"^\s*(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*[=:]"),
    "tsx": re.compile(r"^\s*(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*[=:]"),
    "javascript": re.compile(r"^\s*(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*[=:]"),
    "rust": re.compile(r"^\s*let\s+(?:mut\s+)?([A-Za-z_]\w*)\s*[=:]"),
}


def _declared(line: str, pattern: re.Pattern[str], lang: str) -> str | None:
    """The name a line declares, or None (a Rust `let` that reads its own name shadows it on
    purpose and says nothing)."""
    match = pattern.match(line)
    if not match:
        return None
    name = match.group(1)
    if lang == "rust" and re.search(rf"\b{re.escape(name)}\b", line[match.end() :]):
        return None
    return name


def _earlier_blank(
    place: Placement, chunk: Chunk, index: Index, lang: Language, before: list[Placement]
) -> Placement:
    """The placement with the chunk's opening blank line moved to the earlier blank line of
    its block past which the original declares a name the chunk's new lines declare again at
    that depth (see the module's docstring); the placement itself where nothing tells so."""
    pattern = _DECLARATIONS.get(lang.name)
    keys = chunk.keys
    if pattern is None or not place.pairs or keys[0] or not place.deltas:
        return place
    k1, j1 = place.pairs[0]
    if place.a != j1 or place.deltas[0] != 0:
        return place
    names: set[tuple[str, int]] = set()
    for k in range(1, k1):
        name = _declared(chunk.lines[k], pattern, lang.name) if keys[k] else None
        if name:
            names.add((name, indent_width(chunk.lines[k])))
    if not names:
        return place
    depth = min(width for _name, width in names)
    clash = False  # a declaration of the chunk's names seen, the lines after it up to the match
    for j in range(j1 - 1, max(-1, j1 - MAX_GAP - 1), -1):
        if index.blank[j]:
            if not clash:
                continue
            prior = _previous_line(index, j)
            if (
                prior >= 0
                and (
                    _declared(index.lines[prior], pattern, lang.name),
                    index.indents[prior],
                )
                in names
            ):
                continue  # a blank line between two declarations the new lines rewrite
            if any(j < p.b <= j1 for p in before):
                return place
            return dataclasses.replace(
                place,
                pairs=[(0, j), *place.pairs],
                a=j,
                deltas=[0, *place.deltas],
                alternatives=[[(0, j), *alt] for alt in place.alternatives if alt[0][1] > j],
            )
        if index.indents[j] < depth:
            return place  # the block's start: no earlier blank line in it
        name = _declared(index.lines[j], pattern, lang.name)
        if name and (name, index.indents[j]) in names:
            clash = True
        elif clash:
            # Other code between the blank line and the declaration: it might as well stay
            # under the marker, the sketch's blank line a new one.
            return place
    return place


def _previous_line(index: Index, j: int) -> int:
    """The nearest line before `j` with code on it (-1: none)."""
    j -= 1
    while j >= 0 and index.blank[j]:
        j -= 1
    return j
