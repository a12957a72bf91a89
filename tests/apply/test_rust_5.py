"""Rust wrong merges of round 7 (helper h61), each rule on a small made-up example."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.lines import reindent
from cursorish.apply.result import Merged

# A space-indented file whose loop body is indented with spaces then a tab (`    \t`): an
# indentation no style conversion writes, of the same width as four more spaces.
_RS = (
    "fn count(limit: u64) -> u64 {\n"
    "    let mut total = 0;\n"
    "    loop {\n"
    "    \tlet step = next();\n"
    "    \ttotal += step;\n"
    "    \tif total > limit {\n"
    "    \t\tbreak;\n"
    "    \t}\n"
    "    }\n"
    "    total\n"
    "}\n"
)
_CLEAN = _RS.replace("    \t\t", "            ").replace("    \t", "        ")


def test_sketch_cleaning_a_space_then_tab_indentation_is_the_edit() -> None:
    sketch = (
        "// ... existing code ...\n"
        "    loop {\n"
        "        let step = next();\n"
        "        total += step;\n"
        "        if total > limit {\n"
        "            break;\n"
        "        }\n"
        "    }\n"
        "// ... existing code ...\n"
    )
    out = merge(_RS, sketch, path="count.rs")
    assert isinstance(out, Merged), out
    assert out.text == _CLEAN


def test_sketch_writing_a_space_then_tab_indentation_keeps_it() -> None:
    sketch = (
        "// ... existing code ...\n"
        "    loop {\n"
        "    \tlet step = next();\n"
        "    \ttotal += step;\n"
        "    \tif total > limit {\n"
        "    \t\tbreak;\n"
        "    \t}\n"
        "    }\n"
        "// ... existing code ...\n"
    )
    out = merge(_CLEAN, sketch, path="count.rs")
    assert isinstance(out, Merged), out
    assert out.text == _RS


def test_reindent_shifts_a_space_then_tab_indentation_at_its_start() -> None:
    assert reindent("  \tx", 4, tabs=False, unit=4) == "      \tx"
    assert reindent("      \tx", -4, tabs=False, unit=4) == "  \tx"
    assert reindent("  \tx", 4, tabs=True, unit=4) == "\t  \tx"
    # Plain indentation is still re-expressed in the file's style.
    assert reindent("\tx", 4, tabs=False, unit=4) == "        x"


_IMPL = (
    "impl Counter {\n"
    "    fn count(&self) -> u64 {\n"
    "        let mut total = 0;\n"
    "        loop {\n"
    "        \tlet step = self.next();\n"
    "        \ttotal += step;\n"
    "        }\n"
    "    }\n"
    "}\n"
)


def test_pasted_sketch_with_a_space_then_tab_indentation_keeps_its_bytes() -> None:
    # Pasted four columns left of the file: each line is shifted back at its start.
    sketch = (
        "// ... existing code ...\n"
        "fn count(&self) -> u64 {\n"
        "    let mut total = 0;\n"
        "    loop {\n"
        "    \tlet step = self.next();\n"
        "    \ttotal += step;\n"
        "    }\n"
        "// ... existing code ...\n"
    )
    clean = _IMPL.replace("        \t", "            ")
    out = merge(clean, sketch, path="count.rs")
    assert isinstance(out, Merged), out
    assert out.text == _IMPL


# Two doc comments ending on the same link line; the first one's link line is a broken
# version of it. A chunk that shows `///`, the fixed link line and `#[derive(Debug)]` reads
# as fixing the first comment, or as deleting the second comment's other link line (kept
# between its `///` and the link line): the `///` pins neither.
_DOCS = (
    "/// A reader of [frame]s.\n"
    "/// [frame] crate::frame::Frame\n"
    "#[derive(Debug)]\n"
    "pub struct Reader {\n"
    "    inner: Inner,\n"
    "}\n"
    "\n"
    "/// A writer of frames.\n"
    "///\n"
    "/// [sink]: std::io::Write\n"
    "/// [frame]: crate::frame::Frame\n"
    "#[derive(Debug)]\n"
    "pub struct Writer {\n"
    "    inner: Inner,\n"
    "}\n"
)


def test_empty_doc_line_at_the_edge_does_not_pin_the_line_it_deletes() -> None:
    sketch = (
        "// ... existing code ...\n"
        "///\n"
        "/// [frame]: crate::frame::Frame\n"
        "#[derive(Debug)]\n"
        "// ... existing code ...\n"
    )
    out = merge(_DOCS, sketch, path="frames.rs")
    assert not isinstance(out, Merged), out


def test_empty_doc_line_at_the_edge_with_nothing_deleted_still_merges() -> None:
    sketch = (
        "// ... existing code ...\n"
        "/// A writer of frames.\n"
        "///\n"
        "/// [sink]: std::io::Write\n"
        "/// [frame]: crate::frame::Frame\n"
        "/// [inner]: crate::Inner\n"
        "#[derive(Debug)]\n"
        "// ... existing code ...\n"
    )
    out = merge(_DOCS, sketch, path="frames.rs")
    assert isinstance(out, Merged), out
    assert out.text == _DOCS.replace(
        "/// [frame]: crate::frame::Frame\n",
        "/// [frame]: crate::frame::Frame\n/// [inner]: crate::Inner\n",
    )
