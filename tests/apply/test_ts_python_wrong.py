"""Round 7 (h62): TypeScript and Python wrong merges on the seen sets, made-up examples."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify import verify_merge
from cursorish.apply.verify.comment_opener import _opener_over_code
from cursorish.apply.verify.kept_lookalike import _kept_lookalike

ORIGINAL = """import os

name = "demo"

token = os.environ.get("DEMO_TOKEN", "none").strip()

# The token shown in logs
shown = token[:4]
"""

SKETCH = """import os
# ... unchanged ...

if "CI" in os.environ:
    secret = "ci"
else:
    secret = os.environ.get("DEMO_TOKEN", "none").strip()

# The token shown in logs
shown = secret[:4]
"""

# The old assignment kept by the marker, the new one of the same value written below it.
KEPT_BESIDE = """import os

name = "demo"

token = os.environ.get("DEMO_TOKEN", "none").strip()

if "CI" in os.environ:
    secret = "ci"
else:
    secret = os.environ.get("DEMO_TOKEN", "none").strip()

# The token shown in logs
shown = secret[:4]
"""


def test_kept_assignment_beside_its_renamed_copy_is_refused() -> None:
    """An original line a marker keeps right beside new lines, assigning the same call as one
    of them under another name, may be the line they replace: the verifier refuses."""
    problem = verify_merge(ORIGINAL, SKETCH, KEPT_BESIDE, path="settings.py")
    assert problem is not None and "same value" in problem


def test_merge_of_a_renamed_assignment_is_not_kept_beside_it() -> None:
    result = merge(ORIGINAL, SKETCH, path="settings.py")
    assert not (isinstance(result, Merged) and result.text == KEPT_BESIDE)


def test_shown_neighbour_or_other_value_stands() -> None:
    """The line the sketch shows is meant to stay; another value is another statement."""
    before = ["a = compute(first_value)", "", "x = 1"]
    after = ["a = compute(first_value)", "b = compute(first_value)", "", "x = 1"]
    old_of = [0, -1, 1, 2]
    assert _kept_lookalike(before, after, old_of, set()) is not None
    assert _kept_lookalike(before, after, old_of, {"a = compute(first_value)"}) is None
    other = ["a = compute(first_value)", "b = compute(other_value)", "", "x = 1"]
    assert _kept_lookalike(before, other, old_of, set()) is None


DOC_ORIGINAL = """/**
 * Deprecated: use makeWidget('/path/to/widget') to build a widget instead.
 */
/**
 * Deprecated: use makeWidget('/path/to/widget') to build a widget instead.
 */
/**
 * Deprecated: use makeWidget('/old') to build a widget instead.
 */
export class Widget {
  size = 1;
}
"""

DOC_SKETCH = """// ...
 * Deprecated: use makeWidget('/path/to/widget') to build a widget instead.
 */
export class Widget {
// ...
"""

# The last copy's line rewritten into a third copy of the long line the original holds twice.
DOC_THIRD_COPY = DOC_ORIGINAL.replace("makeWidget('/old')", "makeWidget('/path/to/widget')")


def test_long_line_left_once_more_than_the_original_holds_is_refused() -> None:
    """A long line the sketch shows once and the original holds more than once, left once more
    than it was with an original copy right beside the sketch's, should have replaced it."""
    problem = verify_merge(DOC_ORIGINAL, DOC_SKETCH, DOC_THIRD_COPY, path="widget.ts")
    assert problem is not None and "beside" in problem
    result = merge(DOC_ORIGINAL, DOC_SKETCH, path="widget.ts")
    assert not (isinstance(result, Merged) and result.text == DOC_THIRD_COPY)


def test_new_comment_opener_over_original_code_is_refused() -> None:
    """A new bare `/**` whose next line is kept original code (no comment body) opens a
    comment over it: the sketch's `/**` was the original's own, the lines before it deleted."""
    original = "// TODO: make it faster\n\n/**\n * Adds.\n */\nexport const add = 1;\n"
    sketch = "/**\n// ... rest of the file unchanged ...\n"
    wrong = "/**\n" + original
    problem = verify_merge(original, sketch, wrong, path="add.ts")
    assert problem is not None and "opens a comment" in problem
    result = merge(original, sketch, path="add.ts")
    assert not (isinstance(result, Merged) and result.text == wrong)
    # A new opener over a kept comment body rewrites the comment's first line: it stands.
    after = ["/**", " * Adds.", " */", "export const add = 1;"]
    assert _opener_over_code(after, [-1, 1, 2, 3], "typescript") is None
    assert _opener_over_code(["/**", "// TODO"], [-1, 0], "typescript") is not None
