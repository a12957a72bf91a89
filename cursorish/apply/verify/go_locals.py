"""Go locals the merge keeps declared after removing every read of them."""

from __future__ import annotations

import re
from collections import Counter

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`')
_WORD = re.compile(r"[A-Za-z_]\w*")
_GO_LOCAL = re.compile(r"^\s+(?:var\s+)?([A-Za-z_]\w*)\s*(?::=|\s[\w.*\[\]]+\s*=)")
_GO_ASSIGNED = re.compile(r"^\s*(?:var\s+)?([A-Za-z_]\w*)\s*(?:[\w.*\[\]]+\s*)?:?=(?!=)")


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
        target = _GO_ASSIGNED.match(code)
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
    for line in after:
        if line[:1] not in ("\t", " ") or line not in old_lines:
            continue
        match = _GO_LOCAL.match(line)
        if not match or match.group(1) == "_":
            continue
        name = match.group(1)
        if new_words[name] == 0 and old_words[name] >= 1:
            return (
                f"the merged file keeps {line.strip()[:50]!r} but no longer uses "
                f"{name!r} (Go does not compile it): the sketch removed the code "
                "using it and most likely the declaration too"
            )
    return None
