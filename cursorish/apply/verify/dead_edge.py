"""Lines gone at an unmarked edge of the file that the merge leaves dead.

A sketch that stops short of the file's end (start) without a marker does not say whether the
lines beyond go. The merged file does where they are only top-level definitions it names
nowhere, each a private one the original used elsewhere (the sketch took out its last use) or
one that names what the original imported and the merged file no longer does (kept, it would
not build). Lines of any other kind there, or a name the merged file still uses, leave the
cut unexplained.
"""

from __future__ import annotations

import re

from cursorish.apply.verify.dead_definitions import _DEFINITION, _definitions, _private

_NAME = re.compile(r"[A-Za-z_]\w*")
_IMPORTS = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|(?:pub\s+)?use\s)")
_GO_IMPORT_PATH = re.compile(r'\s*(?:[A-Za-z_.]\w*\s+)?"[^"]+"\s*$')
_NOTE = ("#", "//", "/*", "*", "--")


def _names(lines: list[str]) -> set[str]:
    return {name for line in lines for name in _NAME.findall(line)}


def _is_code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith(_NOTE)


def dead_edge(before: list[str], after: list[str], gone: list[int], lang: str) -> bool:
    """Whether original lines gone[0]..gone[-1], at an edge of the file, are definitions
    the merged file `after` leaves dead (see the module's docstring)."""
    if lang not in _DEFINITION or not gone:
        return False
    low, high = gone[0], gone[-1] + 1
    found = [(n, s) for n, s in _definitions(before, lang).items() if low <= s[0] < high]
    if not found or any(s[1] > high for _n, s in found):
        return False
    inside = {j for _n, (a, b) in found for j in range(a, b)}
    if any(_is_code(before[j]) and j not in inside for j in range(low, high)):
        return False
    now = _names(after)
    if any(n in now for n, _s in found):
        return False
    rest = before[:low] + before[high:]
    lost = _names(rest) - now
    imported = {
        name
        for line in rest
        if _IMPORTS.match(line) or (lang == "go" and _GO_IMPORT_PATH.match(line))
        for name in _NAME.findall(line)
    }
    for name, (a, b) in found:
        if name in lost and _private(before[a], name, lang):
            continue
        if lost & imported & _names([x for x in before[a:b] if _is_code(x)]):
            continue
        return False
    return True


_PY_IMPORT = re.compile(r"\s*(?:from\s+[\w.]+\s+)?import\s+([\w., ]+)$")


def _binds(line: str) -> set[str]:
    match = _PY_IMPORT.match(line)
    if not match:
        return set()
    parts = [p.split() for p in match.group(1).split(",") if p.strip()]
    return {p[-1] if "as" in p else p[0].split(".")[0] for p in parts}


def dead_python_head(before: list[str], after: list[str], gone: list[int]) -> bool:
    """Whether the lines gone at a Python file's start are its leading imports and top-level
    definitions, whole, that the merged file leaves dead: it names none of them, one of the
    definitions lost its last use in the rest of the file, and each of the others is named
    only by them (a new head written in their place, the helpers it made needless gone)."""
    if not gone:
        return False
    high = gone[-1] + 1
    spans = {
        a: (name, _trimmed(before, a, b)) for name, (a, b) in _definitions(before, "python").items()
    }
    units: list[tuple[set[str], range]] = []
    j = 0
    while j < high:
        if not _is_code(before[j]):
            j += 1
        elif j in spans:
            units.append(({spans[j][0]}, range(j, spans[j][1])))
            j = spans[j][1]
        elif _binds(before[j]):
            units.append((_binds(before[j]), range(j, j + 1)))
            j += 1
        else:
            return False
    if not units or j != high or any(before[k].strip() for k in range(high) if k not in gone):
        return False
    bound = {n for names, _r in units for n in names}
    now = _names([x for x in after if _is_code(x)])
    if bound & now:
        return False
    dead = bound & {spans[a][0] for a in spans} & (_names(before[high:]) - _names(after))
    while dead:
        users = [r for names, r in units if names <= dead]
        more = {n for n in bound - dead if n in _names([before[k] for r in users for k in r])}
        if not more:
            break
        dead |= more
    return dead == bound


def _trimmed(lines: list[str], start: int, end: int) -> int:
    """A definition's end with the blank lines after it left out."""
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end
