"""Hunks: the unit of review. Parses `git diff` output into files and hunks with stable ids,
and rebuilds a git-apply-able patch for any single hunk.

A hunk's id is a hash of its path and its lines (not its line numbers), so it survives other
hunks of the same file being accepted or rejected first; a script can pass ids it printed
earlier (`cursorish review --accept ID`). Lines are kept as bytes for the patch (CRLF,
non-UTF-8 and "No newline at end of file" markers round-trip exactly) and as text for display.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from cursorish.gitops._git import run_git

_HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = b"\\ No newline at end of file"

# Fixed diff options, whatever the user's git config says (colour, prefixes, renames...).
DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--find-renames",
    "--unified=3",
    "--inter-hunk-context=0",
)


@dataclass(frozen=True)
class DiffLine:
    kind: str  # " " context, "+" added, "-" removed
    text: str  # without the line break (a trailing "\r" of a CRLF line is dropped too)
    old_no: int | None  # line number in the old file (None for "+")
    new_no: int | None  # line number in the new file (None for "-")
    no_newline: bool = False  # git printed "\ No newline at end of file" after it


@dataclass(frozen=True)
class Hunk:
    id: str  # 8 hex digits, stable across line-number shifts (see module docstring)
    path: str
    header: str  # the "@@ -a,b +c,d @@ context" line
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]
    raw: bytes = field(repr=False)  # the hunk exactly as git printed it, header included

    @property
    def added(self) -> int:
        return count_lines(self.lines, "+")

    @property
    def deleted(self) -> int:
        return count_lines(self.lines, "-")


def count_lines(lines: tuple[DiffLine, ...], kind: str) -> int:
    """How many of `lines` are of `kind` ("+" added, "-" removed, " " context)."""
    return sum(1 for line in lines if line.kind == kind)


@dataclass(frozen=True)
class FileDiff:
    path: str  # the new path (for a deletion: the old one)
    old_path: str | None  # set for renames and copies
    status: str  # A added, M modified, D deleted, R renamed, C copied, T type change
    binary: bool
    header: bytes = field(repr=False)  # "diff --git ..." up to the first "@@", as printed
    hunks: tuple[Hunk, ...] = ()

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def deleted(self) -> int:
        return sum(h.deleted for h in self.hunks)

    def patch(self, hunk: Hunk | None = None) -> bytes:
        """A patch for `git apply` with just `hunk` (or the whole file when None)."""
        if hunk is None:
            return self.header + b"".join(h.raw for h in self.hunks)
        return self.header + hunk.raw


def diff_files(cwd: Path, *spec: str, paths: tuple[str, ...] = ()) -> list[FileDiff]:
    """`git diff <spec>` in `cwd` parsed into FileDiffs, e.g. `diff_files(wt)` (index vs
    worktree), `diff_files(wt, "--cached", base)` (base vs index)."""
    _, out, _ = run_git(Path(cwd), "diff", *DIFF_OPTIONS, *spec, "--", *paths)
    return parse_diff(out)


def parse_diff(data: bytes) -> list[FileDiff]:
    """Parse the output of `git diff` run with DIFF_OPTIONS."""
    files: list[FileDiff] = []
    chunks = re.split(rb"(?m)^(?=diff --git )", data)
    for chunk in chunks:
        if chunk.startswith(b"diff --git "):
            files.append(_parse_file(chunk))
    return files


def _parse_file(chunk: bytes) -> FileDiff:
    lines = chunk.splitlines(keepends=True)
    first_hunk = next((i for i, ln in enumerate(lines) if ln.startswith(b"@@ ")), len(lines))
    header_lines = lines[:first_hunk]
    header = b"".join(header_lines)
    old_path, new_path, status, binary = _read_header(header_lines)
    path = new_path if new_path is not None else (old_path or "")
    hunks: list[Hunk] = []
    seen: dict[str, int] = {}
    start = first_hunk
    while start < len(lines):
        end = start + 1
        while end < len(lines) and not lines[end].startswith(b"@@ "):
            end += 1
        hunk = _parse_hunk(path, lines[start:end], seen)
        hunks.append(hunk)
        start = end
    renamed_from = old_path if status in ("R", "C") else None
    return FileDiff(path, renamed_from, status, binary, header, tuple(hunks))


def _unquote(name: bytes) -> str:
    """A path from a diff header: strip the a/ b/ prefix and git's C-style quoting."""
    if name.startswith(b'"') and name.endswith(b'"'):
        body = name[1:-1]
        out = bytearray()
        i = 0
        escapes = {b"n": 10, b"t": 9, b'"': 34, b"\\": 92, b"a": 7, b"b": 8, b"f": 12, b"v": 11}
        while i < len(body):
            c = body[i : i + 1]
            if c == b"\\" and i + 1 < len(body):
                nxt = body[i + 1 : i + 2]
                if nxt.isdigit():
                    out.append(int(body[i + 1 : i + 4], 8))
                    i += 4
                    continue
                out.append(escapes.get(nxt, nxt[0]))
                i += 2
                continue
            out += c
            i += 1
        name = bytes(out)
    if name.startswith((b"a/", b"b/")):
        name = name[2:]
    return os.fsdecode(name)


