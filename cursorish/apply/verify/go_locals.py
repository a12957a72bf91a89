"""Go locals the merge keeps declared after removing every read of them."""

from __future__ import annotations

import re
from collections import Counter

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`')
_WORD = re.compile(r"[A-Za-z_]\w*")
_GO_LOCAL = re.compile(r"^\s+(?:var\s+)?([A-Za-z_]\w*)\s*(?::=|\s[\w.*\[\]]+\s*=)")
_GO_ASSIGNED = re.compile(r"^\s*(?:var\s+)?([A-Za-z_]\w*)\s*(?:[\w.*\[\]]+\s*)?:?=(?!=)")
# A local declared with its type alone (`var fe *fieldError`): it writes the name, no read.
_GO_DECLARED = re.compile(r"^\s+var\s+([A-Za-z_]\w*)\s+[\w.*\[\]]+\s*$")


def _go_reads(lines: list[str]) -> Counter[str]:
    """How often each word is read in a Go file's code (a plain `x =` or `x :=` writes it;
    comments and one-line string literals say nothing)."""
    words: Counter[str] = Counter()
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        code = _STRING.sub("", line)
        words.update(_WORD.findall(code))
        target = _GO_ASSIGNED.match(code) or _GO_DECLARED.match(code)
        if target:
            words[target.group(1)] -= 1
    return words


def _unused_go_local(before: list[str], after: list[str]) -> str | None:
    """A Go local the original declares and reads that the merged file keeps declared with no
    read left (Go does not compile it): the edit removed the code reading it, and the sketch
    most likely removed the declaration too (under a marker, it stayed)."""
    old_words = _go_reads(before)
    new_words = _go_reads(after)
    old_lines = set(before)
    for at, line in enumerate(after):
        if line[:1] not in ("\t", " ") or line not in old_lines:
            continue
        match = _GO_LOCAL.match(line) or _GO_DECLARED.match(line)
        if not match or match.group(1) == "_":
            continue
        name = match.group(1)
        if (new_words[name] == 0 and old_words[name] >= 1) or _unread_in_function(
            name, at, before, after, new_words[name] < old_words[name]
        ):
            return (
                f"the merged file keeps {line.strip()[:50]!r} but no longer uses "
                f"{name!r} (Go does not compile it): the sketch removed the code "
                "using it and most likely the declaration too"
            )
    return None


def _function(lines: list[str], at: int) -> list[str]:
    """The top-level Go function (gofmt's `func` line to its `}` at column 0) around line
    `at`, or nothing where line `at` is in none."""
    start = at
    while start >= 0 and not lines[start].startswith("func "):
        if lines[start].startswith("}"):
            return []
        start -= 1
    end = at
    while end < len(lines) and not lines[end].startswith("}"):
        if lines[end].startswith("func "):
            return []
        end += 1
    return lines[start : end + 1] if start >= 0 and end < len(lines) else []


def _unread_in_function(
    name: str, at: int, before: list[str], after: list[str], fewer: bool
) -> bool:
    """Whether the local the merged file declares on line `at` (an original line), with
    fewer reads of its name left in the file, is read nowhere in its function, where the
    function the original declares it in read it: a name read elsewhere in the file (a method
    receiver, another function's local of that name) does not keep it used."""
    if not fewer:
        return False
    body = _function(after, at)
    if not body or _go_reads(body)[name] != 0:
        return False
    return any(
        _go_reads(_function(before, j))[name] >= 1
        for j, line in enumerate(before)
        if line == after[at]
    )
