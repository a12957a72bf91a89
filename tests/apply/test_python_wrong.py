"""Wrong merges in Python that a general rule turns into refusals (or exact merges)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

ORIGINAL = '''\
import string


def prefix_of(text):
    """The leading letters of text."""
    ensure_text(text)

    result = ""
    index = 0
    while text[index] in string.ascii_letters:
        result += text[index]
        index += 1

    return result


def other():
    return string.digits
'''

NEW_BODY = """\
    result = []
    for char in text:
        if char not in string.ascii_letters:
            break
        result.append(char)
    return "".join(result)
"""


def test_a_snippet_that_drops_the_blank_line_after_a_kept_line_before_new_code_is_refused() -> None:
    # The snippet keeps `ensure_text(text)` and writes new code right after it: the blank
    # line the original has there may be deleted, or only left out (planners drop them).
    sketch = "    ensure_text(text)\n" + NEW_BODY
    outcome = merge(ORIGINAL, sketch, path="prefix.py")
    assert isinstance(outcome, Refused)
    assert "blank line 7" in outcome.reason


def test_a_snippet_that_shows_the_blank_line_keeps_it() -> None:
    head = 'def prefix_of(text):\n    """The leading letters of text."""\n    ensure_text(text)\n'
    outcome = merge(ORIGINAL, head + "\n" + NEW_BODY, path="prefix.py")
    assert isinstance(outcome, Merged)
    assert "    ensure_text(text)\n\n    result = []\n" in outcome.text
    assert "index" not in outcome.text


def test_a_snippet_that_deletes_old_code_by_leaving_it_out_still_merges() -> None:
    # Old code shown gone by omission between two kept lines: no new code stands next to a
    # blank line the merge deletes, so there is nothing to doubt.
    sketch = 'def prefix_of(text):\n    """The leading letters of text."""\n'
    sketch += "    ensure_text(text)\n    return result\n"
    outcome = merge(ORIGINAL, sketch, path="prefix.py")
    assert isinstance(outcome, Merged)
    assert "while" not in outcome.text
    assert "    return result\n" in outcome.text


IMPORTS = '''\
"""Public names."""

from .errors import ConfigError
from .errors import ParseError
from .errors import TimeoutError
from .loader import load
from .loader import loads

__all__ = ["ConfigError", "ParseError", "TimeoutError", "load", "loads"]
'''


def test_a_new_import_at_a_chunk_edge_that_would_delete_a_sibling_import_is_refused() -> None:
    # The chunk ends on a new import before its marker; deleting the original imports of the
    # same module beyond it (read as the old version) is a guess: the marker may keep them.
    sketch = """\
# ... existing code ...
from .errors import ConfigError
from .errors import NetworkError
# ... existing code ...
"""
    outcome = merge(IMPORTS, sketch, path="__init__.py")
    assert isinstance(outcome, Refused)
    assert "from .errors import NetworkError" in outcome.reason


def test_a_new_import_between_two_shown_imports_is_added() -> None:
    sketch = """\
# ... existing code ...
from .errors import TimeoutError
from .errors import ValueMismatch
from .loader import load
# ... existing code ...
"""
    outcome = merge(IMPORTS, sketch, path="__init__.py")
    assert isinstance(outcome, Merged)
    assert outcome.text == IMPORTS.replace(
        "import TimeoutError\n", "import TimeoutError\nfrom .errors import ValueMismatch\n"
    )


FALLBACK = """\
import sys

try:
    from yaml import CSafeLoader as Loader
except ImportError:
    try:
        from yaml import SafeLoader as Loader
    except ImportError:
        # no yaml at all
        Loader = None


def load(text):
    return Loader(text).get_single_data()
"""


def test_a_snippet_ending_on_a_new_line_inside_a_block_whose_body_goes_on_is_refused() -> None:
    # Without a marker, the snippet may replace the nested fallback under `except` or add a
    # line before it: the original body goes on, as deep, right after the new line.
    sketch = (
        "try:\n    from yaml import CSafeLoader as Loader\nexcept ImportError:\n"
        "    from yaml import FullLoader as Loader\n"
    )
    outcome = merge(FALLBACK, sketch, path="compat.py")
    assert isinstance(outcome, Refused)
    assert "ends on the new line 'from yaml import FullLoader as Loader'" in outcome.reason


def test_a_snippet_ending_on_a_new_line_at_the_end_of_its_block_merges() -> None:
    sketch = "def load(text):\n    data = Loader(text).get_single_data()\n    return data or {}\n"
    outcome = merge(FALLBACK, sketch, path="compat.py")
    assert isinstance(outcome, Merged)
    assert outcome.text.endswith(
        "    data = Loader(text).get_single_data()\n    return data or {}\n"
    )
