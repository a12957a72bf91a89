"""What one verification holds: the original's and the result's lines, keyed, and the
sketch's chunks; the checks in this package are its mixins."""

from __future__ import annotations

import re
from bisect import bisect_left

from cursorish.apply.lines import indent_width as _width
from cursorish.apply.verify.shape import _Shape

_SHORT_DECLARATION = re.compile(r"^\s*(\w+(?:\s*,\s*\w+)*)\s*:=")
# A declaration a scope may not repeat: `x :=` (Go), `const x`/`let x` (JavaScript/TypeScript).
_LET_DECLARATION = re.compile(
    r"^\s*(?:export\s+)?(?:declare\s+)?(?:const|let|type|enum|class)\s+(\w+)\b"
)
# Python: a module-level `name = ...` or `name: T = ...` (a function may well reassign a local
# beside its first assignment; a module rarely rebinds a global a few lines on).
_PY_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\s*(?::\s*[^=]+?)?\s=\s")
_RUST_LET = re.compile(r"^\s*let\s+(?:mut\s+)?(\w+)\b")
_LET_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


def _indent_unit(lines: list[str]) -> tuple[bool, int]:
    """(indented with tabs, the space unit) of a file, from its indented lines."""
    tabs = spaced = 0
    widths: set[int] = set()
    for line in lines:  # one pass: this runs on every line of the original and the result
        first = line[:1]
        if first == "\t":
            tabs += 1
        elif first == " " and not line.isspace():
            spaced += 1
            widths.add(len(line) - len(line.lstrip(" ")))
    smallest = min(widths, default=0)
    unit = smallest if smallest in (2, 3, 4, 8) else 4
    spaces = spaced if tabs else 0
    return tabs > spaces, unit


class _CheckState:
    """The lines and keys every check of one verification reads."""

    def __init__(self, before: list[str], after: list[str], shape: _Shape, lang: str = "") -> None:
        self.declaration = (
            _LET_DECLARATION
            if lang in _LET_LANGUAGES
            else _PY_ASSIGNMENT
            if lang == "python"
            else _RUST_LET
            if lang == "rust"
            else _SHORT_DECLARATION
        )
        # Rust shadows a name on purpose by deriving it from itself (`let x = x.trim();`).
        self.shadows = lang == "rust"
        self.lang = lang
        self.before = before
        self.after = after
        self.shape = shape
        self.old_of: list[int] = []  # result row -> original line (or -1: new), per reading
        self.before_keys = [" ".join(x.split()) for x in before]
        self.after_keys = [" ".join(x.split()) for x in after]
        self.sketch_keys = [" ".join(x.split()) for c in shape.chunks for x in c.lines]
        self.rows = [r for r, k in enumerate(self.after_keys) if k]
        self.row_keys = [self.after_keys[r] for r in self.rows]
        tabs, unit = _indent_unit(before)
        self.tabs = tabs
        self.unit = unit
        self.sketch_unit = _indent_unit([x for c in shape.chunks for x in c.lines])[1]

    def _w(self, line: str, unit: int) -> int:
        return _width(line, unit)

    def _nonblank_between(self, low: int, high: int) -> int:
        return bisect_left(self.rows, high) - bisect_left(self.rows, low + 1)
