from __future__ import annotations

import os

import pytest

from cursorish.apply.textio import (
    decode_source,
    encode_source,
    is_binary,
    newline_of,
    split_lines,
    write_atomic,
)
from cursorish.errors import CursorishError, ExitCode


def test_non_utf8_bytes_round_trip() -> None:
    data = b"caf\xe9 = 1\n\xff\xfe\n"
    assert encode_source(decode_source(data)) == data


def test_binary_is_refused_with_exit_code_3() -> None:
    assert is_binary(b"abc\x00def")
    with pytest.raises(CursorishError) as info:
        decode_source(b"\x00\x01")
    assert info.value.exit_code == ExitCode.APPLY_REFUSED


def test_split_lines_keeps_each_ending_and_form_feeds() -> None:
    lines, endings = split_lines("a\r\nb\x0cc\nlast")
    assert lines == ["a", "b\x0cc", "last"]
    assert endings == ["\r\n", "\n", ""]


def test_newline_style() -> None:
    assert newline_of("a\r\nb\r\nc\n") == "\r\n"
    assert newline_of("a\nb") == "\n"


def test_write_atomic_replaces_and_keeps_mode(tmp_path) -> None:
    target = tmp_path / "f.py"
    target.write_bytes(b"old")
    os.chmod(target, 0o750)
    write_atomic(str(target), b"new")
    assert target.read_bytes() == b"new"
    assert os.stat(target).st_mode & 0o777 == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["f.py"]


def test_write_atomic_gives_a_new_file_the_usual_mode(tmp_path) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    target = tmp_path / "new.py"
    write_atomic(target, b"x = 1\n")
    assert target.read_bytes() == b"x = 1\n"
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["new.py"]  # no temp file left behind
