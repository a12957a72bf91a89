"""The one-line form of tasks, summaries and error messages."""

from __future__ import annotations

from cursorish.core.text import first_line


def test_first_non_blank_line_stripped() -> None:
    assert first_line("\n   \n  fix the parser  \nthen the tests") == "fix the parser"


def test_nothing_but_blanks_gives_empty() -> None:
    assert first_line(" \n\t\n") == ""


def test_limit_cuts_the_line() -> None:
    assert first_line("abcdef\nxyz", 3) == "abc"


def test_escape_controls_shows_what_a_terminal_would_act_on() -> None:
    from cursorish.core.text import escape_controls

    hostile = "ok\x1b]52;c;cHduZWQ=\x07 \x1b[2J\rfake\x9b31m \u202eevil\udcff\x00\x7f"
    shown = escape_controls(hostile)
    assert shown == "ok\\e]52;c;cHduZWQ=\\x07 \\e[2J\\rfake\\x9b31m \\u202eevil\\xff\\x00\\x7f"
    assert escape_controls("a\n\tb") == "a\n\tb"
    assert escape_controls("a\n\tb", keep_lines=False) == "a\\n\\tb"
    assert escape_controls("naïve — 日本 ✓") == "naïve — 日本 ✓"
