"""Rust rules (round 5): the same method in two `impl` blocks, where only which of the two a
sketch rewrites is in question."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# `describe` twice, with the same signature: one calls through the field's method, the other
# through a path-qualified call.
LABELS = """\
use std::fmt::Write;

pub struct Plain {
    inner: Label,
}

pub struct Boxed {
    inner: Label,
}

impl Describe for Plain {
    fn describe(&self, out: &mut String) {
        self.inner.describe(out);
    }
}

impl Describe for Boxed {
    fn describe(&self, out: &mut String) {
        Inner::describe(&self.inner, out);
    }
}
"""

# `Describe::describe(&self.inner, out)` is as near `self.inner.describe(out)` in its names
# as `Inner::describe(&self.inner, out)`: only the order of the letters favours the second.
QUALIFIED = """\
// ... existing code ...
    fn describe(&self, out: &mut String) {
        Describe::describe(&self.inner, out);
    }
// ... existing code ...
"""


def test_near_copy_by_letters_only_does_not_pick_the_method() -> None:
    outcome = merge(LABELS, QUALIFIED, path="labels.rs")
    assert isinstance(outcome, Refused), outcome


# A new name written into one of two lines alike: that line shares more names with the new
# one than any other the rival reading removes, so it is the line edited.
RENAMED = """\
// ... existing code ...
    fn describe(&self, out: &mut String) {
        Inner::describe_into(&self.inner, out);
    }
// ... existing code ...
"""


def test_near_copy_that_shares_more_names_still_picks_the_method() -> None:
    outcome = merge(LABELS, RENAMED, path="labels.rs")
    assert isinstance(outcome, Merged), outcome
    assert "        Inner::describe_into(&self.inner, out);\n" in outcome.text
    assert "        self.inner.describe(out);\n" in outcome.text
