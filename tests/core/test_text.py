"""The one-line form of tasks, summaries and error messages."""

from __future__ import annotations

from cursorish.core.text import first_line


def test_first_non_blank_line_stripped() -> None:
    assert first_line("\n   \n  fix the parser  \nthen the tests") == "fix the parser"


def test_nothing_but_blanks_gives_empty() -> None:
    assert first_line(" \n\t\n") == ""


def test_limit_cuts_the_line() -> None:
    assert first_line("abcdef\nxyz", 3) == "abc"
