"""Wrong merges of the judge's sketch shape and the habits (helper h94), each a reading the
original and the sketch leave open, refused rather than guessed: a block the sketch moves
whose old opener stays right above the chunk; a Go type renamed while the old one stays, named
only by its own methods; a pasted chunk that changes nothing where it lands while its edge line
recurs above, where it would delete the lines between; a chunk whose head, up to a line it
writes anew, is the original's lines as they stand right above it."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify import verify_merge

SCANNER = """\
package scan

func (s *Scanner) next() rune {
	ch, size := s.read()
	if ch == 0 {
		// advance for error reporting
		s.pos.Column++
		s.pos.Offset += size
		s.lastCharLen = size
		return eof
	}

	if ch == runeError && size == 1 {
		s.pos.Column++
		s.pos.Offset += size
		s.lastCharLen = size
		s.err("illegal encoding")
		return ch
	}

	// remember last position
	s.prevPos = s.pos

	s.pos.Column++
	s.lastCharLen = size
	s.pos.Offset += size

	if ch == '\\n' {
		s.pos.Line++
	}
	return ch
}

func (s *Scanner) peek() rune {
	if s.done {
		return eof
	}
	return s.ch
}
"""

# The error branch moves below the position bookkeeping; the chunk's first lines are the end of
# the `ch == 0` branch, written verbatim, not an edit of the moved branch's body.
SCANNER_SKETCH = """\
// existing code here
		s.lastCharLen = size
		return eof
	}

	// remember last position
	s.prevPos = s.pos

	s.pos.Column++
	s.lastCharLen = size
	s.pos.Offset += size

	if ch == runeError && size == 1 {
		s.err("illegal encoding")
		return ch
	}

	if ch == '\\n' {
// existing code here
"""


def test_a_chunk_starting_inside_a_block_it_moves_is_refused() -> None:
    outcome = merge(SCANNER, SCANNER_SKETCH, path="scan.go")
    assert not isinstance(outcome, Merged) or outcome.text.count("if ch == runeError") == 1, (
        outcome.text
    )


PARSER = """\
package conf

import "fmt"

type parser struct {
	lx *lexer

	// the full key for the current hash in scope
	context []string

	// rough approximation of line number
	line int

	// the last key parsed
	key string
}

type parseError string

func (pe parseError) Error() string {
	return string(pe)
}

func parse(data string) (p *parser, err error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(parseError); ok {
				return
			}
			panic(r)
		}
	}()
	p = &parser{}
	return p, nil
}

func (p *parser) next() string {
	return p.key
}

func (p *parser) panicf(format string, v ...interface{}) {
	msg := fmt.Sprintf("line %d: %s", p.line, fmt.Sprintf(format, v...))
	panic(parseError(msg))
}
"""

# The private error type is renamed and made a struct: the sketch writes the new type where the
# old one stood and rewrites both of its uses. Read as new lines after the old type's `}`, the
# old type stays with only its own method naming it.
PARSER_SKETCH = """\
/* ... */
}

type ParseError struct {
	Message string
	Line    int
}

func (pe ParseError) Error() string {
	return fmt.Sprintf("line %d: %s", pe.Line, pe.Message)
}

func parse(data string) (p *parser, err error) {
		/* ... */
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(ParseError); ok {
				return
			}
/* ... */

func (p *parser) panicf(format string, v ...interface{}) {
	msg := fmt.Sprintf(format, v...)
	panic(ParseError{Message: msg, Line: p.line})
}
"""

PARSER_KEPT_OLD_TYPE = """\
package conf

import "fmt"

type parser struct {
	lx *lexer

	// the full key for the current hash in scope
	context []string

	// rough approximation of line number
	line int

	// the last key parsed
	key string
}

type parseError string

func (pe parseError) Error() string {
	return string(pe)
}

type ParseError struct {
	Message string
	Line    int
}

func (pe ParseError) Error() string {
	return fmt.Sprintf("line %d: %s", pe.Line, pe.Message)
}

func parse(data string) (p *parser, err error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(ParseError); ok {
				return
			}
			panic(r)
		}
	}()
	p = &parser{}
	return p, nil
}

