"""The merge verifier: what it accepts (explained changes) and what it refuses, with reasons."""

from __future__ import annotations

from cursorish.apply.verify import verify_merge

ORIGINAL = """\
import os


def load(path):
    with open(path) as handle:
        data = handle.read()
    return data.strip()


def save(path, data):
    with open(path, "w") as handle:
        handle.write(data)


def remove(path):
    os.remove(path)
"""

SKETCH = """\
# ... existing code ...
def save(path, data):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(data)
# ... existing code ...
"""

GOOD = ORIGINAL.replace('open(path, "w")', 'open(path, "w", encoding="utf-8")')


def test_a_correct_merge_is_accepted() -> None:
    assert verify_merge(ORIGINAL, SKETCH, GOOD, path="m.py") is None


def test_a_whole_file_sketch_is_accepted() -> None:
    assert verify_merge(ORIGINAL, GOOD, GOOD, path="m.py") is None


def test_a_sketch_line_missing_from_the_result_is_refused() -> None:
    reason = verify_merge(ORIGINAL, SKETCH, ORIGINAL.replace("os.remove", "os.unlink"), path="m.py")
    assert reason is not None
    assert "sketch lines from line 2" in reason


def test_a_line_from_nowhere_is_refused() -> None:
    bad = GOOD.replace("    os.remove(path)\n", "    os.remove(path)\n    print('gone')\n")
    reason = verify_merge(ORIGINAL, SKETCH, bad, path="m.py")
    assert reason is not None
    assert "neither from the sketch nor from the original" in reason
    assert "print('gone')" in reason


def test_a_deletion_under_a_marker_is_refused() -> None:
    bad = GOOD.replace("    return data.strip()\n", "")
    reason = verify_merge(ORIGINAL, SKETCH, bad, path="m.py")
    assert reason is not None
    assert "original line 7" in reason


def test_a_deletion_between_adjacent_sketch_lines_is_accepted() -> None:
    sketch = """\
# ... existing code ...
def load(path):
    with open(path) as handle:
        data = handle.read()
    return data
# ... existing code ...
"""
    good = ORIGINAL.replace("    return data.strip()\n", "    return data\n")
    assert verify_merge(ORIGINAL, sketch, good, path="m.py") is None
    # The sketch leaves out a line between two lines it shows next to each other: deleted.
    block = "    with open(path) as handle:\n        data = handle.read()\n"
    sketch_deleting = sketch.replace(block, "")
    deleting = good.replace(block, "")
    assert verify_merge(ORIGINAL, sketch_deleting, deleting, path="m.py") is None


def test_a_block_kept_beside_its_replacement_is_refused() -> None:
    original = "def f():\n    return compute_the_value(1)\n\n\ndef g():\n    return 2\n"
    sketch = "def f():\n    return compute_the_value(1) + 1\n# ... existing code ...\n"
    kept_beside = (
        "def f():\n    return compute_the_value(1) + 1\ndef f():\n    return compute_the_value(1)\n"
        "\n\ndef g():\n    return 2\n"
    )
    assert verify_merge(original, sketch, kept_beside, path="m.py") is not None


def test_a_chunk_re_indented_unevenly_is_refused() -> None:
    original = (
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    )
    sketch = "class A:\n    def f(self):\n        return 10\n    # ... existing code ...\n"
    good = original.replace("return 1\n", "return 10\n")
    assert verify_merge(original, sketch, good, path="m.py") is None
    flattened = original.replace("        return 1\n", "    return 10\n")
    reason = verify_merge(original, sketch, flattened, path="m.py")
    assert reason is not None


def test_spaces_in_a_tab_indented_file_are_refused() -> None:
    original = (
        "package m\n\nfunc f() int {\n\tx := 1\n\ty := 2\n\treturn x\n}\n\n"
        "func g() int {\n\treturn 2\n}\n"
    )
    sketch = "func f() int {\n    x := 1\n    y := 3\n    return x\n}\n// ... existing code ...\n"
    good = original.replace("\ty := 2", "\ty := 3")
    assert verify_merge(original, sketch, good, path="m.go") is None
    spaced = original.replace("\ty := 2", "    y := 3")
    reason = verify_merge(original, sketch, spaced, path="m.go")
    assert reason is not None
    assert "spaces in a file indented with tabs" in reason


