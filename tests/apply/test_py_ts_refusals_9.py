"""Issue 17, round 9: Python and TypeScript refusals where the sketch tells its reading.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

SCALE = """import math


def scale(values, factor):
    if not values:
        return []
    return list(
        map(lambda v: v * factor, values)
    )


def total(values):
    return math.fsum(values)
"""


def test_new_lines_ending_in_a_blank_line_replace_the_statements_up_to_the_blank() -> None:
    """A chunk whose new lines end with a blank line before its marker says the original's
    next line there is blank: the whole statements between its context and the original's
    next blank line (same block, as many brackets closed, opening as the new lines do) are
    what the new lines replace."""
    sketch = (
        "# ... existing code ...\n"
        "    if not values:\n"
        "        return []\n"
        "    return [v * factor for v in values]\n"
        "\n"
        "# ... existing code ...\n"
    )
    expected = SCALE.replace(
        "    return list(\n        map(lambda v: v * factor, values)\n    )\n",
        "    return [v * factor for v in values]\n",
    )
    result = merge(SCALE, sketch, path="scale.py")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_the_lines_up_to_the_blank_are_not_replaced_where_the_code_after_it_goes_on() -> None:
    """Where the code after the original's blank line sits deeper than the first line before
    it (the block that line opens goes on past the blank line), those lines are no whole
    statements: the sketch does not say what goes, and the merge is refused."""
    original = (
        "def load(path, lock):\n"
        "    if not path:\n"
        "        return ''\n"
        "    with open(path) as f:\n"
        "        data = f.read()\n"
        "\n"
        "        return data\n"
        "\n"
        "\n"
        "def size(path):\n"
        "    return len(load(path, None))\n"
    )
    sketch = (
        "# ... existing code ...\n"
        "    if not path:\n"
        "        return ''\n"
        "    with lock:\n"
        "\n"
        "# ... existing code ...\n"
    )
    result = merge(original, sketch, path="load.py")
    assert isinstance(result, Refused), result


def test_lines_opening_unlike_the_new_lines_are_not_replaced() -> None:
    """Where the first original line up to the blank line opens with another word than the
    first new line (`yield` after `return`), it reads as no older version of the new lines:
    the sketch does not say it goes, and the merge is refused."""
    sketch = (
        "# ... existing code ...\n"
        "    if not values:\n"
        "        return []\n"
        "    yield from (v * factor for v in values)\n"
        "\n"
        "# ... existing code ...\n"
    )
    result = merge(SCALE, sketch, path="scale.py")
    assert isinstance(result, Refused), result


SETTINGS = """import type {Defaults} from './defaults.js';

export type Settings = {
\tname: string;
\tretries?: number;
} & Partial<Defaults>;

export const fallback: Partial<Defaults> = {};
"""


def test_a_new_closer_before_a_blank_line_replaces_the_closing_line_it_stands_for() -> None:
    """A chunk ending on a new closer (`};`) and a blank line before its marker replaces the
    original's closing line there (`} & Partial<Defaults>;`), which closes as many brackets,
    rather than keeping it after the new one."""
    sketch = "// ... existing code ...\n\tretries?: number;\n};\n\n// ... existing code ...\n"
    expected = SETTINGS.replace("} & Partial<Defaults>;", "};")
    result = merge(SETTINGS, sketch, path="settings.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_lines_closing_other_brackets_than_the_new_lines_are_not_replaced() -> None:
    """Where the original lines up to the blank line close brackets the new lines do not
    (the new line is no closer), replacing them would unbalance the file: refused."""
    sketch = (
        "// ... existing code ...\n"
        "\tretries?: number;\n"
        "\ttimeout?: number;\n"
        "\n"
        "// ... existing code ...\n"
    )
    result = merge(SETTINGS, sketch, path="settings.ts")
    assert isinstance(result, Refused), result
