"""Rust rules (round 5): the same method in two `impl` blocks, where only which of the two a
sketch rewrites is in question."""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.spans import refine

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


# `pick` for a `Result` and for an `Option`, both with the same `where` clause.
PICKS = """\
pub trait Pick<T> {
    fn pick(self, fallback: T) -> T;
}

impl<T> Pick<T> for Result<T, String>
where
    T: Clone,
{
    fn pick(self, fallback: T) -> T
    where
        T: Default,
    {
        match self {
            Ok(value) => value,
            Err(_) => fallback,
        }
    }
}

impl<T> Pick<T> for Option<T>
where
    T: Clone,
{
    fn pick(self, fallback: T) -> T
    where
        T: Default,
    {
        self.unwrap_or_else(|| fallback_value(fallback, DEFAULT_WIDTH))
    }
}
"""

# The `Option` one rewritten as a `match`: its arms look like the `Result` one's, which the
# chunk's `match self {` and closers fit better, but its names are the `Option` one's.
OPTION_MATCH = """\
// ... existing code ...
        T: Default,
    {
        match self {
            Some(value) => value,
            None => fallback_value(fallback, DEFAULT_WIDTH),
        }
    }
// ... existing code ...
"""


def test_method_rewritten_with_the_names_of_its_namesake_is_refused() -> None:
    outcome = merge(PICKS, OPTION_MATCH, path="pick.rs")
    assert isinstance(outcome, Refused), outcome


# The `Result` one gains an arm using the `Option` one's names, but its own arms, kept, pin it.
RESULT_ARM = """\
// ... existing code ...
        T: Default,
    {
        match self {
            Ok(value) => value,
            Err(_) if fallback_value(fallback, DEFAULT_WIDTH) => fallback,
            Err(_) => fallback,
        }
    }
// ... existing code ...
"""


def test_method_pinned_by_its_own_lines_still_merges() -> None:
    outcome = merge(PICKS, RESULT_ARM, path="pick.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text.count("fallback_value(fallback, DEFAULT_WIDTH)") == 2


GAUGE = """\
use std::fmt::{self, Display, Formatter};

pub struct Gauge {
    level: u32,
}

impl Describe for Gauge {
    #[inline]
    fn describe(&self) -> String {
        render_level(self.level)
    }
}

// Renders a level as text: the level in tens
// and what is left over.
fn render_level(level: u32) -> String {
    let tens = level / 10;
    let rest = level % 10;
    let mut text = String::new();
    for _ in 0..tens {
        text.push('#');
    }
    text.push_str(&rest.to_string());
    text
}

pub fn empty() -> Gauge {
    Gauge { level: 0 }
}
"""

# New items after the impl, closing every block they open: their last `}` is theirs, not the
# closer of `render_level`, which the chunk's new lines never name.
GAUGE_SHOWN = """\
// ... existing code ...
impl Describe for Gauge {
    // ... existing code ...
    fn describe(&self) -> String {
        render_level(self.level)
    }
}

struct Shown<'a>(&'a Gauge);

impl<'a> Display for Shown<'a> {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        if self.0.level == 0 {
            f.write_str("empty")
        } else {
            f.write_str("full")
        }
    }
}
// ... existing code ...
"""


def test_new_items_closing_their_own_blocks_do_not_take_a_later_functions_closer() -> None:
    # The chunk from `fn describe` on, placed by its first two lines: the search for its
    # last `}` stops before `render_level`'s, which its new lines never name.
    original = GAUGE.splitlines()
    lines = GAUGE_SHOWN.splitlines()[3:-1]
    keys = [" ".join(line.split()) for line in lines]
    index = Index([" ".join(line.split()) for line in original], original)
    j = original.index("    fn describe(&self) -> String {")
    span = refine(
        lines, keys, index, original, [(0, j), (1, j + 1)], (j, len(original)), (True, True, 0)
    )
    assert span.b < original.index("fn render_level(level: u32) -> String {")
