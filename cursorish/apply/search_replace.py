"""SEARCH/REPLACE blocks: each SEARCH text must occur exactly once in the file."""

from __future__ import annotations

import re

from cursorish.apply.lazy import RefusedMerge
from cursorish.apply.lines import SourceFile, indent_style, indent_width, key, reindent
from cursorish.apply.sketch import REPLACE_RE, SEARCH_RE

_DIVIDER = re.compile(r"^\s*={5,9}\s*$")


def parse_blocks(lines: list[str]) -> list[tuple[int, list[str], list[str]]]:
    """(sketch line of the SEARCH marker, search lines, replace lines) for each block."""
    blocks: list[tuple[int, list[str], list[str]]] = []
    state = "outside"
    search: list[str] = []
    replace: list[str] = []
    start = 0
    for number, line in enumerate(lines):
        if state == "outside":
            if SEARCH_RE.match(line):
                state, search, replace, start = "search", [], [], number
        elif state == "search":
            if _DIVIDER.match(line):
                state = "replace"
            elif SEARCH_RE.match(line) or REPLACE_RE.match(line):
                raise RefusedMerge(f"sketch line {number + 1}: SEARCH block without '======='")
            else:
                search.append(line)
        elif REPLACE_RE.match(line):
            blocks.append((start, search, replace))
            state = "outside"
        elif SEARCH_RE.match(line) or _DIVIDER.match(line):
            raise RefusedMerge(f"sketch line {number + 1}: REPLACE block without '>>>>>>> REPLACE'")
        else:
            replace.append(line)
    if state != "outside":
        raise RefusedMerge(f"sketch line {start + 1}: the block starting here is not closed")
    return blocks


def _find(haystack: list[str], needle: list[str], exact: bool) -> list[int]:
    if not needle:
        return []
    first = needle[0] if exact else key(needle[0])
    hits: list[int] = []
    size = len(needle)
    for j in range(len(haystack) - size + 1):
        line = haystack[j] if exact else key(haystack[j])
        if line != first:
            continue
        window = haystack[j : j + size]
        if (exact and [w.rstrip() for w in window] == [x.rstrip() for x in needle]) or (
            not exact and [key(w) for w in window] == [key(x) for x in needle]
        ):
            hits.append(j)
    return hits


def merge_search_replace(source: SourceFile, lines: list[str]) -> str:
    """Apply every block in order to the original and return the new text."""
    blocks = parse_blocks(lines)
    if not blocks:
        raise RefusedMerge("the sketch has no complete SEARCH/REPLACE block")
    current: list[tuple[str, str | None]] = [
        source.original_piece(j) for j in range(len(source.lines))
    ]
    tabs, unit = indent_style(source.lines)
    for start, block_search, replace in blocks:
        texts = [line for line, _ in current]
        search = list(block_search)
        if not any(line.strip() for line in search):
            if not any(line.strip() for line in texts):
                current = [(line, None) for line in replace]
                continue
            raise RefusedMerge(f"sketch line {start + 1}: the SEARCH text is empty")
        hits = _find(texts, search, exact=True)
        shift = 0
        if not hits:
            hits = _find(texts, search, exact=False)
            if len(hits) == 1:
                shift = indent_width(texts[hits[0]]) - indent_width(search[0])
        if not hits:
            raise RefusedMerge(
                f"sketch line {start + 1}: the SEARCH text does not occur in the file"
            )
        if len(hits) > 1:
            where = ", ".join(str(h + 1) for h in hits[:5])
            raise RefusedMerge(
                f"sketch line {start + 1}: the SEARCH text occurs {len(hits)} times "
                f"(at lines {where})"
            )
        at = hits[0]
        new: list[tuple[str, str | None]] = [
            (reindent(line, shift, tabs=tabs, unit=unit), None) for line in replace
        ]
        # Lines the block keeps as they were keep their original bytes.
        old = current[at : at + len(search)]
        for index, (line, _) in enumerate(new):
            if index < len(old) and old[index][0].rstrip() == line.rstrip():
                new[index] = old[index]
        current[at : at + len(search)] = new
    return source.render(current)
