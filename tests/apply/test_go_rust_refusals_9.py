"""Go and Rust refusals of round 9 (helper h79): a rival placement whose own reading the
engine refuses outright is no rival."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Two impls written alike, each with a documented `new`. The sketch rewrites the second one's
# comments into doc comments and shows `#[inline]` and its `fn new` line as context. Placed
# over the first impl (whose doc lines the sketch repeats), the chunk would write the second's
# `fn new` line as new code while the very line sits under the marker after it: that reading
# refuses itself, so it is no rival to the reading over the second impl.
LIMITS = "".join(f"\n/// Limit number {i}.\nconst LIMIT_{i}: usize = {i};\n" for i in range(12))

IMPLS = f"""\
impl<T> First<T>
where
    T: Copy,
    Extra: Bound<T>,
{{
    /// Build a new value from its items.
    ///
    /// Only the module itself calls this.
    /// It trusts its input, so no item is checked.
    #[inline]
    fn new(items: [T; 4]) -> Result<First<T>, FirstError> {{
        let mut total = 0;
        for item in items.iter() {{
            total += item.size();
        }}
        if total > LIMIT {{
            return Err(FirstError::TooLarge(total));
        }}
        Ok(First {{ items }})
    }}
}}

/// The largest total a value may hold.
const LIMIT: usize = 64;

/// Checks a total.
///
/// Only the module itself calls this.
/// It trusts its input, so no item is checked.
fn check(total: usize) -> bool {{
    total <= LIMIT
}}
{LIMITS}
impl<T> Second<T>
where
    T: Copy,
    Extra: Bound<T>,
{{
    // Build a new value.
    //
    // Only the module itself calls this.
    // It trusts its input.
    #[inline]
    fn new(items: [T; 4]) -> Result<Second<T>, SecondError> {{
        Ok(Second {{ items }})
    }}
}}
"""

IMPLS_SKETCH = """\
// existing code
    Extra: Bound<T>,
{
    /// Build a new `Second` from its items.
    ///
    /// Only the module itself calls this.
    /// It trusts its input, so no item is checked.
    #[inline]
    fn new(items: [T; 4]) -> Result<Second<T>, SecondError> {
        // existing code
"""


def test_a_rival_placement_that_refuses_itself_is_no_rival() -> None:
    outcome = merge(IMPLS, IMPLS_SKETCH, path="lib.rs")
    assert isinstance(outcome, Merged), outcome
    old = "    // Build a new value.\n    //\n    // Only the module itself calls this.\n"
    old += "    // It trusts its input.\n"
    new = "    /// Build a new `Second` from its items.\n    ///\n"
    new += "    /// Only the module itself calls this.\n"
    new += "    /// It trusts its input, so no item is checked.\n"
    assert outcome.text == IMPLS.replace(old, new)
