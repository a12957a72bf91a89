"""Go sketches (round 5), each from a small made-up example of one general shape: the merge
must give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.lazy_doubts import _closer_over_unlike
from cursorish.apply.lazy_sketch import Chunk
from cursorish.apply.lines import key
from cursorish.apply.result import Merged, Refused
from cursorish.apply.spans import Span

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


# A new `if` block written right after a kept one, the sketch's chunk ending on the new
# block's `}` at a marker: the next original statement also ends with a `}` (a composite
# literal), so matching the closer there reads the new block as a rewrite of that statement
# though none of its lines reads like the new ones; the new block may as well come before
# it. (On a file this small the placements tie first; the doubt is checked on the reading.)
_BLOCK_ORIGINAL = [
    "func New(config *Config) (*Decoder, error) {",
    "\tif config.Result == nil {",
    "\t\treturn nil, errNoResult",
    "\t}",
    "",
    "\tresult := &Decoder{",
    "\t\tconfig: config,",
    "\t}",
    "",
    "\treturn result, nil",
    "}",
]

_BLOCK_CHUNK = [
    "\tif config.Result == nil {",
    "\t\treturn nil, errNoResult",
    "\t}",
    "",
    '\tif config.TagName == "" {',
    '\t\tconfig.TagName = "decode"',
    "\t}",
    "",
]


def _closer_doubts(original: list[str], chunk_lines: list[str], closer_at: int) -> list[str]:
    index = Index([key(line) for line in original], original)
    chunk = Chunk(chunk_lines, 1, 0)
    # The reading: the kept block matched line for line, the blank after it, then the
    # chunk's last `}` matched at `closer_at` (the lines between replaced by the new ones).
    matched = {0: 1, 1: 2, 2: 3, 3: 4, 6: closer_at}
    return _closer_over_unlike(chunk, Span(1, closer_at + 1, matched), index)


def test_a_closer_after_a_new_block_read_over_unlike_lines_is_doubted() -> None:
    assert _closer_doubts(_BLOCK_ORIGINAL, _BLOCK_CHUNK, 7)


def test_a_closer_after_a_new_block_read_over_a_like_line_stands() -> None:
    original = [
        line.replace("result := &Decoder{", 'if config.Name == "" {') for line in _BLOCK_ORIGINAL
    ]
    assert not _closer_doubts(original, _BLOCK_CHUNK, 7)


# The same shape where the old statement is a call the new lines break over lines: the
# closer ends the rewritten call, and the merge stands.
_CALL_ORIGINAL = """package decode

func Run(d *Decoder) error {
\tif d == nil {
\t\treturn errNil
\t}
\treturn d.decode(d.name, d.input, d.output)
}
"""

_CALL_SKETCH = """// ... existing code ...
\tif d == nil {
\t\treturn errNil
\t}
\treturn d.decode(
\t\td.name,
\t\td.input,
\t\td.output,
\t)
// ... existing code ...
"""


def test_a_closer_ending_a_call_broken_over_lines_still_merges() -> None:
    expected = _CALL_ORIGINAL.replace(
        "\treturn d.decode(d.name, d.input, d.output)\n",
        "\treturn d.decode(\n\t\td.name,\n\t\td.input,\n\t\td.output,\n\t)\n",
    )
    result = merge(_CALL_ORIGINAL, _CALL_SKETCH, path="decode.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


# A function shown whole, then a blank line and a new doc comment at a marker: the original
# has its own doc comment below that blank line, over the next function. Kept, the merge
# stacks two comments over one declaration (the new one floating above the old): whether
# the new comment replaces the old one is a guess.
_STACK_ORIGINAL = """package log

func (l *Logger) release(e *Entry) {
\tl.pool.Put(e)
}

// Returns an entry carrying the given key, for one message only.
// Use WithFields for several keys at once.
func (l *Logger) WithField(key string, value any) *Entry {
\treturn l.entry().WithField(key, value)
}
"""

_STACK_SKETCH = """// ... existing code ...
func (l *Logger) release(e *Entry) {
\tl.pool.Put(e)
}

// WithField takes a new entry and adds a field to it.
// Info or Error must then be called on the entry.
// ... rest of the file unchanged ...
"""


def test_a_new_comment_stacked_above_the_original_comment_is_refused() -> None:
    result = merge(_STACK_ORIGINAL, _STACK_SKETCH, path="log.go")
    assert isinstance(result, Refused), result
