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
