"""Where the code index's content comes from: a tree of a commit, blobs from git's object
store (one `cat-file --batch` process), the checkout's files as git's index and the disk have
them, and how often each path changed lately."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_TEXT_BYTES = 1_000_000


@dataclass(frozen=True)
class Blob:
    """One file's content to index."""

    oid: str
    path: str  # a path it appears under (for its language)
    data: bytes


def blob_oid(data: bytes) -> str:
    """The git blob id of `data` (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_output(root: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "--no-optional-locks", *args],
        cwd=root,
        input=input,
        capture_output=True,
        check=True,
    ).stdout


def tree_files(repo: Path, rev: str) -> dict[str, str]:
    """path -> blob id of every regular file in the tree of `rev` (symlinks and submodules out)."""
    out: dict[str, str] = {}
    for entry in git_output(repo, "ls-tree", "-r", "-z", "--full-tree", rev).split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, oid = meta.split(b" ")
        if kind == b"blob" and mode in (b"100644", b"100755"):
            out[os.fsdecode(path)] = oid.decode()
    return out


def read_blobs(repo: Path, wanted: dict[str, str]) -> Iterator[Blob]:
    """The contents of blobs (oid -> a path) from git's object store, one `cat-file` process."""
    if not wanted:
        return
    oids = list(wanted)
    proc = subprocess.Popen(
        ["git", "--no-optional-locks", "cat-file", "--batch"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write("".join(f"{o}\n" for o in oids).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    out = proc.stdout
    for oid in oids:
        header = out.readline().split()
        if len(header) < 3:
            continue  # "<oid> missing"
        size = int(header[2])
        data = out.read(size)
        out.read(1)
        yield Blob(oid, wanted[oid], data)
    writer.join()
    proc.wait()


def change_counts(repo: Path, rev: str, commits: int = 500) -> dict[str, int]:
    """path -> how many of the last `commits` commits before `rev` changed it."""
    out: dict[str, int] = {}
    try:
        raw = git_output(
            repo, "log", "-n", str(commits), "--no-renames", "--name-only", "-z", "--format=", rev
        )
    except subprocess.CalledProcessError:
        return out
    for name in raw.replace(b"\n", b"\0").split(b"\0"):
        if name:
            path = os.fsdecode(name)
            out[path] = out.get(path, 0) + 1
    return out


def worktree_files(root: Path) -> tuple[dict[str, str], list[str]]:
    """(path -> blob id of what git's index holds, paths whose worktree copy differs or that
    are untracked-not-ignored). The second list must be hashed from disk."""
    index: dict[str, str] = {}
    for entry in git_output(root, "ls-files", "-s", "-z").split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, oid, _stage = meta.split(b" ")
        if mode in (b"100644", b"100755"):
            index[os.fsdecode(path)] = oid.decode()
    dirty = git_output(root, "ls-files", "-z", "-m", "-o", "-d", "--exclude-standard").split(b"\0")
    return index, sorted({os.fsdecode(p) for p in dirty if p})


def read_worktree_file(root: Path, path: str) -> bytes | None:
    """A file's bytes, never through a symlink; None when gone or not a regular file."""
    try:
        fd = os.open(root / path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_TEXT_BYTES * 4)
    finally:
        os.close(fd)
