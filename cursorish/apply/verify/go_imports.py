"""Go packages the merged file imports twice where the original did not: Go refuses the file
(the name is redeclared), so the sketch's import was meant to replace the other one."""

from __future__ import annotations

import re
from collections import Counter

_SPEC = re.compile(r'^(?:([A-Za-z_]\w*|\.)\s+)?"([^"]+)"\s*(?://.*)?$')


def _imports(lines: list[str]) -> Counter[tuple[str, str]]:
    """The file's import specs (alias or "", path), counted; blank and dot imports left out."""
    specs: Counter[tuple[str, str]] = Counter()
    group = False
    for line in lines:
        text = line.strip()
        if group:
            if text.startswith(")"):
                group = False
                continue
        elif line.startswith("import"):
            text = text[len("import") :].strip()
            if text.startswith("("):
                group = True
                text = text[1:].strip()
                if not text:
                    continue
        else:
            continue
        match = _SPEC.match(text)
        if match and match.group(1) not in ("_", "."):
            specs[(match.group(1) or "", match.group(2))] += 1
    return specs


def _imported_twice(before: list[str], after: list[str]) -> str | None:
    """A package (by path and alias) the merged Go file imports twice, the original once."""
    old = _imports(before)
    for (alias, path), count in _imports(after).items():
        if count >= 2 and old[(alias, path)] < 2:
            return (
                f"the merged file imports {path!r} twice where the original imports it "
                f"{'once' if old[(alias, path)] else 'nowhere'}: Go refuses the file, so the "
                "new import was meant to replace the other"
            )
    return None
