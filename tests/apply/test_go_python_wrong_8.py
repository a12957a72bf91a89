"""Wrong merges of Go and Python sketches (round 8), each turned into a general rule; the
examples are made up."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# New lines that end a chunk, deeper than the marker after them (planners write markers at
# column 0), replace the original lines after them only where those hold no definition the
# sketch never names: the marker's depth alone does not say another method goes.
_WORKER = """class Worker:
    def start(self):
        self.ready = False
        self.open()

    def ping(self):
        return True


def helper():
    pass
"""

_WORKER_SKETCH = """# ... existing code ...
    def start(self):
        self.ready = False
        self.open()
        self.ready = True
        self.log("started")

# ... existing code ...
"""


def test_new_lines_before_a_shallower_marker_keep_a_definition_after_them() -> None:
    result = merge(_WORKER, _WORKER_SKETCH, path="worker.py")
    assert isinstance(result, Merged), result
    assert result.text == _WORKER.replace(
        "        self.open()\n",
        '        self.open()\n        self.ready = True\n        self.log("started")\n',
    )
