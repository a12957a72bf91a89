"""`cursorish bench sandbox` runs end to end (tiny sizes; the figures are the README's)."""

from __future__ import annotations

import json

import pytest

from cursorish.cli import main


def test_bench_sandbox_prints_both_sides_of_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "sandbox", "--repeat", "2", "--tests", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    names = [row["command"] for row in result["rows"]]
    assert names == ["true", "python -c pass", "pytest (3 tests)"]
    for row in result["rows"]:
        assert row["bare_ms"] > 0 and row["sandbox_ms"] > 0 and row["ratio"] > 0
    assert result["pids_limit"]


def test_bench_sandbox_rejects_silly_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "sandbox", "--tests", "0"]) == 2
    assert "--tests" in capsys.readouterr().err