def _read_header(lines: list[bytes]) -> tuple[str | None, str | None, str, bool]:
    old_path: str | None = None
    new_path: str | None = None
    status = "M"
    binary = False
    for raw in lines:
        line = raw.rstrip(b"\n")
        if line.startswith((b"--- ", b"+++ ")) and line.endswith(b"\t"):
            line = line[:-1]  # git ends the name with a tab when it contains a space
        if line.startswith(b"--- "):
            name = line[4:]
            old_path = None if name == b"/dev/null" else _unquote(name)
        elif line.startswith(b"+++ "):
            name = line[4:]
            new_path = None if name == b"/dev/null" else _unquote(name)
        elif line.startswith(b"new file mode"):
            status = "A"
        elif line.startswith(b"deleted file mode"):
            status = "D"
        elif line.startswith(b"rename from "):
            status, old_path = "R", os.fsdecode(_unquote_plain(line[12:]))
        elif line.startswith(b"rename to "):
            new_path = os.fsdecode(_unquote_plain(line[10:]))
        elif line.startswith(b"copy from "):
            status, old_path = "C", os.fsdecode(_unquote_plain(line[10:]))
        elif line.startswith(b"copy to "):
            new_path = os.fsdecode(_unquote_plain(line[8:]))
        elif line.startswith(b"old mode") and status == "M":
            status = "T"
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
            binary = True
    if (old_path is None or new_path is None) and lines:
        # No ---/+++ lines (binary, mode-only or pure rename): take the "diff --git" line.
        first = lines[0].rstrip(b"\n")[len(b"diff --git ") :]
        a, _, b = _split_git_line(first)
        if status != "A" and old_path is None:
            old_path = a
        if status != "D" and new_path is None:
            new_path = b
    return old_path, new_path, status, binary


def _unquote_plain(name: bytes) -> bytes:
    return os.fsencode(_unquote(name)) if name.startswith(b'"') else name


def _split_git_line(rest: bytes) -> tuple[str, str, str]:
    if rest.startswith(b'"'):
        end = rest.index(b'"', 1)
        while rest[end - 1 : end] == b"\\":
            end = rest.index(b'"', end + 1)
        return _unquote(rest[: end + 1]), "", _unquote(rest[end + 2 :])
    # Unquoted "a/x b/x": both halves are the same length when the path did not change.
    half = (len(rest) - 1) // 2
    if rest[half : half + 3] == b" b/":
        return _unquote(rest[:half]), "", _unquote(rest[half + 1 :])
    a, _, b = rest.partition(b" b/")
    return _unquote(a), "", _unquote(b"b/" + b)


def _parse_hunk(path: str, lines: list[bytes], seen: dict[str, int]) -> Hunk:
    head = lines[0]
    m = _HUNK_RE.match(head)
    if m is None:  # pragma: no cover - git always prints a well-formed header
        raise ValueError(f"not a hunk header: {head!r}")
    old_start, new_start = int(m.group(1)), int(m.group(3))
    old_count = int(m.group(2)) if m.group(2) is not None else 1
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    parsed: list[DiffLine] = []
    old_no, new_no = old_start, new_start
    digest = hashlib.sha1(os.fsencode(path) + b"\0", usedforsecurity=False)
    for raw in lines[1:]:
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if body == NO_NEWLINE:
            if parsed:
                parsed[-1] = DiffLine(
                    parsed[-1].kind, parsed[-1].text, parsed[-1].old_no, parsed[-1].new_no, True
                )
            digest.update(b"\\\n")
            continue
        kind = chr(body[0]) if body else " "
        content = body[1:]
        if content.endswith(b"\r"):
            content = content[:-1]
        text = content.decode("utf-8", "surrogateescape")
        if kind == "+":
            parsed.append(DiffLine("+", text, None, new_no))
            new_no += 1
        elif kind == "-":
            parsed.append(DiffLine("-", text, old_no, None))
            old_no += 1
        else:
            parsed.append(DiffLine(" ", text, old_no, new_no))
            old_no += 1
            new_no += 1
        digest.update(body + b"\n")
    hunk_id = digest.hexdigest()[:8]
    count = seen.get(hunk_id, 0)
    seen[hunk_id] = count + 1
    if count:  # two identical hunks in one file: keep ids distinct and still stable
        hunk_id = hashlib.sha1(f"{hunk_id}:{count}".encode(), usedforsecurity=False).hexdigest()[:8]
    return Hunk(
        id=hunk_id,
        path=path,
        header=head.rstrip(b"\r\n").decode("utf-8", "surrogateescape"),
        old_start=old_start,
        old_count=old_count,
        new_start=new_start,
        new_count=new_count,
        lines=tuple(parsed),
        raw=b"".join(lines),
    )
