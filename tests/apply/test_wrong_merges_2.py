"""Merges that used to come out wrong (second round), each from a small made-up example of one
general shape: the merge must now give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

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
