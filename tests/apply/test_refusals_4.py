"""Issue 17, round 6: refusals where the merge itself went astray, not the sketch.

Each rule corrects one step of the placement, and each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Many small functions (so many `}` that a lone `}` seeds nothing), a test module, and an impl
# that ends the file.
HELPERS = "".join(f"fn f{k}() -> u32 {{\n    {k}\n}}\n\n" for k in range(45))
SHOW = (
    HELPERS
    + """#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first() {
        assert_eq!(f1(), 1);
    }
}

impl Show for Item {
    fn show(&self) -> String {
        self.name.clone()
    }
}
"""
)

# A new test module after the impl: its lines (`#[cfg(test)]`, `use super::*;`, `#[test]`)
# occur only before `fn show`, but the impl's `}` after it ends the file, as the sketch does.
NEW_MODULE = """#[cfg(test)]
mod show_tests {
    use super::*;

    #[test]
    fn shows() {
        assert_eq!(f2(), 2);
    }
}
"""
SHOW_TESTED = (
    """// ... existing code ...
    fn show(&self) -> String {
        // ... existing code ...
}

"""
    + NEW_MODULE
)


def test_new_code_after_the_last_block_goes_at_the_file_end() -> None:
    out = merge(SHOW, SHOW_TESTED, path="src/lib.rs")
    assert isinstance(out, Merged), out
    assert out.text == SHOW + "\n" + NEW_MODULE


def test_new_code_with_a_marker_after_it_stays_refused() -> None:
    # A marker after the chunk: the file's end no longer says where it goes.
    out = merge(SHOW, SHOW_TESTED + "// ... existing code ...\n", path="src/lib.rs")
    assert isinstance(out, Refused), out
