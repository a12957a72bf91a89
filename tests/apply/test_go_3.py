"""Go sketches (round 5), each from a small made-up example of one general shape: the merge
must give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

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


# A doc comment rewritten at a marker: the sketch's new comment lines (two) are written over
# fewer old ones (the first line, reworded), and the old comment goes on after them. The
# old line left (`// It counts expired entries too.`) may be the old version of the added
# line as well as a line the marker keeps: which is meant is a guess.
_DOC_ORIGINAL = """package cache

func (c *Cache) Reset() {
\tc.items = nil
}

// Size reports how many entries the cache holds.
// It counts expired entries too.
// Use Len for the live ones only.
func (c *Cache) Size() int {
\treturn len(c.items)
}
"""

_DOC_SKETCH = """// ... existing code ...
func (c *Cache) Reset() {
\tc.items = nil
}

// Size reports how many entries the cache holds,
// and is safe to call while another goroutine writes.
// ... rest of the file unchanged ...
"""


def test_new_comment_lines_over_fewer_old_ones_where_the_comment_goes_on_are_refused() -> None:
    result = merge(_DOC_ORIGINAL, _DOC_SKETCH, path="cache.go")
    assert isinstance(result, Refused), result


# One comment line reworded at the marker (as many new lines as old ones): the rest of the
# comment stays.
_DOC_ONE_SKETCH = """// ... existing code ...
func (c *Cache) Reset() {
\tc.items = nil
}

// Size reports how many entries the cache holds now.
// ... rest of the file unchanged ...
"""


def test_one_comment_line_reworded_at_a_marker_keeps_the_rest() -> None:
    result = merge(_DOC_ORIGINAL, _DOC_ONE_SKETCH, path="cache.go")
    assert isinstance(result, Merged), result
    assert result.text == _DOC_ORIGINAL.replace("holds.", "holds now.")
