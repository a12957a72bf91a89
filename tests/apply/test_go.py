"""Go sketches, each from a small made-up example of one general shape: the merge must give
the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# A doc comment rewritten above a function, written with the `}` that ends the function
# before it: the same comment line also documents a method earlier in the file, after
# another `}`. A lone `}` agreeing says nothing (every block ends with one) while the chunk
# goes on to a kept line the earlier copy does not have after it: the comment is the
# function's new doc comment, not a stray copy of the method's.
_DOC_ORIGINAL = """package flags

func New() *Set {
\treturn &Set{}
}

// Size returns the size of the set.
// The size counts every flag once.
func (s *Set) Size() int {
\treturn len(s.items)
}

// Reset empties the set.
func (s *Set) Reset() {
\ts.items = nil
}

// Size reports the default set's size
func Size() int {
\treturn Default.Size()
}
"""

_DOC_SKETCH = """// ... existing code ...
}

// Size returns the size of the set.
// The size counts every flag once.
func Size() int {
\treturn Default.Size()
// ... existing code ...
"""

_DOC_EXPECTED = """package flags

func New() *Set {
\treturn &Set{}
}

// Size returns the size of the set.
// The size counts every flag once.
func (s *Set) Size() int {
\treturn len(s.items)
}

// Reset empties the set.
func (s *Set) Reset() {
\ts.items = nil
}

// Size returns the size of the set.
// The size counts every flag once.
func Size() int {
\treturn Default.Size()
}
"""

# The same comment ending the chunk at a marker: nothing after it in the chunk says it is
# not the earlier copy's place, so the merge must not guess.
_DOC_OPEN_SKETCH = """// ... existing code ...
func (s *Set) Reset() {
\ts.items = nil
}

// Size returns the size of the set.
// The size counts every flag once.
// ... existing code ...
"""


def test_doc_comment_after_closer_goes_over_the_old_one() -> None:
    result = merge(_DOC_ORIGINAL, _DOC_SKETCH, path="flags.go")
    assert isinstance(result, Merged), result
    assert result.text == _DOC_EXPECTED


def test_doc_comment_before_a_marker_is_not_guessed() -> None:
    result = merge(_DOC_ORIGINAL, _DOC_OPEN_SKETCH, path="flags.go")
    assert isinstance(result, Refused) or result.text == _DOC_EXPECTED
