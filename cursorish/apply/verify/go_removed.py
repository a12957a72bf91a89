"""Go package-level names whose declaration the merge removes while the file still uses them."""

from __future__ import annotations

import re

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)*\'')
_TOP = re.compile(r"^(?:func|type|const|var)\s+([A-Za-z_]\w*)")
_GROUP = re.compile(r"^(?:const|var|type)\s*\(\s*$")
_MEMBER = re.compile(r"^(?:\t| {4}| {2})([A-Za-z_]\w*)\b(?!\s*[.(:,])")


def _declared(lines: list[str]) -> dict[str, str]:
    """Package-level names a Go file declares (functions, types, and constants and variables,
    alone or in a `const (` group), with the line that declares each."""
    names: dict[str, str] = {}
    group = False
    for line in lines:
        if group:
            if line.startswith(")"):
                group = False
                continue
            match = _MEMBER.match(line)
            if match and not line.lstrip().startswith("//"):
                names.setdefault(match.group(1), line.strip())
            continue
        if _GROUP.match(line):
            group = True
            continue
        match = _TOP.match(line)
        if match:
            names.setdefault(match.group(1), line.strip())
    return names


def _removed_go_declaration(before: list[str], after: list[str]) -> str | None:
    """A package-level name the original declares and the merge no longer declares while the
    merged file still uses it (Go does not compile it): the sketch removed the declaration
    because the code using it goes too, and a marker kept that code."""
    old = _declared(before)
    new = _declared(after)
    gone = {name: line for name, line in old.items() if name not in new and name != "_"}
    if not gone:
        return None
    used = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, gone)) + r")\b")
    for line in after:
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", "/*", "*")):
            continue
        code = _STRING.sub("", line.split(" //")[0])
        match = used.search(code)
        if match:
            name = match.group(1)
            return (
                f"the merge removes {gone[name][:50]!r} while the file still uses {name!r} "
                f"({stripped[:50]!r}; Go does not compile it): the code using it was meant "
                "to go too"
            )
    return None
