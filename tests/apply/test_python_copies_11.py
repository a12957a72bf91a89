"""Issue 17, round 11: Python lines the merge holds twice, told apart from a copy placed wrong.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Refused
from cursorish.apply.verify.py_imported_twice import _imported_twice


def test_an_import_moved_to_the_top_of_its_block_leaves_no_second_copy() -> None:
    """A sketch that writes an import again at the top of a block, with the old import under a
    marker: nobody imports a name twice in one block, so the old one was meant to go, and which
    of the lines around it went too the marker does not say. Refused, not merged twice."""
    original = (
        "import time\n"
        "\n"
        "\n"
        "def report(rows):\n"
        "    started = time.time()\n"
        "    for row in rows:\n"
        "        if not row:\n"
        "            continue\n"
        "        name, size = row\n"
        "        print(name)\n"
        "        print(size)\n"
        "    print(f'took {time.time() - started}s')\n"
        "\n"
        "    from textwrap import indent\n"
        "\n"
        "    out = []\n"
        "    out.append(indent('done', '  '))\n"
        "    return out\n"
    )
    sketch = (
        "# ... existing code ...\n"
        "def report(rows):\n"
        "    from textwrap import indent\n"
        "\n"
        "    started = time.time()\n"
        "    # ... existing code ...\n"
        "\n"
        "    out = []\n"
        "    out.append(indent('finished', '  '))\n"
        "    return out\n"
    )
    result = merge(original, sketch, path="report.py")
    assert isinstance(result, Refused), result
    assert "twice" in result.reason


def test_an_import_in_two_blocks_is_no_copy() -> None:
    """The same import in two functions (or in `try` and `except`) binds the name in two
    scopes: no import twice. In one block it is."""
    before = ["def first():", "    return 1"]
    after = [
        "def first():",
        "    from textwrap import indent",
        "    return indent('a', ' ')",
        "",
        "",
        "def second():",
        "    from textwrap import indent",
        "    return indent('b', ' ')",
        "try:",
        "    import ujson as json",
        "except ImportError:",
        "    import json",
    ]
    assert _imported_twice(before, after, "python") is None
    twice = [*after[:3], "    from textwrap import indent"]
    assert _imported_twice(before, twice, "python") is not None
