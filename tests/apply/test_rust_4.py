"""Rust rules (round 6, fresh set): a doc comment's bare line (`///`, `//!`) is its blank
line: it is the edited version of no other line, and it joins a matched run only where an
equal telling line follows it, as a blank line does."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.spans import similar


def _documented(count: int) -> str:
    """Functions with doc comments, enough that a bare `///` is too common to place a chunk."""
    out = []
    for n in range(count):
        out.append(
            f"/// Returns the number {n}.\n///\n/// Always the same value.\n///\n"
            f"pub fn number_{n}() -> u32 {{\n    {n}\n}}\n\n"
        )
    return "".join(out)


# A doc comment with a code example, then a new paragraph, in a doc-heavy file.
SHAPES = (
    _documented(24)
    + """\
/// Draws a shape.
///
/// ```
/// let s = Square::new(2);
/// s.draw();
/// ```
///
/// Filled shapes are drawn with a solid brush.
pub fn draw(shape: &dyn Shape) {
    shape.outline();
}
"""
)

# A new paragraph written before "Filled shapes ...", the bare `///` lines around it shown.
NOTE = """\
// ... existing code ...
///
/// Outlines are drawn first.
///
/// Filled shapes are drawn with a solid brush.
// ... existing code ...
"""


def test_bare_doc_line_is_no_edit_of_the_line_above() -> None:
    # Read as an edit of `/// ```` (the sketch's first `///` "like" it), the merge would
    # drop the example's closing fence.
    outcome = merge(SHAPES, NOTE, path="shapes.rs")
    assert isinstance(outcome, Merged), outcome
    assert "/// ```\n///\n/// Outlines are drawn first.\n///\n/// Filled" in outcome.text


def test_similar_rejects_bare_comment_lines() -> None:
    assert not similar("///", "/// ```")
    assert not similar("    //", "    //!")
    assert similar("///", "///")


# A paragraph of doc text followed by a bare `///` and more text, in a doc-heavy file.
CLOCK = (
    _documented(24)
    + """\
/// The result of a lookup.
///
/// * A single result.
/// * No result at all.
///
/// A gap in local time has no result.
pub enum Lookup {
    Single,
    None,
}
"""
)

# A note inserted after the list: it opens and ends with new lines, the original's bare
# `///` after the list stays between the note and the paragraph after it.
WARNING = """\
// ... existing code ...
/// * A single result.
/// * No result at all.
///
/// <div class="warning">
/// Lookups in wasm always return a single result.
/// </div>
// ... existing code ...
"""


def test_bare_doc_line_joins_the_match_only_before_a_telling_line() -> None:
    # Joined to the list's match, the bare `///` would be the one before the note, and the
    # paragraph after the note would lose the `///` that sets it off. Not joined, the note is
    # new lines at a marker inside a comment that goes on: a merge or a refusal, never a file
    # without that `///`.
    outcome = merge(CLOCK, WARNING, path="lookup.rs")
    if isinstance(outcome, Merged):
        assert outcome.text == CLOCK.replace(
            "/// * No result at all.\n",
            '/// * No result at all.\n///\n/// <div class="warning">\n'
            "/// Lookups in wasm always return a single result.\n/// </div>\n",
        )
    else:
        assert "comment goes on" in outcome.reason, outcome


# A struct deriving `Debug` only; its doc comment above.
POINT = """\
use std::fmt;

/// A point on the grid, by row and column.
#[derive(Debug)]
pub struct Point {
    row: u32,
    col: u32,
}
"""

# The derive list grows; the sketch shows the doc comment and the new attribute only.
MORE_DERIVES = """\
// ... existing code ...
/// A point on the grid, by row and column.
#[derive(Clone, Copy, Debug, PartialEq)]
// ... existing code ...
"""


def test_old_derive_left_beside_the_new_one_is_refused() -> None:
    outcome = merge(POINT, MORE_DERIVES, path="point.rs")
    assert not isinstance(outcome, Merged) or outcome.text.count("derive(") == 1, outcome


def test_derived_twice_reads_each_item_apart() -> None:
    from cursorish.apply.verify.rust_derives import _derived_twice

    before = ["#[derive(Debug)]", "struct A;", "#[derive(Debug)]", "struct B;"]
    after = ["#[derive(Debug, Clone)]", "#[derive(Debug)]", "struct A;", "struct B;"]
    assert _derived_twice(before, before, "rust") is None
    assert _derived_twice(before, after, "rust") is not None
    assert _derived_twice(before, after, "go") is None


# `mem` imported and called through the import.
SWAP = """\
use std::fmt;
use std::mem;

pub fn swap_pair(a: &mut u32, b: &mut u32) {
    mem::swap(a, b);
}

pub fn show(x: u32) -> String {
    format!("{}", x)
}
"""

# The import goes, the call names the full path: `std::mem::swap` does not use the binding.
QUALIFY = """\
use std::fmt;

pub fn swap_pair(a: &mut u32, b: &mut u32) {
    std::mem::swap(a, b);
}
// ... existing code ...
"""


def test_path_segment_is_no_use_of_a_removed_import() -> None:
    outcome = merge(SWAP, QUALIFY, path="swap.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == SWAP.replace("use std::mem;\n", "").replace(
        "    mem::swap", "    std::mem::swap"
    )


def test_removed_import_still_used_by_its_name_is_refused() -> None:
    from cursorish.apply.verify.rust_uses import _orphaned_binding

    before = SWAP.splitlines()
    after = SWAP.replace("use std::mem;\n", "").splitlines()
    assert _orphaned_binding(before, after, "rust") is not None
    qualified = [line.replace("    mem::", "    std::mem::") for line in after]
    assert _orphaned_binding(before, qualified, "rust") is None
