"""The verifier's stale-import check: an import a marker keeps although the merge removed the
last use of every name it binds is a question the sketch does not answer, so a refusal."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

PY = """\
import json
from packaging.version import Version


def newer(a, b):
    return Version(a) > Version(b)


def dump(data):
    return json.dumps(data)
"""

PY_SKETCH = """\
# ... existing code ...
def newer(a, b):
    return tuple(map(int, a.split("."))) > tuple(map(int, b.split(".")))
# ... existing code ...
"""


def test_an_import_kept_under_a_marker_after_its_last_use_went_is_refused() -> None:
    outcome = merge(PY, PY_SKETCH, path="versions.py")
    assert isinstance(outcome, Refused)
    assert "from packaging.version import Version" in outcome.reason
    assert "every use of 'Version'" in outcome.reason


def test_an_import_the_sketch_shows_stays_without_a_word() -> None:
    sketch = "import json\nfrom packaging.version import Version\n\n\n" + PY_SKETCH
    outcome = merge(PY, sketch, path="versions.py")
    assert isinstance(outcome, Merged)
    assert "from packaging.version import Version" in outcome.text


def test_an_import_line_binding_a_name_still_in_use_stays() -> None:
    original = PY.replace("from packaging.version import Version", "from v import Version, parse")
    original += "\n\ndef read(text):\n    return parse(text)\n"
    outcome = merge(original, PY_SKETCH, path="versions.py")
    assert isinstance(outcome, Merged)
    assert "from v import Version, parse" in outcome.text


def test_a_go_import_left_unused_is_refused() -> None:
    original = """\
package fs

import (
	"os"
	"strings"
)

func clean(root string) string {
	return strings.TrimPrefix(root, string(os.PathSeparator))
}
"""
    sketch = """\
// ... existing code ...
func clean(root string) string {
	return root[1:]
}
"""
    result = original.replace(
        "return strings.TrimPrefix(root, string(os.PathSeparator))", "return root[1:]"
    )
    reason = verify_merge(original, sketch, result, path="fs.go")
    assert reason is not None and "every use of" in reason