func (p *parser) next() string {
	return p.key
}

func (p *parser) panicf(format string, v ...interface{}) {
	msg := fmt.Sprintf(format, v...)
	panic(ParseError{Message: msg, Line: p.line})
}
"""


def test_a_go_type_named_only_by_its_own_methods_is_dead() -> None:
    reason = verify_merge(PARSER, PARSER_SKETCH, PARSER_KEPT_OLD_TYPE, path="parse.go")
    assert reason is not None and "parseError" in reason


def test_a_go_type_still_built_elsewhere_is_not_dead() -> None:
    kept = PARSER_KEPT_OLD_TYPE.replace(
        "\tp = &parser{}\n", "\tp = &parser{}\n\t_ = parseError(data)\n"
    )
    original = PARSER.replace("\tp = &parser{}\n", "\tp = &parser{}\n\t_ = parseError(data)\n")
    assert verify_merge(original, PARSER_SKETCH, kept, path="parse.go") is None


DEFINE = '''\
def define(maybe_cls=None, *, eq=None, cmp=None, hash=None):
    """Define a class.

    Args:
        eq (bool | None):
            Compare instances by value, field by field.

            .. seealso:: `comparison`

        cmp (bool | None):
            Setting *cmp* is equivalent to setting *eq* and *order* to the same
            value. Must not be mixed with *eq* or *order*.

            .. seealso:: `comparison`

        hash (bool | None):
            Include this attribute in the generated ``__hash__`` method.
    """
    return maybe_cls
'''

# Pasted flush left, the last chunk is the original's lines under `hash` shifted as a whole: it
# changes nothing there, and its first line recurs above the `cmp` entry, where it would delete
# that entry (as the `cmp` parameter's removal suggests).
DEFINE_SKETCH = """\
# ... existing code ...
def define(maybe_cls=None, *, eq=None, hash=None):
# ... existing code ...
    .. seealso:: `comparison`

hash (bool | None):
    Include this attribute in the generated ``__hash__`` method.
# ... existing code ...
"""


def test_a_pasted_chunk_that_changes_nothing_has_the_rival_at_its_edge_line_copy() -> None:
    outcome = merge(DEFINE, DEFINE_SKETCH, path="gen.py")
    assert not isinstance(outcome, Merged), outcome.text


FILE_ROUTE = """\
import { createFileRoute } from './fileRoute'

export const rootRouteId = '__root__'

/**
  @deprecated It's no longer recommended to use the `FileRoute` class directly.
  Instead, use `createFileRoute('/path/to/file')(options)` to create a file route.
*/
/**
  @deprecated It's no longer recommended to use the `FileRoute` class directly.
  Instead, use `createFileRoute('/path/to/file')(options)` to create a file route.
*/
/**
  @deprecated It's no longer recommended to use the `FileRoute` class directly.
  Instead, use `createFileRoute('/path')(options)` to create a file route.
*/
export class FileRoute<TFilePath extends string> {
  constructor(public path?: TFilePath) {}
}
"""

# The sketch writes the deprecation comment once, as the first copy stands, right before the
# class: read there it deletes the two copies after it; read on the last copy, it edits that one
# and keeps the others. The merge must not pick the edit silently.
FILE_ROUTE_SKETCH = """\
// rest unchanged
/**
  @deprecated It's no longer recommended to use the `FileRoute` class directly.
  Instead, use `createFileRoute('/path/to/file')(options)` to create a file route.
*/
export class FileRoute<TFilePath extends string> {
// rest unchanged
"""


def test_a_chunk_head_written_as_the_lines_right_above_it_stand_is_refused() -> None:
    outcome = merge(FILE_ROUTE, FILE_ROUTE_SKETCH, path="fileRoute.ts")
    assert not isinstance(outcome, Merged) or outcome.text.count("@deprecated") == 1, outcome.text
