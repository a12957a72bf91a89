"""`cursorish bench apply`: the JSON summary at small sizes (fast), the 2,500-line target (slow)."""

from __future__ import annotations

import argparse
import ast
import json

import pytest

from cursorish.bench.apply import cmd_bench_apply, generate_file


def test_bench_apply_json(capsys) -> None:
    assert cmd_bench_apply(argparse.Namespace(json=True, repeat=2, sizes=[100, 500])) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [row["lines"] for row in summary["sizes"]] == [100, 500]
    assert all(row["merged"] for row in summary["sizes"])
    assert all(0 < row["cpu_median_ms"] <= 10 * row["median_ms"] for row in summary["sizes"])


@pytest.mark.parametrize("lines", [100, 500, 2500])
def test_the_generated_file_is_whole_python_of_the_asked_length(lines: int) -> None:
    text = generate_file(lines)
    assert text.count("\n") == lines
    ast.parse(text)  # a file cut inside a block would bench the syntax check's rare slow path


@pytest.mark.slow
def test_bench_2500_lines_p95_under_20ms(capsys) -> None:
    assert cmd_bench_apply(argparse.Namespace(json=True, repeat=30, sizes=[2500])) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["sizes"][0]["p95_ms"] <= 20
