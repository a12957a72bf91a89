"""A chunk after a marker that opens with closers (`    }` then `}`) before its first telling
line: the closers are the original's run of them at their own depths, where the blocks they
close were open where the chunk before ended."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Many small functions: a bare `}` is then too common a line to place a chunk by.
_HELPERS = "".join(f"\nfn limit_{n}() -> usize {{\n    {n}\n}}\n" for n in range(40))

_DISPLAY = """\
use std::fmt;

pub struct ParseError {
    message: String,
    line: Option<usize>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            return write!(f, "parse error");
        }
        write!(f, "parse error: {}", self.message)?;
        if let Some(line) = self.line {
            write!(f, " at line {}", line)?;
        }
        Ok(())
    }
}

"""

_RENDER = """
fn render(error: &ParseError) -> String {
    error.to_string()
}
"""

DESCRIBED = (
    _DISPLAY
    + """impl StdError for ParseError {
    fn description(&self) -> &str {
        "parse error"
    }
}
"""
    + _RENDER
    + _HELPERS
)

# The `impl` header is rewritten (its trait spelt out); the chunk opens with the closers of
# `fmt` and of `impl fmt::Display`, the `    }` and `}` right above that header. The `    }` is
# not the `}` of the `impl` below the marker's lines (another depth): read so, the `impl` is
# closed twice.
SPELT_OUT = """\
// ... existing code ...
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
    // ... existing code ...
    }
}

impl std::error::Error for ParseError {
    fn description(&self) -> &str {
        "parse error"
    }
// ... existing code ...
"""


def test_leading_closers_take_the_closers_at_their_own_depth() -> None:
    out = merge(DESCRIBED, SPELT_OUT, path="src/error.rs")
    assert isinstance(out, Merged), out
    assert out.text == DESCRIBED.replace(
        "impl StdError for ParseError {", "impl std::error::Error for ParseError {"
    )


SOURCED = (
    _DISPLAY
    + """impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}
"""
    + _RENDER
    + _HELPERS
)

# The chunk's `}` closes `impl fmt::Display`, the block open where the chunk before ends, so the
# one-line `impl` after it replaces the one with `source`. The run of closers right above
# `fn render` is at the same depths, but it closes the `source` impl, opened after the chunk
# before: read so, that impl stays beside the new one-line one. The right reading deletes
# `source`, which the sketch never names: refused, not a file with two `impl`s of one trait.
EMPTIED = """\
// ... existing code ...
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
    // ... existing code ...
    }
}

impl std::error::Error for ParseError {}

fn render(error: &ParseError) -> String {
// ... existing code ...
"""


def test_closers_of_a_block_opened_after_the_chunk_before_are_not_taken() -> None:
    out = merge(SOURCED, EMPTIED, path="src/error.rs")
    assert isinstance(out, Refused), out
