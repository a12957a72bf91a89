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


# Two impls of like methods (`#[cold]` on each): a new method like `invalid_type` goes after it.
ERRORS = """use std::fmt::Display;

pub struct Error {
    message: String,
}

impl de::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Error {
        make_error(msg.to_string())
    }

    #[cold]
    fn invalid_type(found: Kind, wanted: &dyn Wanted) -> Self {
        Error::custom(format_args!(
            "invalid type: {}, expected {}",
            Shown(found),
            wanted,
        ))
    }
}

impl ser::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Error {
        make_error(msg.to_string())
    }
}

fn make_error(message: String) -> Error {
    Error { message }
}
"""

NEW_METHOD = """    #[cold]
    fn invalid_length(found: Kind, wanted: &dyn Wanted) -> Self {
        Error::custom(format_args!(
            "invalid length: {}, expected {}",
            Shown(found),
            wanted,
        ))
    }
"""

# Lined up over `invalid_type` as its edit, the chunk's leading `))` and `}` are left as new
# lines after `custom` and break the file; written whole, the new method goes after the old.
ERRORS_EXTENDED = (
    """// ... existing code ...
        ))
    }

"""
    + NEW_METHOD
    + """}

// ... existing code ...
"""
)


def test_new_definition_written_whole_where_the_edit_reading_breaks_the_syntax() -> None:
    out = merge(ERRORS, ERRORS_EXTENDED, path="src/error.rs")
    assert isinstance(out, Merged), out
    at = ERRORS.index("}\n\nimpl ser::Error")
    assert out.text == ERRORS[:at] + "\n" + NEW_METHOD + ERRORS[at:]


def test_a_definition_named_as_in_the_file_is_no_new_one() -> None:
    # `custom` is a name the file has: no reading writes it whole, and the broken one is refused.
    renamed = ERRORS_EXTENDED.replace("invalid_length", "custom")
    out = merge(ERRORS, renamed, path="src/error.rs")
    assert isinstance(out, Refused), out
