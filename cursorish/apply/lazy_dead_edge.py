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

from cursorish.apply.lines import STRING_LITERAL
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
    outside = source[: region.start] + source[region.stop :]
    lost = _words(outside) - after
    unbound = lost & _imported_words(outside, lang)
    for d in defs:
        body = source[d.start : d.end + 1]
        if d.name in lost and _private(source[d.start], d.name, lang):
            continue  # the sketch took out its last use
        if unbound & _words(line for line in body if _code(line)):
            continue  # it names what the sketch no longer imports
        return False
    return True


_PY_IMPORT = re.compile(r"\s*(?:from\s+[\w.]+\s+)?import\s+([\w., ]+)$")


def _py_bound(line: str) -> set[str]:
    """The names a one-line Python import binds (empty for any other line)."""
    match = _PY_IMPORT.match(line)
    if not match:
        return set()
    names = set()
    for part in match.group(1).split(","):
        words = part.split()
        if words:
            names.add(words[-1] if " as " in part else words[0].split(".")[0])
    return names


def leading_units(source: list[str], found: list[Definition]) -> list[tuple[set[str], range]]:
    """A Python file's leading one-line imports and top-level definitions (comments and blank
    lines between them skipped), each with the names it binds, up to the first other code."""
    starts = {d.start: d for d in found if d.depth == 0}
    units: list[tuple[set[str], range]] = []
    j = 0
    while j < len(source):
        line = source[j]
        if not _code(line):
            j += 1
        elif j in starts:
            units.append(({starts[j].name}, range(j, starts[j].end + 1)))
            j = starts[j].end + 1
        elif bound := _py_bound(line):
            units.append((bound, range(j, j + 1)))
            j += 1
        else:
            break
    return units


def dead_prefix(
    source: list[str], units: list[tuple[set[str], range]], kept: list[str], defined: set[str]
) -> bool:
    """Whether the leading units (`leading_units`) all die with the merge, `kept` being what
    it leaves after them: nothing it keeps names them, one of the definitions (`defined`)
    lost its last use outside them (the sketch took it out), and each of the others is used
    only by them. A new first chunk with no marker before it then writes the file's head in
    their place: kept, they would be dead code the sketch cut loose."""
    if not units:
        return False
    stop = units[-1][1].stop
    bound = {name for names, _lines in units for name in names}
    used = _words(STRING_LITERAL.sub("", line) for line in kept if _code(line))
    if bound & used:
        return False
    dead = bound & defined & (_words(source[stop:]) - _words(kept))
    if not dead:
        return False
    grew = True
    while grew:  # a name only the dead units use is dead too
        users = [lines for names, lines in units if names <= dead]
        also = {n for n in bound - dead if n in _words(source[k] for r in users for k in r)}
        grew = bool(also)
        dead |= also
    return dead == bound
