"""Whether the original lines beyond a sketch's unmarked edge die with the merge.

A sketch that stops short of the file's start (end) without a marker leaves it unclear whether
the lines beyond go or stay. The merged file itself can settle it: where those lines are only
top-level definitions that nothing left in the file names any more, each either a private one
whose last use elsewhere the sketch took out, or one that uses a name whose import the sketch
removed, keeping them would leave dead code (or code naming what is no longer imported). The
sketch's own changes say those lines go with it (`func expVars` after the sketch dropped both
its one use and the `"fmt"` import it alone needed). Where anything left still names them, or
some of them tell nothing either way, the edge stays unclear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cursorish.apply.structure import Definition

_WORD = re.compile(r"[A-Za-z_]\w*")
# A line that binds imported names: Python, Rust, TypeScript/JavaScript, Go (`import "x"`);
# in Go also a quoted path alone (with its alias), a line of an `import ( ... )` block.
_IMPORT_LINE = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|(?:pub\s+)?use\s)")
_GO_PATH_LINE = re.compile(r'\s*(?:[A-Za-z_.]\w*\s+)?"[^"]+"\s*$')
_COMMENT = ("#", "//", "/*", "*", "--")


def _words(lines: Iterable[str]) -> set[str]:
    return {w for line in lines for w in _WORD.findall(line)}


def _imported_words(lines: Iterable[str], lang: str) -> set[str]:
    """The words of a file's import lines (module paths and the names they bind)."""
    found: set[str] = set()
    for line in lines:
        if _IMPORT_LINE.match(line) or (lang == "go" and _GO_PATH_LINE.match(line)):
            found.update(_WORD.findall(line))
    return found


def _private(header: str, name: str, lang: str) -> bool:
    """Whether only this file can use a definition (a public one other files may call)."""
    if lang == "python":
        return name.startswith("_")
    if lang == "go":
        return name[:1].islower()
    return not header.lstrip().startswith(("pub", "export"))


def _code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith(_COMMENT)


def dead_edge(
    source: list[str],
    region: range,
    kept: list[str],
    found: list[Definition],
    lang: str,
) -> bool:
    """Whether original lines `region` (at an edge of the file) go with the merge: `kept` is
    what the merge leaves outside them (the sketch's lines and the original lines no chunk
    covers), `found` the original's definitions."""
    defs = [d for d in found if d.depth == 0 and region.start <= d.start and d.end < region.stop]
    if not defs:
        return False
    covered = {j for d in defs for j in range(d.start, d.end + 1)}
    if any(_code(source[j]) and j not in covered for j in region):
        return False  # code beyond the definitions: nothing says whether it goes
    after = _words(kept)
    if any(d.name in after for d in defs):
        return False  # the merged file still names one of them: they stay
    before = _words(source[: region.start] + source[region.stop :])
    lost = before - after
    unbound = lost & _imported_words(source[: region.start] + source[region.stop :], lang)
    for d in defs:
        body = source[d.start : d.end + 1]
        if d.name in lost and _private(source[d.start], d.name, lang):
            continue  # the sketch took out its last use
        if unbound & _words(line for line in body if _code(line)):
            continue  # it names what the sketch no longer imports
        return False
    return True
