"""Wrong merges of Rust code, eighth round (b): causes found on the seen sets, each with a
made-up example."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify.rust_depth import _rust_depth

_CART = """\
use std::fmt;

impl Cart {
    pub fn total(&self) -> u64 {
        let mut sum = self.sum();

        if let Some(owner) = &self.owner {
            // Apply the discount of the member's tier to the
            // sum of the cart.
            let rate = discount(owner);
            sum -= sum * rate / 100;
        }

        let lines = vec![
            self.header(),
            format(sum),
            self.footer(),
        ];
        lines.join("\\n").len() as u64
    }
}
"""

_CART_SKETCH = """\
// ... existing code ...
    let mut sum = self.sum();

    if let Some(owner) = &self.owner {
        // Apply the discount of the member's tier to the
        // sum of the cart.
        let rate = discount(owner);
        sum -= sum * rate / 100;
    }
}

// ... existing code ...
"""


def test_rust_lines_kept_at_a_depth_their_brackets_deny_are_refused() -> None:
    # rustfmt puts a block's lines four spaces into the line opening it and nothing after a
    # bare `}` deeper than it: a sketch pasted one level too shallow breaks that where its
    # lines meet the file's.
    result = merge(_CART, _CART_SKETCH, path="src/cart.rs")
    assert isinstance(result, Refused), result
    assert "depth its brackets deny" in result.reason


_BEFORE = [
    "fn ok(a: bool) -> bool {",
    "    if a {",
    "        return true;",
    "    }",
    "    let v = vec![",
    "        1,",
    "    ];",
    "    v.is_empty()",
    "}",
]


def test_rust_depth_refuses_a_new_line_too_deep_after_a_closer() -> None:
    after = [*_BEFORE[:4], "    log(a);", *_BEFORE[4:]]
    old_of = [0, 1, 2, 3, -1, 4, 5, 6, 7, 8]
    assert _rust_depth(_BEFORE, after, old_of) is None
    after[4] = "        log(a);"
    assert _rust_depth(_BEFORE, after, old_of) is not None


def test_rust_depth_refuses_a_new_block_body_at_its_opener_depth() -> None:
    after = [*_BEFORE[:8], "    if a {", "    log(a);", "    }", *_BEFORE[8:]]
    old_of = [*range(8), -1, -1, -1, 8]
    assert _rust_depth(_BEFORE, after, old_of) is not None
    after[9] = "        log(a);"
    assert _rust_depth(_BEFORE, after, old_of) is None


def test_rust_depth_leaves_a_file_that_breaks_it_itself() -> None:
    # A file not kept by rustfmt (here a hand-aligned `match` arm) is not held to its depth.
    before = [*_BEFORE[:8], "    match a {", "         true => {}", "    }", *_BEFORE[8:]]
    after = [*before[:4], "        log(a);", *before[4:]]
    old_of = [0, 1, 2, 3, -1, *range(4, len(before))]
    assert _rust_depth(before, after, old_of) is None


def test_rust_depth_ignores_tab_indented_lines() -> None:
    before = [line.replace("    ", "\t") for line in _BEFORE]
    after = [*before[:4], "\t\tlog(a);", *before[4:]]
    old_of = [0, 1, 2, 3, -1, *range(4, len(before))]
    assert _rust_depth(before, after, old_of) is None


_SIZES = """\
use std::collections::HashMap;
use std::mem;

pub fn width<T>() -> usize {
    mem::size_of::<T>() * 8
}

pub fn count(map: &HashMap<String, u32>) -> usize {
    map.len()
}
"""


def test_a_rust_use_left_unused_under_a_marker_is_refused() -> None:
    # The sketch rewrites the only use of `mem` as a full path; the `use std::mem;` a marker
    # keeps now binds a name nothing uses, and whether it goes too the sketch does not say.
    sketch = (
        "// ... existing code ...\n"
        "pub fn width<T>() -> usize {\n"
        "    std::mem::size_of::<T>() * 8\n"
        "}\n"
        "// ... existing code ...\n"
    )
    result = merge(_SIZES, sketch, path="src/sizes.rs")
    assert isinstance(result, Refused), result
    assert "whether the `use` goes too" in result.reason


def test_a_rust_use_still_named_elsewhere_stays() -> None:
    sketch = (
        "// ... existing code ...\n"
        "pub fn count(map: &HashMap<String, u32>) -> usize {\n"
        "    map.values().count()\n"
        "}\n"
    )
    result = merge(_SIZES, sketch, path="src/sizes.rs")
    assert isinstance(result, Merged), result
    assert result.text == _SIZES.replace("map.len()", "map.values().count()")
