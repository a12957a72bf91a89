"""Where the shipped data folders (`agents/`, `worktrees/`) are: in a wheel or a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """The shipped folder `name`: cursorish/_data/<name> in a wheel, <repo>/<name> in a checkout."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    return _PACKAGE.parent / name
