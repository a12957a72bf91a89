"""Text search over an agent's worktree: the files git would track, a regex, capped output."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 2_000_000


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str


def is_probably_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def grep(
    root: Path,
    files: list[str],
    pattern: str,
    *,
    regex: bool = True,
    ignore_case: bool = False,
    max_matches: int = 200,
) -> tuple[list[Match], bool]:
    """Search `files` (relative names under root); returns matches and whether it was cut off."""
    flags = re.IGNORECASE if ignore_case else 0
    compiled = re.compile(pattern if regex else re.escape(pattern), flags)
    out: list[Match] = []
    for name in files:
        path = root / name
        try:
            if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if is_probably_binary(data):
            continue
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if compiled.search(line):
                out.append(Match(name, number, line.rstrip()[:300]))
                if len(out) >= max_matches:
                    return out, True
    return out, False
