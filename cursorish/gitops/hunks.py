"""Chunks: the unit of review. Parses `git diff` output into files and chunks with stable ids,
and rebuilds a git-apply-able patch for any single chunk.

A chunk is one change block: a run of added/removed lines with up to three context lines
around it. Git's hunk glues changes up to six lines apart into one; each git hunk is cut into
its blocks here (the `Hunk` type holds a chunk), so accepting or rejecting one never stages
or reverts its neighbour. A chunk's id is a hash of its path, its changed lines and the one
unchanged line on each side (not its line numbers), so it survives other chunks of the same
file being accepted or rejected first; a script can pass ids it printed earlier
(`cursorish review --accept ID`). Lines are kept as bytes for the patch (CRLF,
non-UTF-8 and "No newline at end of file" markers round-trip exactly) and as text for display.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from cursorish.gitops.runner import run_git

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
    body: bytes = field(default=b"", repr=False)  # git's hunks as printed (before chunking)

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def deleted(self) -> int:
        return sum(h.deleted for h in self.hunks)

    def patch(self, hunk: Hunk | None = None) -> bytes:
        """A patch for `git apply` with just `hunk` (or the whole file when None)."""
        if hunk is None:
            return self.header + self.body
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
    # Lines end at "\n" alone: splitlines() would also split at a lone "\r" inside a line of
    # the file and take its next character for the line's kind.
    lines = re.findall(rb"[^\n]*\n|[^\n]+$", chunk)
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
        hunks += _parse_hunk(path, lines[start:end], seen)
        start = end
    renamed_from = old_path if status in ("R", "C") else None
    body = b"".join(lines[first_hunk:])
    return FileDiff(path, renamed_from, status, binary, header, tuple(hunks), body)


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


@dataclass
class _Item:
    """One line of a git hunk while it is being cut into chunks."""

    line: DiffLine
    raw: bytes  # as git printed it, with a following "\\ No newline" line when there is one
    old_at: int  # the old-side line number this line starts at (or would, for "+")
    new_at: int


def _parse_hunk(path: str, lines: list[bytes], seen: dict[str, int]) -> list[Hunk]:
    """One git hunk cut into its chunks (see `_chunk`)."""
    head = lines[0]
    m = _HUNK_RE.match(head)
    if m is None:  # pragma: no cover - git always prints a well-formed header
        raise ValueError(f"not a hunk header: {head!r}")
    old_start, new_start = int(m.group(1)), int(m.group(3))
    old_count = int(m.group(2)) if m.group(2) is not None else 1
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    items: list[_Item] = []
    # A count of 0 puts the start on the line before (git's convention for "nothing here").
    old_no = old_start if old_count else old_start + 1
    new_no = new_start if new_count else new_start + 1
    for raw in lines[1:]:
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if body == NO_NEWLINE:
            if items:
                last = items[-1]
                last.line = replace(last.line, no_newline=True)
                last.raw += raw
            continue
        kind = chr(body[0]) if body else " "
        content = body[1:]
        if content.endswith(b"\r"):
            content = content[:-1]
        text = content.decode("utf-8", "surrogateescape")
        if kind == "+":
            line = DiffLine("+", text, None, new_no)
        elif kind == "-":
            line = DiffLine("-", text, old_no, None)
        else:
            kind = " "
            line = DiffLine(" ", text, old_no, new_no)
        items.append(_Item(line, raw, old_no, new_no))
        old_no += kind != "+"
        new_no += kind != "-"
    blocks = _blocks(items)
    if len(blocks) <= 1:  # already one chunk: keep git's own bytes and header
        s, e = blocks[0] if blocks else (0, 0)
        hunk_id = _chunk_id(path, items, s, e, seen)
        return [
            Hunk(
                id=hunk_id,
                path=path,
                header=_text(head.rstrip(b"\r\n")),
                old_start=old_start,
                old_count=old_count,
                new_start=new_start,
                new_count=new_count,
                lines=tuple(item.line for item in items),
                raw=b"".join(lines),
            )
        ]
    chunks = []
    funcname = head[m.end() :].rstrip(b"\r\n")
    for n, (s, e) in enumerate(blocks):
        lo = max(blocks[n - 1][1] if n else 0, s - CONTEXT)
        hi = min(blocks[n + 1][0] if n + 1 < len(blocks) else len(items), e + CONTEXT)
        chunks.append(_chunk(path, items, lo, hi, (s, e), funcname if n == 0 else b"", seen))
    return chunks


CONTEXT = 3  # lines of context around a chunk (what --unified=3 gives a lone change)


def _blocks(items: list[_Item]) -> list[tuple[int, int]]:
    """[start, end) of each run of added/removed lines."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(items):
        if items[i].line.kind == " ":
            i += 1
            continue
        j = i
        while j < len(items) and items[j].line.kind != " ":
            j += 1
        out.append((i, j))
        i = j
    return out


def _chunk(
    path: str,
    items: list[_Item],
    lo: int,
    hi: int,
    block: tuple[int, int],
    funcname: bytes,
    seen: dict[str, int],
) -> Hunk:
    """The chunk of `block` with the context lines items[lo:hi] around it, as a hunk of its
    own: header recomputed, bytes copied from git's (so CRLF and markers round-trip)."""
    part = items[lo:hi]
    old_count = sum(1 for it in part if it.line.kind != "+")
    new_count = sum(1 for it in part if it.line.kind != "-")
    old_start = part[0].old_at if old_count else part[0].old_at - 1
    new_start = part[0].new_at if new_count else part[0].new_at - 1
    head = b"@@ -%d,%d +%d,%d @@" % (old_start, old_count, new_start, new_count) + funcname
    return Hunk(
        id=_chunk_id(path, items, *block, seen),
        path=path,
        header=_text(head),
        old_start=old_start,
        old_count=old_count,
        new_start=new_start,
        new_count=new_count,
        lines=tuple(it.line for it in part),
        raw=head + b"\n" + b"".join(it.raw for it in part),
    )


def _chunk_id(path: str, items: list[_Item], s: int, e: int, seen: dict[str, int]) -> str:
    """A hash of the path, the changed lines and the one unchanged line on each side of them.
    Those neighbours are never part of another chunk, so deciding a chunk next to this one
    leaves its id alone (wider context would not: it can reach into the neighbour)."""
    digest = hashlib.sha1(os.fsencode(path) + b"\0", usedforsecurity=False)
    digest.update(items[s - 1].raw if s > 0 else b"^\n")
    for item in items[s:e]:
        digest.update(item.raw)
    digest.update(items[e].raw if e < len(items) else b"$\n")
    hunk_id = digest.hexdigest()[:8]
    count = seen.get(hunk_id, 0)
    seen[hunk_id] = count + 1
    if count:  # two identical chunks in one file: keep ids distinct
        hunk_id = hashlib.sha1(f"{hunk_id}:{count}".encode(), usedforsecurity=False).hexdigest()[:8]
    return hunk_id


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")
