"""Issue 13: a sketch that leaves out its leading or trailing marker.

Leaving out either marker means the same: a sketch that stops a few lines short of that edge of
the file reaches it (those lines go); one that stops further away is unclear (deleted, or left
out?) and refused with a reason; it never silently deletes the file's tail or head.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

BODY = "".join(f"def f{k}(x):\n    y = x * {k}\n    return y + {k}\n\n\n" for k in range(8))
ORIGINAL = "import os\n\n\n" + BODY
EDIT = "def f3(x):\n    y = x * 3\n    return y + 300\n"
EDITED = ORIGINAL.replace("    return y + 3\n", "    return y + 300\n")


def run_apply(tmp_path: Path, sketch: str) -> subprocess.CompletedProcess[str]:
    original = tmp_path / "m.py"
    original.write_text(ORIGINAL)
    (tmp_path / "sketch.txt").write_text(sketch)
    out = tmp_path / "out.py"
    command = [sys.executable, "-m", "cursorish", "apply", str(original)]
    command += [str(tmp_path / "sketch.txt"), "--engine", "deterministic", "-o", str(out)]
    return subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_leading_marker_without_trailing_one_never_deletes_the_tail(tmp_path: Path) -> None:
    done = run_apply(tmp_path, "# ... existing code ...\n" + EDIT)
    assert done.returncode == 3, done.stderr
    assert "refused" in done.stderr
    assert not (tmp_path / "out.py").exists()
    assert (tmp_path / "m.py").read_text() == ORIGINAL


def test_trailing_marker_without_leading_one_is_refused_the_same_way(tmp_path: Path) -> None:
    done = run_apply(tmp_path, EDIT + "# ... existing code ...\n")
    assert done.returncode == 3, done.stderr
    assert "no marker" in done.stderr
    assert "leaves them out" in done.stderr
    assert not (tmp_path / "out.py").exists()


def test_both_markers_merge(tmp_path: Path) -> None:
    done = run_apply(tmp_path, "# ... existing code ...\n" + EDIT + "# ... existing code ...\n")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.py").read_text() == EDITED


def test_a_sketch_that_stops_a_few_lines_short_of_either_edge_reaches_it() -> None:
    original = (
        "import os\nimport sys\n\n\ndef f():\n    return os.sep\n\n\ndef g():\n    return 1\n"
    )
    # No leading marker, one import line above the first line shown: it goes.
    head = merge(original, "import sys\n\n\ndef f():\n    return sys.argv\n# ...\n", path="m.py")
    assert isinstance(head, Merged), head
    assert head.text.startswith("import sys\n\n\ndef f():\n    return sys.argv\n")
    # No trailing marker, two lines below the last line shown: they go too.
    # (`os` stays in use: an import left without its last use would be a question of its own.)
    # (The blank lines shown: a marked sketch with none at all would leave their spacing open.)
    sketch = "# ... existing code ...\n\n\ndef f():\n    return os.name\n"
    tail = merge(original, sketch, path="m.py")
    assert isinstance(tail, Merged), tail
    assert tail.text.endswith("def f():\n    return os.name\n")


def test_a_sketch_stopping_far_from_the_end_is_refused_with_the_line() -> None:
    outcome = merge(ORIGINAL, "# ... existing code ...\ndef f3(x):\n    y = x * 3\n", path="m.py")
    assert isinstance(outcome, Refused)
    assert "unclear" in outcome.reason