def test_a_tail_cut_after_a_sketch_without_trailing_marker_is_refused() -> None:
    body = "".join(f"def f{k}():\n    return {k}\n\n\n" for k in range(6))
    original = "import os\n\n\n" + body
    sketch = "# ... existing code ...\ndef f1():\n    return 100\n"
    cut = "import os\n\n\ndef f0():\n    return 0\n\n\ndef f1():\n    return 100\n"
    reason = verify_merge(original, sketch, cut, path="m.py")
    assert reason is not None
    assert "end of the file" in reason
    kept = original.replace("    return 1\n", "    return 100\n")
    assert verify_merge(original, sketch, kept, path="m.py") is None


def test_new_syntax_errors_are_refused() -> None:
    sketch = "# ... existing code ...\ndef remove(path):\n    os.remove(path\n"
    broken = ORIGINAL.replace("os.remove(path)", "os.remove(path")
    reason = verify_merge(ORIGINAL, sketch, broken, path="m.py")
    assert reason is not None
    assert "syntax error" in reason


def test_a_blank_line_beside_a_marker_must_land_on_a_blank_line() -> None:
    original = (
        "def to_text(value):\n    if value is None:\n        return ''\n"
        "    elif isinstance(value, str):\n        return str(value)\n    raise TypeError(value)\n"
        "\n\ndef other():\n    return 1\n"
    )
    sketch = (
        "# ... existing code ...\n        return ''\n    return str(value)\n\n"
        "# ... existing code ...\n"
    )
    expected = original.replace(
        "    elif isinstance(value, str):\n        return str(value)\n    raise TypeError(value)\n",
        "    return str(value)\n",
    )
    assert verify_merge(original, sketch, expected, path="m.py") is None
    kept_raise = original.replace(
        "    elif isinstance(value, str):\n        return str(value)\n", "    return str(value)\n"
    )
    reason = verify_merge(original, sketch, kept_raise, path="m.py")
    assert reason is not None
    assert "blank line" in reason


def test_a_trailing_marker_that_keeps_nothing_while_the_tail_is_gone_is_refused() -> None:
    sketch = "# ... existing code ...\ndef save(path, data):\n    pass\n# ... existing code ...\n"
    truncated = ORIGINAL[: ORIGINAL.index("def save")] + "def save(path, data):\n    pass\n"
    reason = verify_merge(ORIGINAL, sketch, truncated, path="m.py")
    assert reason is not None
    assert "keeps no original line" in reason
    good = ORIGINAL.replace(
        '    with open(path, "w") as handle:\n        handle.write(data)\n', "    pass\n"
    )
    assert verify_merge(ORIGINAL, sketch, good, path="m.py") is None


def test_a_go_name_declared_again_beside_its_old_declaration_is_refused() -> None:
    original = (
        "package m\n\nfunc size(s string) int {\n\tn := len(s)\n\tif n < 0 {\n\t\tn = 0\n\t}\n\n"
        "\treturn n\n}\n"
    )
    sketch = "// ... existing code ...\n\t}\n\n\tn := max(len(s), 0)\n\n\treturn n\n}\n"
    kept_beside = original.replace(
        "\t}\n\n\treturn n", "\t}\n\n\tn := max(len(s), 0)\n\n\treturn n"
    )
    reason = verify_merge(original, sketch, kept_beside, path="m.go")
    assert reason is not None
    assert "declares 'n'" in reason


def test_a_typescript_const_declared_again_beside_its_old_one_is_refused() -> None:
    original = "export function f(s: string): number {\n  const n = s.length;\n  return n;\n}\n"
    sketch = "export function f(s: string): number {\n  const n = s.trim().length;\n// ...\n"
    kept = original.replace(
        "  const n = s.length;\n", "  const n = s.trim().length;\n  const n = s.length;\n"
    )
    reason = verify_merge(original, sketch, kept, path="m.ts")
    assert reason is not None
    good = original.replace("s.length", "s.trim().length")
    assert verify_merge(original, sketch, good, path="m.ts") is None


def test_a_chunk_that_replaces_the_last_line_before_a_trailing_marker_stands() -> None:
    original = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"
    sketch = "# ... existing code ...\n    return 2\n# ... existing code ...\n"
    answer = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    assert verify_merge(original, sketch, answer, path="m.py") is None


