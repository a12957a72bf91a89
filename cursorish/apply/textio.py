"""Bytes ↔ text for source files: surrogateescape decoding, binary detection, atomic writes.

Text is decoded as UTF-8 with `surrogateescape`, so bytes that are not UTF-8 survive a round
trip unchanged wherever the merge leaves them untouched.
"""

from __future__ import annotations

import os
import tempfile

from cursorish.errors import CursorishError, ExitCode

ENCODING = "utf-8"
ERRORS = "surrogateescape"
_BOM = b"\xef\xbb\xbf"


def is_binary(data: bytes) -> bool:
    """True when `data` looks like a binary file (a NUL byte in its first 8 KiB)."""
    return b"\x00" in data[:8192]


def decode_source(data: bytes) -> str:
    """Decode a source file's bytes; binary data raises `CursorishError` (exit code 3)."""
    if is_binary(data):
        raise CursorishError("the file is binary (it contains NUL bytes)", ExitCode.APPLY_REFUSED)
    return data.decode(ENCODING, ERRORS)


def encode_source(text: str) -> bytes:
    """The inverse of `decode_source`: escaped bytes come back as they were."""
    return text.encode(ENCODING, ERRORS)


def newline_of(text: str) -> str:
    """The file's dominant line ending ("\\r\\n" or "\\n"); "\\n" for a file without one."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    return "\r\n" if crlf > lf else "\n"


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """Lines without their endings, and each line's own ending ("" for a last unterminated line).

    Only "\n" and "\r\n" end a line: form feeds and other Unicode separators stay inside it.
    """
    lines = text.split("\n")
    tail = lines.pop()  # after the last "\n": "" when the text ends with one
    endings = ["\n"] * len(lines)
    if "\r" in text:
        for index, line in enumerate(lines):
            if line.endswith("\r"):
                lines[index] = line[:-1]
                endings[index] = "\r\n"
    if tail:
        lines.append(tail)
        endings.append("")
    return lines, endings


def sketch_lines(text: str) -> list[str]:
    """A sketch's lines without endings (a planner may send CRLF or stray CRs)."""
    return [line.rstrip("\r") for line in text.replace("\r\n", "\n").split("\n")]


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, and rename: readers see
    the old file or the new one, never half of it. An existing file keeps its mode; a new one
    gets the usual mode for new files (0o666 less the umask), not mkstemp's 0o600."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".cursorish-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read_umask() -> int:
    # os.umask can only be read by setting it, and it is process-wide: read it once, at import
    # (single-threaded), not while agents write files from worker threads.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
