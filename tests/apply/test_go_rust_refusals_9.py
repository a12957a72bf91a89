"""Go and Rust refusals of round 9 (helper h79): a rival placement whose own reading the
engine refuses outright is no rival; an edited line among many that start like it (one
receiver's method headers) is placed at the one original line like it by its whole text; a
chunk led by a closer that renames a definition is a rename where the sketch renames a use of
it too; in a tie, a new line nearly the very line of several originals leaves the choice to
the new lines that are nearly the very line of one."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

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


# One receiver's methods all start alike (`func (c *Cache) `), more of them than likeness by
# a shared start may name. The sketch rewrites one method's header (its result no longer
# named) and body between a `}` and a blank line: the one header that reads as the new one
# with a word changed, by its whole text, is the one edited, and the chunk replaces it.
CACHE = """\
package cache

type Cache struct {
	items map[string]Item
	order []string
}

func (c *Cache) Get(key string) (Item, bool) {
	item, ok := c.items[key]
	return item, ok
}

func (c *Cache) Set(key string, item Item) {
	c.items[key] = item
	c.order = append(c.order, key)
}

func (c *Cache) Len() int {
	return len(c.items)
}

func (c *Cache) IsEmpty() (empty bool) {
	return c.items != nil &&
		len(c.order) == 0
}

func (c *Cache) Keys() []string {
	return append([]string(nil), c.order...)
}

func (c *Cache) Clear() {
	c.items = map[string]Item{}
	c.order = nil
}
"""

CACHE_SKETCH = """\
// ... existing code ...
}

func (c *Cache) IsEmpty() bool {
	// The order slice always holds one key per item, so the
	// map alone tells whether anything is cached.
	return c.items == nil
}

// ... existing code ...
"""


def test_a_header_edited_among_look_alike_siblings_is_found_by_its_whole_text() -> None:
    outcome = merge(CACHE, CACHE_SKETCH, path="cache.go")
    assert isinstance(outcome, Merged), outcome
    old = "func (c *Cache) IsEmpty() (empty bool) {\n\treturn c.items != nil &&\n"
    old += "\t\tlen(c.order) == 0\n}"
    new = "func (c *Cache) IsEmpty() bool {\n"
    new += "\t// The order slice always holds one key per item, so the\n"
    new += "\t// map alone tells whether anything is cached.\n\treturn c.items == nil\n}"
    assert outcome.text == CACHE.replace(old, new)


def test_a_header_like_two_siblings_places_nothing() -> None:
    # With a second method whose header reads as the new one just as well, neither is told.
    twin = CACHE.replace(
        "func (c *Cache) Keys() []string {", "func (c *Cache) IsEmpty2() (empty bool) {"
    )
    outcome = merge(twin, CACHE_SKETCH, path="cache.go")
    assert isinstance(outcome, Refused), outcome


# A chunk that opens with a `}` and writes a definition under a new name where the original
# defines another: read as a rename, or as a new definition added after the old one. Where
# the sketch also rewrites a use of the old name elsewhere in the file with the new name, it
# renames the uses, so the definition too.
QUEUE = """\
package queue

type Queue struct {
	items []int
}

func (q *Queue) Push(v int) {
	q.items = append(q.items, v)
}

// popFrnt removes the first item
// and hands it back.
func popFrnt(q *Queue) int {
	v := q.items[0]
	q.items = q.items[1:]
	return v
}

func (q *Queue) Pop() int {
	return popFrnt(q)
}
"""

QUEUE_SKETCH = """\
// ... existing code ...
}

// popFront removes the first item
// and hands it back.
func popFront(q *Queue) int {
	v := q.items[0]
// ... existing code ...

func (q *Queue) Pop() int {
	return popFront(q)
}
"""


def test_a_closer_led_rename_whose_uses_the_sketch_renames_is_a_rename() -> None:
    outcome = merge(QUEUE, QUEUE_SKETCH, path="queue.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == QUEUE.replace("popFrnt", "popFront")


def test_a_closer_led_rename_with_its_uses_unshown_stays_refused() -> None:
    sketch = QUEUE_SKETCH.split("\n\nfunc (q *Queue) Pop", maxsplit=1)[0] + "\n"
    outcome = merge(QUEUE, sketch, path="queue.go")
    assert isinstance(outcome, Refused), outcome


# Two impls written alike: the sketch renames `_rng` to `rng` in the first one's `sample`. Its
# new header is nearly the very line of both impls' headers (one differs by `_`, the other by
# the return type), so it tells nothing by itself; its new body line is nearly the very line
# of the first impl's body alone, which tells the reading, and agrees with the header's
# nearest copy.
SAMPLERS = """\
use crate::Rng;

pub trait Sampler<T> {
    fn sample(&self, rng: &mut Rng) -> T;
}

impl Sampler<[u8; 4]> for Arrays {
    #[inline]
    fn sample(&self, _rng: &mut Rng) -> [u8; 4] {
        std::array::from_fn(|_| _rng.next_byte())
    }
}

impl Sampler<Wrap<u8>> for Wraps {
    #[inline]
    fn sample(&self, rng: &mut Rng) -> Wrap<u8> {
        Wrap(rng.next_byte())
    }
}
"""

SAMPLERS_SKETCH = """\
// ... existing code ...
    #[inline]
    fn sample(&self, rng: &mut Rng) -> [u8; 4] {
        std::array::from_fn(|_| rng.next_byte())
    }
}

// ... existing code ...
"""


def test_a_line_nearly_like_two_originals_leaves_the_vote_to_the_other_lines() -> None:
    outcome = merge(SAMPLERS, SAMPLERS_SKETCH, path="lib.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == SAMPLERS.replace("_rng", "rng")


def test_a_vote_by_a_line_less_than_nearly_the_very_line_is_not_enough() -> None:
    # The body line is now an edit of the first impl's body, but not nearly that very line.
    sketch = SAMPLERS_SKETCH.replace(
        "std::array::from_fn(|_| rng.next_byte())", "std::array::from_fn(|i| rng.byte_at(i + 1))"
    )
    outcome = merge(SAMPLERS, sketch, path="lib.rs")
    assert isinstance(outcome, Refused), outcome
