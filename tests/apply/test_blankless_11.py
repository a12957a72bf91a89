"""Blank-less sketches, eleventh round: a new import written right before code gets the blank
line that sets imports apart from the code after them (the sketch could not show it).
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

WATCH = '''import os
import sys


def watch(path):
    """Watch `path` for changes."""
    if sys.platform == "win32":
        handle = open_handle(path)
        return handle

    stat = os.stat(path)
    return stat.st_mtime
'''

# Every blank line dropped (the `return handle` and `stat` lines stand apart in the original):
# an import made inside the `if` block, then the code that uses it.
INLINE_IMPORT = """# ... existing code ...
def watch(path):
    \"\"\"Watch `path` for changes.\"\"\"
    if sys.platform == "win32":
        import winreg
        handle = winreg.OpenKey(path)
        return handle
    stat = os.stat(path)
    return stat.st_mtime
"""


def test_a_new_import_gets_its_blank_line_before_the_code_after_it() -> None:
    outcome = merge(WATCH, INLINE_IMPORT, path="watch.py")
    assert isinstance(outcome, Merged), outcome
    assert "        import winreg\n\n        handle = winreg.OpenKey(path)\n" in outcome.text
    assert "        return handle\n\n    stat = os.stat(path)\n" in outcome.text


def test_the_same_sketch_showing_its_blank_lines_keeps_them_as_written() -> None:
    sketch = INLINE_IMPORT.replace("return handle\n", "return handle\n\n")
    outcome = merge(WATCH, sketch, path="watch.py")
    assert isinstance(outcome, Merged), outcome
    assert "        import winreg\n        handle = winreg.OpenKey(path)\n" in outcome.text
