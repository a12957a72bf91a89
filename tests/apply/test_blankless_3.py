"""Blank-less sketches: new code that the diff aligns one line off an original blank line."""

from __future__ import annotations

from cursorish.apply.blankless_doubt import _insert_spots, blankless_doubt
from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

COUNTER = """use std::fmt;

struct Counter {
    count: u32,
}

impl Counter {
    fn small(&self) -> u32 {
        if self.count > 1 {
            return 1;
        }
        self.count
    }

    fn large(&self) -> u32 {
        if self.count > 2 {
            return 2;
        }
        self.count * 2
    }
}

fn main() {
    let c = Counter { count: 1 };
    println!("{}", c.small());
}
"""

# Every blank line dropped: an edit of `small`, a new `middle` right after it, and an edit in
# `main`. The new method ends in `    }` just as `small` does, so the diff may read it as
# inserted before `small`'s closer, a line away from the blank line it really goes next to.
DROPPED = """// ... existing code ...
impl Counter {
    fn small(&self) -> u32 {
        if self.count > 10 {
            return 1;
        }
        self.count
    }
    fn middle(&self) -> u32 {
        if self.count > 3 {
            return 3;
        }
        self.count * 3
    }
    // ... existing code ...
}
fn main() {
    let c = Counter { count: 1 };
    println!("{}", c.middle());
}
"""


def test_new_code_one_equal_line_off_a_blank_line_is_refused() -> None:
    outcome = merge(COUNTER, DROPPED, path="counter.rs")
    assert isinstance(outcome, Refused), outcome
    assert "next to blank original line" in outcome.reason


def test_a_merge_the_diff_reads_one_closer_off_the_blank_line_is_doubted() -> None:
    # The merge the diff aligned on `small`'s closer: a blank line before `large` and none
    # before `middle`; shifted past that closer the new lines sit next to the blank line.
    merged = COUNTER.replace(
        "        self.count\n    }\n",
        "        self.count\n    }\n    fn middle(&self) -> u32 {\n        self.count * 3\n    }\n",
        1,
    ).replace("if self.count > 1 {", "if self.count > 10 {")
    lines = DROPPED.split("\n")
    assert blankless_doubt(COUNTER, merged, lines, detect_language("counter.rs"))


def test_a_shifted_block_that_brings_its_own_blank_line_is_no_new_spot() -> None:
    before = ["    fn small() {", "    }", "", "    fn large() {"]
    glued = ["    }", "    fn middle() {", "        run();"]
    assert 2 in _insert_spots(before, glued, 1)  # past the closer: right by the blank line
    spaced = ["    }", "", "    fn middle() {", "        run();"]
    assert _insert_spots(before, spaced, 1) == [1]  # past it, it begins with its own blank


# An attribute line the sketch adds to one more item, while the original's copy decorates
# another, is no duplicate of it.
PRIVATE = """pub mod api;

#[doc(hidden)]
pub mod internal {
    pub use std::vec;
    pub use std::format;

    pub fn helper() -> u32 {
        1
    }
}
"""

HIDE_VEC = """// ... existing code ...
pub mod internal {
    #[doc(hidden)]
    pub use std::vec;
// ... existing code ...
"""


def test_an_attribute_added_to_another_item_is_no_duplicate() -> None:
    outcome = merge(PRIVATE, HIDE_VEC, path="lib.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == PRIVATE.replace(
        "    pub use std::vec;", "    #[doc(hidden)]\n    pub use std::vec;"
    )


def test_an_attribute_written_again_over_the_same_item_is_still_a_duplicate() -> None:
    sketch = "// ... existing code ...\n#[doc(hidden)]\npub mod internal {\n    pub use std::vec;\n"
    sketch += "// ... existing code ...\n"
    merged = PRIVATE.replace("#[doc(hidden)]\n", "#[doc(hidden)]\n#[doc(hidden)]\n")
    problem = verify_merge(PRIVATE, sketch, merged, path="lib.rs")
    assert problem and "twice" in problem
