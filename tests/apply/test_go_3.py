"""Go sketches (round 5), each from a small made-up example of one general shape: the merge
must give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# A function's body rewritten: one of its new lines (`if err == io.EOF {`) also occurs once
# in another function, after a `}` there too. The sketch puts it after a `}` that closes a
# new block (`err = unwrap(err)`), where the other copy's `}` closes another one
# (`return false, nil`): the two agree only on the `}`, which ends every block, so the line
# is new code here, not the other function's copy written in the wrong place.
_BODY_ORIGINAL = """package store

import "io"

func (s *Store) exists(name string) (bool, error) {
\tif err := s.scan(name); err != nil {
\t\tif isMissing(err) {
\t\t\treturn false, nil
\t\t}
\t\tif err == io.EOF {
\t\t\treturn false, nil
\t\t}
\t}
\treturn true, nil
}

func (s *Store) Read(name string) ([]byte, error) {
\tdata, err := s.top.Read(name)
\tif err != nil {
\t\treturn nil, err
\t}
\treturn data, nil
}

func (s *Store) Close() error {
\treturn s.top.Close()
}
"""

_BODY_SKETCH = """// ... existing code ...
func (s *Store) Read(name string) ([]byte, error) {
\tdata, err := s.top.Read(name)
\tif err != nil {
\t\terr = unwrap(err)
\t}
\tif err == io.EOF {
\t\treturn s.lower.Read(name)
\t}
\treturn data, err
}

// ... existing code ...
"""

_BODY_OLD = """\tif err != nil {
\t\treturn nil, err
\t}
\treturn data, nil
"""

_BODY_NEW = """\tif err != nil {
\t\terr = unwrap(err)
\t}
\tif err == io.EOF {
\t\treturn s.lower.Read(name)
\t}
\treturn data, err
"""


def test_a_line_after_a_closer_of_new_code_is_not_a_misplaced_copy() -> None:
    expected = _BODY_ORIGINAL.replace(_BODY_OLD, _BODY_NEW)
    result = merge(_BODY_ORIGINAL, _BODY_SKETCH, path="store.go")
    assert isinstance(result, Merged), result
    assert result.text == expected
