"""Containment: every path an agent names must stay inside its worktree and out of `.git`.

Refused: absolute paths, `..` that climbs out, symlinks (at any level) that resolve outside the
worktree, anything whose path has a `.git` component, NUL bytes, and empty paths; and every path
git itself refuses to track (`git_refusal`): written, such a file could never be committed, and
a commit of the whole worktree would fail on it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from cursorish.core.text import from_planner_name
from cursorish.errors import PathEscapeError


def resolve_in_worktree(root: Path, name: str, *, allow_root: bool = False) -> Path:
    """Return the real path of `name` inside `root`, or raise PathEscapeError saying why not."""
    if not isinstance(name, str) or name.strip() == "":
        raise PathEscapeError("empty path")
    if "\x00" in name:
        raise PathEscapeError(f"path contains a NUL byte: {name!r}")
    name = from_planner_name(name)  # `\xHH`: a byte of a name that is not UTF-8
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or (len(normalized) > 1 and normalized[1] == ":"):
        raise PathEscapeError(
            f"absolute paths are not allowed: {name!r} (use a path relative to the repository root)"
        )
    if normalized.startswith("~"):
        raise PathEscapeError(f"home-relative paths are not allowed: {name!r}")
    parts = PurePosixPath(normalized).parts
    if any(part == ".git" for part in parts):
        raise PathEscapeError(f"paths inside .git are not allowed: {name!r}")
    real_root = root.resolve()
    candidate = real_root.joinpath(*parts) if parts else real_root
    # resolve() follows every symlink that exists, including the final component.
    resolved = Path(os.path.realpath(candidate))
    if resolved != real_root and real_root not in resolved.parents:
        what = "a symlink that points" if _has_symlink(real_root, parts) else "a path that climbs"
        raise PathEscapeError(f"{name!r} is {what} outside the worktree")
    if resolved == real_root and not allow_root:
        raise PathEscapeError(f"{name!r} names the worktree itself, not a file")
    rel_parts = resolved.relative_to(real_root).parts
    if any(part == ".git" for part in rel_parts):
        raise PathEscapeError(f"{name!r} resolves into .git")
    refusal = git_refusal(rel_parts)
    if refusal:
        raise PathEscapeError(f"{name!r}: git refuses this path ({refusal}); choose another name")
    return resolved


# Code points HFS+ ignores in file names, so that ".g\u200cit" is ".git" on a Mac (git skips
# the same ones in is_hfs_dotgit).
_HFS_IGNORED = frozenset(
    [*range(0x200C, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)
# ".git" or its NTFS short name "git~1", then only dots and spaces (which NTFS drops), then the
# end or an alternate data stream (":..."): git's is_ntfs_dotgit.
_NTFS_DOTGIT = re.compile(r"(?i)(\.git|git~1)[. ]*(:.*)?")


def git_refusal(parts: tuple[str, ...] | list[str]) -> str:
    """Why git's `verify_path` (with core.protectNTFS and core.protectHFS on) would refuse the
    path made of `parts`, or "" when it would not. Such a path can never be committed: git
    says "invalid path" and a whole-worktree `git add` fails on it."""
    for part in parts:
        if part in ("", ".", ".."):
            return f"the component {part!r} is not allowed"
        if part.lower() == ".git":
            return f"{part!r} is git's own directory"
        for piece in part.split("\\"):  # NTFS also splits a name at a backslash
            if _NTFS_DOTGIT.fullmatch(piece):
                return f"{part!r} is .git on Windows (NTFS)"
        if "".join(c for c in part if ord(c) not in _HFS_IGNORED).lower() == ".git":
            return f"{part!r} is .git on macOS (HFS+)"
    return ""


def _has_symlink(root: Path, parts: tuple[str, ...]) -> bool:
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            return True
    return False


def relative_name(root: Path, path: Path) -> str:
    """The POSIX-style name of `path` relative to the worktree root."""
    return path.resolve().relative_to(root.resolve()).as_posix()