def test_a_pasted_block_left_unindented_in_python_is_refused() -> None:
    # Tree-sitter parses the dedented lines as module code after the function; Python does not
    # accept the old body indented after them.
    sketch = "# ... existing code ...\ndef load(path):\nreturn data\n# ... existing code ...\n"
    result = ORIGINAL.replace("def load(path):\n", "def load(path):\nreturn data\n")
    reason = verify_merge(ORIGINAL, sketch, result, path="m.py")
    assert reason is not None and "not valid Python" in reason


def test_code_written_anew_beside_its_kept_old_copy_is_refused() -> None:
    # The sketch moves save() above load(); the merge wrote it there and kept the old copy
    # right after the chunk, where the marker sits.
    moved = ORIGINAL[ORIGINAL.index("def save") : ORIGINAL.index("\n\n\ndef remove") + 1]
    load = "def load(path):\n    with open(path) as handle:\n        data = handle.read()\n"
    sketch = f"import os\n\n\n{moved}\n\n{load}    return data.strip()\n# ... existing code ...\n"
    result = ORIGINAL.replace("def load(path):\n", f"{moved}\n\ndef load(path):\n")
    reason = verify_merge(ORIGINAL, sketch, result, path="m.py")
    assert reason is not None and "moves them" in reason
    # The same lines far from every chunk may be a copy the edit makes on purpose.
    far = ORIGINAL + "\n\ndef last():\n    return 0\n"
    sketch_far = f"# ... existing code ...\ndef last():\n    return 0\n\n\n{moved}"
    result_far = f"{far}\n\n{moved}"
    assert verify_merge(far, sketch_far, result_far, path="m.py") is None


def test_a_python_global_assigned_again_beside_its_old_assignment_is_refused() -> None:
    original = 'import os\n\n__version__ = "1.0"\n\n\ndef f():\n    return 1\n'
    sketch = 'import os\n__version__ = "1.1"\n'
    kept = original.replace("import os\n", 'import os\n__version__ = "1.1"\n')
    reason = verify_merge(original, sketch, kept, path="m.py")
    assert reason is not None and "'__version__' again" in reason
    # A function rebinding a local beside its first assignment is ordinary code.
    local = "def f(x):\n    y = x\n    return y\n"
    sketch_local = "def f(x):\n    y = x\n    y = y + 1\n# ... existing code ...\n"
    result_local = local.replace("    y = x\n", "    y = x\n    y = y + 1\n")
    assert verify_merge(local, sketch_local, result_local, path="m.py") is None


def test_a_typescript_type_alias_declared_again_beside_its_old_one_is_refused() -> None:
    original = "type A = string;\n\nexport function f(): A {\n  return '';\n}\n"
    sketch = "type A = number;\n// ... existing code ...\n"
    kept = "type A = number;\n" + original
    assert verify_merge(original, sketch, kept, path="m.ts") is not None


def test_a_python_edit_inside_a_string_at_column_zero_is_accepted() -> None:
    # The statement around the edit starts inside the string: parsed alone it fails, so the
    # whole file decides.
    original = 'X = """\nfirst\nsecond\n"""\n\n\ndef f():\n    return 1\n'
    sketch = '# ... existing code ...\nfirst\nsecond line\n"""\n# ... existing code ...\n'
    result = original.replace("second\n", "second line\n")
    assert verify_merge(original, sketch, result, path="m.py") is None


def test_a_chunk_placed_only_by_bracket_lines_does_not_replace_an_entry() -> None:
    entry = '  {{\n    name: "{0}",\n    url: "{0}.dev",\n    slug: "{0}/{0}",\n  }},\n'
    original = "const xs = [\n" + "".join(entry.format(x) for x in "abc") + "];\n"
    sketch = '// ...\n  },\n  {\n    name: "new",\n  },\n  {\n    name: "c",\n// ...\n'
    # The sketch adds an entry before c; this merge put it in place of b.
    b_entry = entry.format("b")
    replaced = original.replace(b_entry, '  {\n    name: "new",\n  },\n')
    reason = verify_merge(original, sketch, replaced, path="m.ts")
    assert reason is not None and "bracket lines" in reason
    added = original.replace(b_entry, b_entry + '  {\n    name: "new",\n  },\n')
    assert verify_merge(original, sketch, added, path="m.ts") is None


