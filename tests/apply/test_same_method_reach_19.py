"""A chunk that rewrites a method while a method of the same name in another `impl` looks like
it: that other method is no rival where it lies outside the stretch the chunks around it leave
(before the `impl` the chunk before anchors on, a line the file has once)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

MULTIPART = """\
pub struct Form {
    inner: FormParts<Part>,
}

pub struct Part {
    meta: PartMetadata,
    value: Body,
}

impl Form {
    pub fn new() -> Form {
        Form { inner: FormParts::new() }
    }

    pub fn text(self, name: String, value: String) -> Form {
        self.part(name, Part::text(value))
    }

    fn with_inner<F>(self, func: F) -> Self
    where
        F: FnOnce(FormParts<Part>) -> FormParts<Part>,
    {
        Form {
            inner: func(self.inner),
        }
    }
}

impl Part {
    pub fn text(value: String) -> Part {
        Part::new(value.into())
    }

    pub fn file_name(self, filename: String) -> Part {
        self.with_inner(move |meta| meta.file_name(filename))
    }

    fn with_inner<F>(self, func: F) -> Self
    where
        F: FnOnce(PartMetadata) -> PartMetadata,
    {
        Part {
            meta: func(self.meta),
            ..self
        }
    }
}
"""

# The new method's closure names its argument `inner`, a word of `Form::with_inner` that
# `Part::with_inner` lacks; but the chunk before anchors on `impl Part {`, below `Form`'s.
PART_HEADERS = """\
// ... existing code ...
impl Part {
    // ... existing code ...
    }

    /// Sets custom headers for the part.
    pub fn headers(self, headers: HeaderMap) -> Part {
        self.with_inner(move |inner| inner.headers(headers))
    }

    fn with_inner<F>(self, func: F) -> Self
    where
// ... existing code ...
"""

NEW_METHOD = """
    /// Sets custom headers for the part.
    pub fn headers(self, headers: HeaderMap) -> Part {
        self.with_inner(move |inner| inner.headers(headers))
    }
"""


def test_namesake_before_the_chunk_before_is_no_rival() -> None:
    out = merge(MULTIPART, PART_HEADERS, path="src/multipart.rs")
    assert isinstance(out, Merged), out
    anchor = "        self.with_inner(move |meta| meta.file_name(filename))\n    }\n"
    assert out.text == MULTIPART.replace(anchor, anchor + NEW_METHOD)


SCALAR = """\
pub enum ScalarKind {
    String,
    Float,
    Integer(IntegerRadix),
}

impl ScalarKind {
    fn invalid_description(&self) -> &'static str {
        match self {
            Self::String => "invalid string",
            Self::Float => "invalid float",
            Self::Integer(radix) => radix.invalid_description(),
        }
    }
}

pub enum IntegerRadix {
    Dec,
    Hex,
    Oct,
    Bin,
}

impl IntegerRadix {
    pub fn value(&self) -> u32 {
        match self {
            Self::Dec => 10,
            Self::Hex => 16,
            Self::Oct => 8,
            Self::Bin => 2,
        }
    }

    fn invalid_description(&self) -> &'static str {
        match self {
            Self::Dec => "integer number",
            Self::Hex => "hexadecimal number",
            Self::Oct => "octal number",
            Self::Bin => "binary number",
        }
    }
}
"""

# The rewritten `invalid_description` ends on bracket lines only (`}` `}` `}`), and its shown
# head (`fn invalid_description(...)`, `match self {`) is in the file twice; but the chunk
# before anchors on `impl IntegerRadix {` and `pub fn value`, which the file has once, past
# `ScalarKind`'s copy: the copy below them is the only one the sketch's order leaves.
RADIX_DESCRIPTIONS = """\
// ... existing code ...
impl IntegerRadix {
    pub fn value(&self) -> u32 {
    // ... existing code ...

    fn invalid_description(&self) -> &'static str {
        match self {
            Self::Dec => "invalid integer number",
            Self::Hex => "invalid hexadecimal number",
            Self::Oct => "invalid octal number",
            Self::Bin => "invalid binary number",
        }
    }
}
// ... existing code ...
"""


def test_method_after_a_certain_chunk_is_the_copy_past_it() -> None:
    out = merge(SCALAR, RADIX_DESCRIPTIONS, path="src/scalar.rs")
    assert isinstance(out, Merged), out
    for word in ("integer", "hexadecimal", "octal", "binary"):
        assert f'=> "invalid {word} number",' in out.text
    assert out.text.count('"invalid') == 6
