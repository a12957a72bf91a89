"""Wrong merges of the judge's sketch shape and the habits (helper h94), each a reading the
original and the sketch leave open, refused rather than guessed: a block the sketch moves
whose old opener stays right above the chunk."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

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
    assert (
        not isinstance(outcome, Merged) or outcome.text.count("if ch == runeError") == 1
    ), outcome.text
