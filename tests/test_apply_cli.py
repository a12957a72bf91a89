from __future__ import annotations

import argparse
import io
import json
import os
import sys

import pytest

from cursorish.apply_cli import cmd_apply, cmd_eval_apply

ORIGINAL = b"def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2\r\n"
SKETCH = b"# ... existing code ...\ndef g():\n    return 3\n"


def apply_args(tmp_path, **extra) -> argparse.Namespace:
    original = tmp_path / "m.py"
    sketch = tmp_path / "sketch.txt"
    if not original.exists():
        original.write_bytes(ORIGINAL)
    if not sketch.exists():
        sketch.write_bytes(SKETCH)
    values = {
        "original": str(original),
        "sketch": str(sketch),
        "path": None,
        "engine": "deterministic",
        "output": None,
    }
    values.update(extra)
    return argparse.Namespace(**values)


def test_apply_prints_merged_bytes_with_crlf(tmp_path, capfdbinary) -> None:
    assert cmd_apply(apply_args(tmp_path)) == 0
    assert capfdbinary.readouterr().out == ORIGINAL.replace(b"return 2", b"return 3")


def test_apply_writes_atomically_with_o(tmp_path) -> None:
    out = tmp_path / "out.py"
    assert cmd_apply(apply_args(tmp_path, output=str(out))) == 0
    assert out.read_bytes() == ORIGINAL.replace(b"return 2", b"return 3")
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_apply_reads_the_sketch_from_stdin(tmp_path, monkeypatch, capfdbinary) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SKETCH)))
    assert cmd_apply(apply_args(tmp_path, sketch="-")) == 0
    assert b"return 3" in capfdbinary.readouterr().out


def test_apply_refusal_exits_3_with_reason(tmp_path, capsys) -> None:
    (tmp_path / "sketch.txt").write_bytes(b"<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE\n")
    assert cmd_apply(apply_args(tmp_path)) == 3
    assert "does not occur" in capsys.readouterr().err


def test_apply_binary_original_exits_3(tmp_path, capsys) -> None:
    (tmp_path / "m.py").write_bytes(b"\x00\x01\x02")
    assert cmd_apply(apply_args(tmp_path)) == 3
    assert "binary" in capsys.readouterr().err


def test_apply_missing_file_exits_2(tmp_path, capsys) -> None:
    assert cmd_apply(apply_args(tmp_path, original=str(tmp_path / "nope.py"))) == 2
    assert "does not exist" in capsys.readouterr().err


def test_eval_apply_json_summary_is_the_last_line(tmp_path, capsys) -> None:
    cases = tmp_path / "cases.jsonl"
    good = {
        "id": "a",
        "path": "m.py",
        "original": "x = 1\ny = 2\n",
        "sketch": "# ...\ny = 3\n",
        "expected": "x = 1\ny = 3\n",
    }
    bad = {"id": "b", "path": "m.py", "original": "x = 1\n", "sketch": "", "expected": "x = 2\n"}
    cases.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    assert (
        cmd_eval_apply(argparse.Namespace(cases=str(cases), engine="deterministic", json=True)) == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert {
        "cases",
        "exact",
        "refused",
        "wrong",
        "exact_rate",
        "wrong_rate",
        "p50_ms",
        "p95_ms",
    } <= summary.keys()
    assert (summary["cases"], summary["exact"], summary["refused"], summary["wrong"]) == (
        2,
        1,
        1,
        0,
    )
    assert [json.loads(x)["outcome"] for x in lines[:-1]] == ["exact", "refused"]


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read"), ('{"id": "x"}\n', "case lacks"), ("not json\n", "not a JSONL")],
)
def test_eval_apply_bad_case_file_is_a_clear_error(tmp_path, capsys, content, message) -> None:
    from cursorish.cli import main

    cases = tmp_path / "cases.jsonl"
    if content is not None:
        cases.write_text(content)
    assert main(["eval", "apply", str(cases)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_apply_model_flag_configures_the_router(tmp_path, monkeypatch) -> None:
    from cursorish.apply import router

    seen: dict[str, object] = {}
    monkeypatch.setattr(router, "configure", lambda **kw: seen.update(kw))
    original, sketch = tmp_path / "a.py", tmp_path / "s.py"
    original.write_text("x = 1\n")
    sketch.write_text("x = 2\n")
    cmd_apply(
        argparse.Namespace(
            original=str(original),
            sketch=str(sketch),
            path=None,
            engine="auto",  # a forced deterministic engine configures no model
            output=str(tmp_path / "out.py"),
            apply_model="/models/m.gguf",
        )
    )
    assert seen["model_path"] == "/models/m.gguf"
