"""Merges that used to come out wrong (second round), each from a small made-up example of one
general shape: the merge must now give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify.go_removed import _declared, _removed_go_declaration

# A marker, then a lone `}` and new methods, then the next type's comment: the `}` recurs in
# the code the marker keeps (a struct's end, then a method's end). Matching the first one
# would delete the method between as if the new methods replaced it; nothing says so.
_CLOSER_ORIGINAL = """package shapes

// Square is a shape.
type Square struct {
\tside int
\tname string
}

// Area of the square.
func (s *Square) Area() int {
\tarea := s.side * s.side
\tif area < 0 {
\t\tpanic("negative")
\t}
\treturn area
}

// Circle is another shape.
type Circle struct {
\tradius int
}
"""

_CLOSER_SKETCH = """// ... existing code ...
}

// Name of the square.
func (s *Square) Name() string {
\treturn s.name
}

// Side of the square.
func (s *Square) Side() int {
\treturn s.side
}

// Circle is another shape.
// ... existing code ...
"""

_CLOSER_EXPECTED = _CLOSER_ORIGINAL.replace(
    "\treturn area\n}\n",
    """\treturn area
}

// Name of the square.
func (s *Square) Name() string {
\treturn s.name
}

// Side of the square.
func (s *Square) Side() int {
\treturn s.side
}
""",
)


def test_marker_then_recurring_closer_does_not_delete_the_code_between() -> None:
    result = merge(_CLOSER_ORIGINAL, _CLOSER_SKETCH, path="shapes.go")
    assert not isinstance(result, Merged) or result.text == _CLOSER_EXPECTED


# A TypeScript sketch that drops an import while the code using the imported name sits under
# a marker: the merge keeps that code, which then uses a name nothing binds.
_IMPORT_ORIGINAL = """import fs from 'node:fs'
import type { Options } from './types'

globalThis.fs ??= fs

export const load = (options: Options) => {
  return options.path
}
"""

_IMPORT_SKETCH = """import type { Options } from './types'
// ... existing code ...
"""


def test_script_import_removed_while_its_name_is_still_used_is_refused() -> None:
    result = merge(_IMPORT_ORIGINAL, _IMPORT_SKETCH, path="load.ts")
    assert not isinstance(result, Merged)


# A Go sketch that drops a constant from a `const (` group while the `case` using it sits
# under a marker: the merge keeps the use of a name nothing declares any more.
_CONST_ORIGINAL = """package colors

const (
\tred = iota
\tgreen
\tblue
)

func name(c int) string {
\tswitch c {
\tcase red:
\t\treturn "red"

\tcase green:
\t\treturn "green"
\t}
\treturn "blue"
}
"""

_CONST_SKETCH = """// ... existing code ...
\tred = iota
\tblue
)
// ... existing code ...
"""


def test_go_declaration_removed_while_still_used_is_refused() -> None:
    result = merge(_CONST_ORIGINAL, _CONST_SKETCH, path="colors.go")
    assert not isinstance(result, Merged)


def test_go_declarations_of_groups_and_top_level() -> None:
    lines = ["const (", "\tred = iota", "\tgreen", ")", "func f() {}", "type T struct {", "}"]
    assert set(_declared(lines)) == {"red", "green", "f", "T"}
    kept = ["func f() {}", "type T struct {", "}", "var x = T{}.green  // not red"]
    assert _removed_go_declaration(lines, kept) is None
    assert _removed_go_declaration(lines, [*kept, "var y = red"]) is not None


# A last sketch line that edits the original line after the chunk's last match (the value in a
# doc comment's example), before a marker: it replaces that line only, not also the next one
# that merely starts with the same comment leader (`///     }`).
_DOC_ORIGINAL = """/// Build a config.
///
/// ```
/// let c = config!({
///     "name": "x",
///     "size": {
///         "kind": Size::Small
///     }
/// });
/// ```
pub fn build() {}
"""

_DOC_SKETCH = """/// Build a config.
///
/// ```
/// let c = config!({
///     "name": "x",
///     "size": {
///         "kind": "small"
// ... rest of the file unchanged ...
"""


def test_edited_last_line_replaces_one_line_not_the_next_comment_line() -> None:
    result = merge(_DOC_ORIGINAL, _DOC_SKETCH, path="config.rs")
    expected = _DOC_ORIGINAL.replace("Size::Small", '"small"')
    assert not isinstance(result, Merged) or result.text == expected
    assert isinstance(result, Merged)