def test_original_lines_kept_after_a_new_return_are_refused() -> None:
    # The sketch writes the function's new end and leaves its old body out: keeping the old
    # lines after the new `return` would leave code that never runs.
    sketch = """\
# ... existing code ...
def load(path):
    return open(path).read()
# ... existing code ...
"""
    bad = ORIGINAL.replace("def load(path):\n", "def load(path):\n    return open(path).read()\n")
    reason = verify_merge(ORIGINAL, sketch, bad, path="m.py")
    assert reason is not None
    assert "would never run" in reason
    good = ORIGINAL.replace(
        "    with open(path) as handle:\n        data = handle.read()\n    return data.strip()\n",
        "    return open(path).read()\n",
    )
    assert verify_merge(ORIGINAL, sketch, good, path="m.py") is None
    # A `return` that goes on over the next lines, or one before another branch, is fine.
    branch = ORIGINAL.replace(
        "    return data.strip()\n",
        "    if not data:\n        return ''\n    return data.strip()\n",
    )
    sketch2 = """\
# ... existing code ...
        data = handle.read()
    if not data:
        return ''
    return data.strip()
# ... existing code ...
"""
    assert verify_merge(ORIGINAL, sketch2, branch, path="m.py") is None


RUST = """\
fn values(completer: &Completer, value: &str) -> Vec<Candidate> {
    debug!("values");

    let mut values = Vec::new();
    values.extend(completer.candidates());

    values.retain(|c| c.starts_with(value));
    values
}
"""


def test_a_rust_let_written_beside_the_one_it_replaces_is_refused() -> None:
    sketch = """\
// ... existing code ...

    let mut values = completer.candidates();
    values.retain(|c| c.starts_with(value));
    values
}
"""
    kept = RUST.replace(
        "    values.retain", "    let mut values = completer.candidates();\n    values.retain"
    )
    reason = verify_merge(RUST, sketch, kept, path="lib.rs")
    assert reason is not None and "declares 'values' again" in reason
    # Shadowing a name by deriving it from itself is deliberate Rust.
    shadow = sketch.replace("completer.candidates()", "values.clone()")
    shadowed = kept.replace(
        "let mut values = completer.candidates()", "let mut values = values.clone()"
    )
    assert verify_merge(RUST, shadow, shadowed, path="lib.rs") is None


GO_IMPORTS = """\
package echo

import (
	"os"
	"runtime"
	"strings"
)

func subFS(root string) string {
	return strings.TrimPrefix(root, string(os.PathSeparator))
}

func isRelativePath(path string) bool {
	return runtime.GOOS != "windows" && !strings.HasPrefix(path, "/")
}
"""


def test_an_import_removed_while_the_file_still_uses_it_is_refused() -> None:
    # The sketch drops the import because the code using it goes too; that code sat under the
    # trailing marker, so keeping it leaves a file that does not build.
    sketch = """\
// ... existing code ...
import (
	"os"
	"strings"
)
// ... rest of the file unchanged ...
"""
    kept = GO_IMPORTS.replace('\t"runtime"\n', "")
    reason = verify_merge(GO_IMPORTS, sketch, kept, path="fs.go")
    assert reason is not None and "'runtime'" in reason
    # An import nothing uses any more goes without a word.
    unused = GO_IMPORTS[: GO_IMPORTS.index("\nfunc isRelativePath")]
    gone = unused.replace('\t"runtime"\n', "")
    assert verify_merge(unused, sketch, gone, path="fs.go") is None


def test_a_python_import_moved_into_a_function_or_shadowed_by_a_class_is_no_orphan() -> None:
    original = "import netrc\n\n\ndef load(file):\n    return netrc.netrc(file)\n"
    moved = "def load(file):\n    import netrc\n\n    return netrc.netrc(file)\n"
    sketch = "def load(file):\n    import netrc\n\n    return netrc.netrc(file)\n"
    assert verify_merge(original, sketch, moved, path="auth.py") is None
    original = "from rich.table import Table\n\n\nclass Column:\n    pass\n"
    own = "class Table:\n    pass\n\n\nclass Column:\n    pass\n"
    assert "Table" not in (verify_merge(original, own, own, path="t.py") or "")
    gone = "class Column:\n    size = Table()\n"
    reason = verify_merge(original, gone, gone, path="t.py")
    assert reason is not None and "'Table'" in reason
