"""Indentation style of sketch lines (round 7): a sketch line is re-expressed in the file's
style only where the file has one style; a file that indents many lines both ways keeps each
sketch line as it was written."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.lines import mixed_indent
from cursorish.apply.result import Merged

# A Go file whose raw string holds a space-indented shell script: more lines start with spaces
# than with tabs, yet the Go code around it is tab-indented.
_SCRIPT = "\n".join(f"    echo step{i}" for i in range(14))
_GO = (
    "package gen\n\n"
    'import "fmt"\n\n'
    "func Write(buf Writer, name string) {\n"
    "\tcmd := name\n"
    '\tif cmd == "" {\n'
    '\t\tcmd = "default"\n'
    "\t}\n"
    "\tfmt.Fprintf(buf, `#!/bin/sh %[1]s\n"
    f"{_SCRIPT}\n"
    "`, cmd)\n"
    '\tfmt.Println("written")\n'
    '\tfmt.Println("one")\n'
    '\tfmt.Println("two")\n'
    '\tfmt.Println("three")\n'
    '\tfmt.Println("four")\n'
    '\tfmt.Println("five")\n'
    "}\n"
)


def test_mixed_indent_needs_many_lines_of_each_style() -> None:
    assert mixed_indent(_GO.splitlines())
    assert not mixed_indent(["\tx"] * 30 + ["  y"] * 2)
    assert not mixed_indent(["    x"] * 30)


def test_tab_line_in_a_file_with_a_space_indented_string_stays_a_tab_line() -> None:
    sketch = (
        "// ... existing code ...\n"
        '\t\tcmd = "default"\n'
        "\t}\n"
        "\tfmt.Fprintf(buf, `#!/bin/bash %[1]s\n"
        "// ... existing code ...\n"
    )
    out = merge(_GO, sketch, path="gen.go")
    assert isinstance(out, Merged), out
    assert out.text == _GO.replace("#!/bin/sh", "#!/bin/bash")


def test_space_sketch_in_a_tab_only_file_still_takes_tabs() -> None:
    original = "package p\n\nfunc F() int {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n"
    sketch = "// ... existing code ...\n    x := 1\n    y := 3\n// ... existing code ...\n"
    out = merge(original, sketch, path="p.go")
    assert isinstance(out, Merged), out
    assert out.text == original.replace("y := 2", "y := 3")
