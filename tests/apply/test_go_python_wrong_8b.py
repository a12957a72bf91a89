"""Wrong merges of Go and Python sketches (round 8, second pass), each turned into a general
rule; the examples are made up."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# A chunk that ends, at a marker, on one new comment line right after a kept comment line,
# where the original's next line is an empty comment line (`//`, `#`) at its depth: the new
# line may be added above the empty one or write words into it, and the sketch cannot tell.
_HEADER = """// Copyright 2020 Ann Lee
//
// Licensed under the MIT license.

package box

func Size() int {
\treturn 1
}
"""

_HEADER_SKETCH = """// Copyright 2020 Ann Lee
// Copyright 2024 Bob Stone
// ... rest of the file unchanged ...
"""


def test_new_comment_line_before_an_empty_comment_line_at_a_marker_is_refused() -> None:
    result = merge(_HEADER, _HEADER_SKETCH, path="box.go")
    assert isinstance(result, Refused), result
    assert "empty comment line" in result.reason


_PY_HEADER = """# Tools for boxes.
#
# Part of the crate package.

import os


def size():
    return os.sep
"""

_PY_HEADER_SKETCH = """# Tools for boxes.
# See the docs for more.
# ... rest of the file unchanged ...
"""


def test_python_new_comment_line_before_an_empty_comment_line_is_refused() -> None:
    result = merge(_PY_HEADER, _PY_HEADER_SKETCH, path="box.py")
    assert isinstance(result, Refused), result


def test_new_comment_line_before_a_worded_comment_line_still_merges() -> None:
    original = _HEADER.replace("//\n", "// All rights reserved.\n", 1)
    result = merge(original, _HEADER_SKETCH, path="box.go")
    assert isinstance(result, Merged), result
    assert result.text == original.replace(
        "// Copyright 2020 Ann Lee\n", "// Copyright 2020 Ann Lee\n// Copyright 2024 Bob Stone\n"
    )


# New lines that end a chunk before a shallower marker replace the rest of their block only
# where they also write that block's ending: the block's last `return` goes only where the
# new lines write a return of their own at its depth (here they wrap the loop in a new
# `try`, and the statements after it stay).
_READER = """class Reader:
    def __init__(self):
        self.seen = []

    def read(self, items):
        total = 0
        for item in items:
            total += item

        self.flush()
        return Summary(self.seen)


def other():
    pass
"""

_READER_SKETCH = """        # ... code before this block unchanged ...
        total = 0
        try:
            for item in items:
                total += item
        except TypeError as exc:
            self.fail(exc)
            raise exc

# ... rest of the file unchanged ...
"""


def test_new_lines_before_a_shallower_marker_keep_the_blocks_return() -> None:
    result = merge(_READER, _READER_SKETCH, path="reader.py")
    assert isinstance(result, Merged), result
    assert result.text == _READER.replace(
        "        for item in items:\n            total += item\n",
        "        try:\n            for item in items:\n                total += item\n"
        "        except TypeError as exc:\n            self.fail(exc)\n            raise exc\n",
    )


def test_new_lines_writing_their_own_return_still_replace_the_blocks_end() -> None:
    sketch = _READER_SKETCH.replace(
        "            raise exc\n", "            raise exc\n        return Summary([])\n"
    )
    result = merge(_READER, sketch, path="reader.py")
    assert isinstance(result, Merged), result
    assert "return Summary(self.seen)" not in result.text
