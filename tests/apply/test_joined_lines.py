"""A sketch line that joins a statement the original wraps over several lines (issue 17,
round 5): the joined, edited line replaces the whole statement, through its closing line."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

SETTINGS = """\
import os

DEBUG = False

ALLOWED = {
    "localhost": 8000,
    "example.org": 443,
}

TIMEOUT = 30


def load():
    return os.environ.get("SETTINGS")
"""


def test_a_line_joining_a_wrapped_statement_replaces_all_its_lines() -> None:
    sketch = """\
# ... existing code ...

ALLOWED = {"localhost": 8000, "example.org": 443, "test.local": 80}

# ... existing code ...
"""
    result = merge(SETTINGS, sketch, path="settings.py")
    assert isinstance(result, Merged)
    assert result.text == SETTINGS.replace(
        'ALLOWED = {\n    "localhost": 8000,\n    "example.org": 443,\n}\n',
        'ALLOWED = {"localhost": 8000, "example.org": 443, "test.local": 80}\n',
    )


def test_after_context_the_joined_line_replaces_the_statement_it_edits() -> None:
    sketch = """\
# ... existing code ...
DEBUG = False

ALLOWED = {"localhost": 8000, "example.org": 8443}
# ... existing code ...
"""
    result = merge(SETTINGS, sketch, path="settings.py")
    assert isinstance(result, Merged)
    assert result.text == SETTINGS.replace(
        'ALLOWED = {\n    "localhost": 8000,\n    "example.org": 443,\n}\n',
        'ALLOWED = {"localhost": 8000, "example.org": 8443}\n',
    )


def test_a_line_that_still_opens_the_statement_keeps_its_wrapped_lines() -> None:
    # `ALLOWED = {  # hosts` leaves the bracket open: an edit of the first line only.
    sketch = """\
# ... existing code ...
DEBUG = False

ALLOWED = {  # hosts
# ... existing code ...
"""
    result = merge(SETTINGS, sketch, path="settings.py")
    if isinstance(result, Merged):
        assert '    "localhost": 8000,\n' in result.text


def test_a_first_line_joining_the_statement_before_its_context_replaces_it() -> None:
    sketch = """\
# ... existing code ...
ALLOWED = {"localhost": 8000, "example.org": 8443}

TIMEOUT = 30
# ... existing code ...
"""
    result = merge(SETTINGS, sketch, path="settings.py")
    assert isinstance(result, Merged)
    assert result.text == SETTINGS.replace(
        'ALLOWED = {\n    "localhost": 8000,\n    "example.org": 443,\n}\n',
        'ALLOWED = {"localhost": 8000, "example.org": 8443}\n',
    )


SERVER = """\
package main

func run(cfg Config) error {
\tlog.Printf("starting")
\tsrv := NewServer(
\t\tcfg.Addr,
\t\tcfg.Timeout,
\t)
\treturn srv.Listen()
}
"""


def test_a_joined_call_in_go_replaces_the_wrapped_call() -> None:
    sketch = """\
// ... existing code ...
\tlog.Printf("starting")
\tsrv := NewServer(cfg.Addr, cfg.Timeout, cfg.Logger)
// ... existing code ...
"""
    result = merge(SERVER, sketch, path="main.go")
    assert isinstance(result, Merged)
    assert result.text == SERVER.replace(
        "\tsrv := NewServer(\n\t\tcfg.Addr,\n\t\tcfg.Timeout,\n\t)\n",
        "\tsrv := NewServer(cfg.Addr, cfg.Timeout, cfg.Logger)\n",
    )


def test_a_line_not_starting_with_the_wrapped_one_is_no_join_of_it() -> None:
    # `NewClient(` is another call: the wrapped `NewServer(` statement is no part of its edit.
    sketch = """\
// ... existing code ...
\tlog.Printf("starting")
\tsrv := NewClient(cfg.Addr, cfg.Timeout)
// ... existing code ...
"""
    result = merge(SERVER, sketch, path="main.go")
    if isinstance(result, Merged):
        assert "\t\tcfg.Timeout,\n" in result.text
