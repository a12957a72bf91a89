"""Go: a chunk that wraps kept lines in a new block and ends on closers before a marker."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Many small functions: a bare `}` is then too common a line to place a chunk by.
_GETTERS = "".join(
    f"\nfunc (s *Store) Get{n}() int {{\n\treturn s.values[{n}]\n}}\n" for n in range(45)
)

LOOKUP = (
    """\
package store

func (s *Store) Lookup(key string) any {
	if v, ok := s.local[key]; ok {
		return v
	}

	if s.parent != nil {
		if src := s.parent.source(key); src != nil {
			if src.shared {
				v := src.Lookup(key)
				s.log("found in parent", key)
				return v
			}
		}
	}

	return s.fallback(key)
}
"""
    + _GETTERS
)

# The chunk wraps the two kept lines in `if v != nil {`: its closers, one level deeper each
# than the original closers they would match in order, are the new block's end and the
# original's closers one line earlier; the `if s.parent` block's `}` stays under the marker.
LOOKUP_SKETCH = """\
// ... existing code ...
func (s *Store) Lookup(key string) any {
	// ... existing code ...
			if src.shared {
				v := src.Lookup(key)
				if v != nil {
					s.log("found in parent", key)
					return v
				}
			}
		}
	// ... existing code ...
"""


def test_closers_after_a_new_wrapping_block_keep_the_outer_closer() -> None:
    outcome = merge(LOOKUP, LOOKUP_SKETCH, path="store.go")
    assert isinstance(outcome, Merged), outcome
    expected = LOOKUP.replace(
        '\t\t\t\ts.log("found in parent", key)\n\t\t\t\treturn v\n',
        '\t\t\t\tif v != nil {\n\t\t\t\t\ts.log("found in parent", key)\n'
        "\t\t\t\t\treturn v\n\t\t\t\t}\n",
    )
    assert outcome.text == expected


# The same, the wrapping block opened by an edited line: `v := src.Lookup(key)` becomes
# `if v := src.Lookup(key); v != nil {`, a line that now opens a block the original's did not.
EDITED_SKETCH = """\
// ... existing code ...
func (s *Store) Lookup(key string) any {
	// ... existing code ...
			if src.shared {
				if v := src.Lookup(key); v != nil {
					s.log("found in parent", key)
					return v
				}
			}
		}
	// ... existing code ...
"""


def test_closers_after_an_edited_line_that_now_opens_a_block_keep_the_outer_closer() -> None:
    outcome = merge(LOOKUP, EDITED_SKETCH, path="store.go")
    assert isinstance(outcome, Merged), outcome
    expected = LOOKUP.replace(
        '\t\t\t\tv := src.Lookup(key)\n\t\t\t\ts.log("found in parent", key)\n\t\t\t\treturn v\n',
        '\t\t\t\tif v := src.Lookup(key); v != nil {\n\t\t\t\t\ts.log("found in parent", key)\n'
        "\t\t\t\t\treturn v\n\t\t\t\t}\n",
    )
    assert outcome.text == expected
