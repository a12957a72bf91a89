from __future__ import annotations

import pytest

from cursorish.apply.languages import detect_language
from cursorish.apply.markers import is_marker


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("a.py", "# ... existing code ..."),
        ("a.py", "    # (existing code)"),
        ("a.py", "# ..."),
        ("a.py", "# rest of file unchanged"),
        ("a.py", "# ... keep existing code ..."),
        ("a.py", "# Rest of the code remains the same"),
        ("a.rb", "# ... unchanged ..."),
        ("a.js", "// ... rest of the code ..."),
        ("a.js", "// rest unchanged"),
        ("a.tsx", "{/* ... */}"),
        ("a.go", "/* ... existing code ... */"),
        ("a.go", "\t..."),
        ("a.rs", "// … same as before"),
        ("a.php", "# ... existing code ..."),
        ("notes.txt", "-- ... rest unchanged ..."),
    ],
)
def test_markers_in_any_comment_syntax_and_wording(path: str, line: str) -> None:
    assert is_marker(line, detect_language(path))


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("a.py", "# keep the list sorted"),
        ("a.py", "..."),  # Python's Ellipsis is code
        ("a.py", "x = 1  # ... existing code ..."),
        ("a.js", "// Other options"),
        ("a.js", "// TODO: handle the rest of the errors properly before release"),
        ("a.go", 'fmt.Println("...")'),
        ("a.py", ""),
    ],
)
def test_ordinary_lines_are_not_markers(path: str, line: str) -> None:
    assert not is_marker(line, detect_language(path))


def test_a_line_comment_of_dots_inside_a_doc_comment_is_the_example_s_own() -> None:
    # `* // ...` elides code in a documented example (`/** ... */`), not the file.
    assert not is_marker("   * // ...", detect_language("a.ts"))
    assert is_marker("  // ...", detect_language("a.ts"))
