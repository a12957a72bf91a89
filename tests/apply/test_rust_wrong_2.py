"""Wrong merges of Rust sketches (round 4): doc-comment lines read as markers."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.markers import is_marker
from cursorish.apply.result import Merged

RUST = detect_language("lib.rs")

# --- doc comments are documentation, not markers ------------------------------------------

GAUGE = """\
/// A gauge that reads a level.
///
/// ```
/// let g = Gauge::new();
/// ...
/// assert_eq!(g.level(), 0);
/// ```
pub struct Gauge {
    level: u32,
}

impl Gauge {
    /// Equivalent to `Gauge { level: 0 }`.
    pub fn new() -> Self {
        Gauge { level: 0 }
    }
}
"""

# The whole struct's doc rewritten: its `/// ...` elides code in the documented example, and
# the HTML-tagged line holds `\\...` and the word "code" inside a tag.
GAUGE_DOCS = """\
/// A gauge that reads a level.
///
/// ```
/// let g = Gauge::new();
/// ...
/// assert_eq!(g.level(), 0);
/// ```
pub struct Gauge {
    level: u32,
}

impl Gauge {
    /// Equivalent to <code>Gauge { level: 0, \\... }</code>.
    pub fn new() -> Self {
        Gauge { level: 0 }
    }
}
"""


def test_rust_doc_comment_bare_dots_is_no_marker() -> None:
    assert not is_marker("/// ...", RUST)
    assert not is_marker("    //!     ...", RUST)
    assert is_marker("// ...", RUST)
    assert is_marker("/// ... existing docs ...", RUST)


def test_words_inside_markup_do_not_make_a_marker() -> None:
    assert not is_marker("/// Equivalent to <code>Gauge { level: 0, \\... }</code>.", RUST)
    assert not is_marker("// see `code...here`", RUST)
    assert is_marker("// ... existing code <b>here</b> ...", RUST)
    assert is_marker("// ... existing code ...", RUST)


def test_doc_lines_with_dots_merge_as_code() -> None:
    outcome = merge(GAUGE, GAUGE_DOCS, path="gauge.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == GAUGE_DOCS
