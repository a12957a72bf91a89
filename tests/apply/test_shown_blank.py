"""A blank line the sketch shows between a marker and a kept original line.

A chunk that opens (ends) with a blank line at its marker, then an original line kept as it is,
says the original line next to that one is blank. Where the original has other lines there, up
to its nearest blank line, the sketch deletes them: the merge drops them rather than keeping
lines the sketch shows nothing between (which the verifier refuses).
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

PY = """import os


def to_text(value):
    if value is True:
        return "true"
    elif value is None:
        return ""
    elif isinstance(value, (str, float, int)):
        return str(value)
    raise TypeError(
        f"Expected str, int, float, bool, or None. Got {type(value).__name__!r}."
    )


def other():
    return os.sep
"""


def test_blank_line_before_the_marker_deletes_the_lines_up_to_the_blank_one() -> None:
    sketch = (
        "# ... existing code ...\n"
        '        return ""\n'
        "    return str(value)\n"
        "\n"
        "# ... existing code ...\n"
    )
    result = merge(PY, sketch, path="utils.py")
    assert isinstance(result, Merged), result
    assert result.text == PY.replace(
        "    elif isinstance(value, (str, float, int)):\n        return str(value)\n"
        "    raise TypeError(\n"
        '        f"Expected str, int, float, bool, or None. Got {type(value).__name__!r}."\n'
        "    )\n",
        "    return str(value)\n",
    )
