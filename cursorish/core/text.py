"""Text shown to people: the one-line form of a task, a summary or an error message, and text
from planners or files made safe to show on a terminal."""

from __future__ import annotations

import re

# What a terminal would act on instead of showing: C0 controls (ESC starts CSI and OSC
# sequences; CR rewrites the line), DEL, C1 controls (U+009B is a one-character CSI), the
# bidirectional overrides and isolates that reorder what is shown ("Trojan source"), and lone
# surrogates (the undecodable bytes of a file or a file name, kept by surrogateescape).
_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[{_CHARS}]")
_UNSAFE_OR_LINES = re.compile(f"[{_CHARS}\n\t]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, *, keep_lines: bool = True) -> str:
    """`text` with every character a terminal would act on written as a visible escape (`\\e`
    for ESC, `\\r`, `\\x07`, `\\u202e`, `\\xff` for an undecodable byte). Newlines and tabs are
    kept unless `keep_lines` is false (one-line fields: a path, a task in a table)."""
    pattern = _UNSAFE if keep_lines else _UNSAFE_OR_LINES
    return pattern.sub(_escape, text)


def first_line(text: str, limit: int | None = None) -> str:
    """The first non-blank line of `text`, stripped (and cut to `limit` characters); "" if none."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if limit is None else line[:limit]


# A byte that is not UTF-8 (in a file name, or a command's output) is kept in a str as a lone
# surrogate (surrogateescape); such a str cannot be sent to a planner (JSON over UTF-8) or
# stored in SQLite. The planner sees the byte as `\xHH` instead, and a path it sends back with
# `\xHH` in it names that byte again (a backslash is never part of a path name it can use:
# containment reads it as a separator).
_SURROGATE = re.compile("[\udc80-\udcff]")
_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")
_ANY_SURROGATE = re.compile("[\ud800-\udfff]")


def for_planner(text: str) -> str:
    """`text` with every undecodable byte written as `\\xHH` (and any other lone surrogate
    as U+FFFD): valid UTF-8, for the planner and the store."""
    text = _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)
    return _ANY_SURROGATE.sub("\ufffd", text)


def from_planner_name(name: str) -> str:
    """A path name as the planner wrote it, with each `\\xHH` (HH >= 80) back to its byte."""
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), name)
