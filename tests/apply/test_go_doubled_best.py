"""Go: the best-scoring reading declares a function twice; the reading over its header stands."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# The sketch rewrites `Has` with lines `Lookup` already has: lined up over `Lookup`'s body
# (more lines match there), the merge writes `Has` a second time beside the original one. The
# sketch repeats `Has`'s header, which the original writes once: that reading is meant.
STORE = """\
package store

import "strings"

type Store struct {
	data map[string]string
	sep  string
}

// Lookup finds a key.
func Lookup(s *Store, key string) string {
	parts := strings.Split(key, s.sep)

	lower := strings.ToLower(key)
	val, ok := s.data[lower]

	if !ok {
		first, found := s.data[parts[0]]
		if found {
			val = first
		}
	}

	if val == "" {
		return "none"
	}
	return strings.TrimSpace(val)
}

// Has tells whether a key is set.
func Has(s *Store, key string) bool {
	v := Lookup(s, key)
	return v != "none"
}

func (s *Store) Len() int {
	return len(s.data)
}
"""

STORE_SKETCH = """\
// ... existing code ...
// Has tells whether a key is set.
func Has(s *Store, key string) bool {
	parts := strings.Split(key, s.sep)

	lower := strings.ToLower(key)
	val, ok := s.data[lower]

	if !ok {
		first, found := s.data[strings.ToLower(parts[0])]
		if found {
			val = first
		}
	}

	return val != ""
}
// ... existing code ...
"""


def test_a_body_like_another_functions_goes_under_the_header_the_sketch_repeats() -> None:
    outcome = merge(STORE, STORE_SKETCH, path="store.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text.count("func Has(") == 1
    assert "\tv := Lookup(s, key)\n" not in outcome.text
    assert "\treturn strings.TrimSpace(val)\n}\n" in outcome.text
    assert '\treturn val != ""\n}\n\nfunc (s *Store) Len() int {' in outcome.text
