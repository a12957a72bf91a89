"""Round 7 (h62): TypeScript and Python wrong merges on the seen sets, made-up examples."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify import verify_merge
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
