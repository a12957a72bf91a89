"""Go sketches, each from a small made-up example of one general shape: the merge must give
the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.lines import key
from cursorish.apply.result import Merged, Refused
from cursorish.apply.spans import refine

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


# A new example written above an old one in a doc comment, the old one's unique heading
# shown after it: the new example's lines (`//		Debug:   true,`, `//	})`), which the
# comment repeats in every example, were read as edits of the old example's, the heading
# written anew and the original's copy deleted. A reading that rests only on repeated lines
# matched across the one unique line must not stand.
_EXAMPLES_ORIGINAL = """package cfg

import "fmt"

// Example for JSON output:
//	c := New(Options{
//		Debug:   true,
//		Verbose: true,
//		Color:   false,
//		Width:   80,
//	})
//	c.Print(fmt.Sprint(v))
//
// Example for YAML output:
//	c := New(Options{
//		Verbose: true,
//		Debug:   true,
//		Color:   false,
//		Width:   80,
//	})
//	c.Print(fmt.Sprint(v))
//
// Options say how to print.
type Options struct {
\tDebug bool
}
"""

_EXAMPLES_NEW = """// Example for TOML output:
//	c := New(Options{
//		Debug:   true,
//		Verbose: true,
//		Color:   false,
//		Width:   80,
//	})
//	c.Print(fmt.Sprint(v))
//
"""

_EXAMPLES_SKETCH = (
    """// ... existing code ...
import "fmt"

"""
    + _EXAMPLES_NEW
    + """// Example for JSON output:
//	c := New(Options{
//		Debug:   true,
// ... existing code ...
"""
)


def test_unique_line_is_not_rewritten_across_repeated_lines() -> None:
    expected = _EXAMPLES_ORIGINAL.replace(
        "// Example for JSON output:", _EXAMPLES_NEW + "// Example for JSON output:"
    )
    result = merge(_EXAMPLES_ORIGINAL, _EXAMPLES_SKETCH, path="cfg.go")
    assert isinstance(result, Refused) or result.text == expected


# A line moved within a chunk across a few lines the original holds once is a move, merged.
_MOVE_ORIGINAL = """package srv

func start(s *Server) error {
\tlog.Printf("starting %s", s.Name)
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\ts.running = true
\treturn s.listen()
}
"""

_MOVE_SKETCH = """// ... existing code ...
func start(s *Server) error {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tlog.Printf("starting %s", s.Name)
\ts.running = true
// ... existing code ...
"""


def test_line_moved_within_a_chunk_is_merged() -> None:
    expected = _MOVE_ORIGINAL.replace(
        '\tlog.Printf("starting %s", s.Name)\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n',
        '\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\tlog.Printf("starting %s", s.Name)\n',
    )
    result = merge(_MOVE_ORIGINAL, _MOVE_SKETCH, path="srv.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


# A chunk that rewrites one `case` of a switch and ends with the `}` of a loop it adds: the
# next `}` as deep in the original lies past the next `case` (shallower than the chunk's
# lines), so it closes a block of that case, not one of the chunk's: the chunk's closer is
# new code, and the next case stays.
_CASE_ORIGINAL = [
    "\tswitch kind {",
    '\tcase "json":',
    "\t\tif err := decodeJSON(c); err != nil {",
    "\t\t\treturn ParseError{err}",
    "\t\t}",
    "",
    '\tcase "ini":',
    "\t\tp, err := ini.Load(c)",
    "\t\tif err != nil {",
    "\t\t\treturn ParseError{err}",
    "\t\t}",
    "\t}",
]

_CASE_CHUNK = [
    '\tcase "json":',
    "\t\ttree, err := json.Parse(c)",
    "\t\tif err != nil {",
    "\t\t\treturn ParseError{err}",
    "\t\t}",
    "\t\tfor k, v := range tree.Map() {",
    "\t\t\tc[k] = v",
    "\t\t}",
]


def test_closer_is_not_matched_past_a_sibling_case() -> None:
    index = Index([key(x) for x in _CASE_ORIGINAL], _CASE_ORIGINAL)
    keys = [key(x) for x in _CASE_CHUNK]
    pairs = [(0, 1), (3, 3), (4, 4)]
    bounds = (0, len(_CASE_ORIGINAL))
    span = refine(_CASE_CHUNK, keys, index, _CASE_ORIGINAL, pairs, bounds, (True, True, 4))
    assert span.b == 5  # the chunk replaces the json case only
    assert 7 not in span.matched


# A chunk that takes code out of an `if`/`else` (written one level shallower than it was)
# and ends with a blank line before its marker: the `}` between that code and the blank line
# closes the block the chunk removed, so it goes with it.
_UNWRAPPED_ORIGINAL = """package web

func (c *ctx) render(code int, body []byte) error {
\t// keep the status until the first write
\tif w, ok := c.writer.(*statusWriter); ok {
\t\tw.code = code
\t} else {
\t\tsaved := c.Writer()
\t\tc.setWriter(&statusWriter{inner: saved, code: code})
\t\tdefer c.setWriter(saved)
\t}

\treturn c.write(body)
}
"""

_UNWRAPPED_SKETCH = """\t// ... existing code ...
\t// keep the status until the first write
\tsaved := c.Writer()
\tc.setWriter(&statusWriter{inner: saved, code: code})
\tdefer c.setWriter(saved)

// ... existing code ...
"""

_UNWRAPPED_EXPECTED = """package web

func (c *ctx) render(code int, body []byte) error {
\t// keep the status until the first write
\tsaved := c.Writer()
\tc.setWriter(&statusWriter{inner: saved, code: code})
\tdefer c.setWriter(saved)

\treturn c.write(body)
}
"""


def test_closer_of_an_unwrapped_block_goes() -> None:
    result = merge(_UNWRAPPED_ORIGINAL, _UNWRAPPED_SKETCH, path="web.go")
    assert isinstance(result, Merged), result
    assert result.text == _UNWRAPPED_EXPECTED
