"""The verifier's dead-definition check: a private function whose last use the merge removed,
kept by a marker, is a deletion the sketch may or may not mean, so a refusal."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

PY = """\
import os


def _quote(char):
    return "%" + format(ord(char), "02X")


def other():
    return os.sep


def encode(text):
    return "".join(_quote(c) if c == " " else c for c in text)
"""

SKETCH = """\
# ... existing code ...


def encode(text):
    return text.replace(" ", "%20")
"""


def test_a_private_helper_left_without_its_last_use_is_refused() -> None:
    outcome = merge(PY, SKETCH, path="quote.py")
    assert isinstance(outcome, Refused)
    assert "last use of '_quote'" in outcome.reason


def test_a_public_function_may_lose_its_last_use_here() -> None:
    original = PY.replace("_quote", "quote")
    outcome = merge(original, SKETCH, path="quote.py")
    assert isinstance(outcome, Merged)
    assert "def quote(char):" in outcome.text


def test_a_helper_the_sketch_shows_stays_without_a_word() -> None:
    sketch = (
        "# ... existing code ...\n\n\ndef _quote(char):\n"
        '    return "%" + format(ord(char), "02X")\n' + SKETCH
    )
    outcome = merge(PY, sketch, path="quote.py")
    assert isinstance(outcome, Merged)


def test_an_unexported_go_function_left_unused_is_refused() -> None:
    original = """\
package quote

func quoteOne(c byte) string {
	return string(c)
}

func Encode(s string) string {
	return quoteOne(s[0]) + s[1:]
}
"""
    sketch = """\
// ... existing code ...
func Encode(s string) string {
	return s
}
"""
    outcome = merge(original, sketch, path="quote.go")
    assert isinstance(outcome, Refused)
    assert "'quoteOne'" in outcome.reason
