"""`cursorish bench agents`: the code path with tiny numbers (fast) and the real targets (slow)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cursorish.bench.agents import cmd_bench_agents, run_bench
from cursorish.errors import CursorishError


def test_bench_code_path_with_tiny_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    ns = argparse.Namespace(agents="1,2", files=20, latency=0.0, repeat=1, json=True, dir=None)
    assert cmd_bench_agents(ns) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["event"] == "summary" and summary["files"] == 20
    assert [r["agents"] for r in summary["runs"]] == [1, 2]
    assert all(r["statuses"] == ["done"] for r in summary["runs"])
    assert all(r["cpu_s"] > 0 for r in summary["runs"])
    assert summary["ratio_8_to_1"] is None  # no 8-agent run asked for
    assert summary["worktree_vs_bare"] > 0 and summary["bare_worktree_add_s"] > 0
    assert set(summary["bare_checkouts_at_once_s"]) == {"1", "2"}


def test_one_agent_only_times_one_bare_checkout_in_the_chosen_dir(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ns = argparse.Namespace(agents="1", files=20, latency=0.0, repeat=1, json=True, dir=tmp_path)
    assert cmd_bench_agents(ns) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert list(summary["bare_checkouts_at_once_s"]) == ["1"]
    assert summary["dir"] == str(tmp_path)
    assert list(tmp_path.iterdir()) == []  # everything it made is removed


def test_a_dir_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    ns = argparse.Namespace(
        agents="1", files=20, latency=0.0, repeat=1, json=True, dir=tmp_path / "none"
    )
    with pytest.raises(CursorishError, match="not a writable directory"):
        cmd_bench_agents(ns)


def test_bad_counts_are_usage_errors() -> None:
    ns = argparse.Namespace(agents="1,x", files=20, latency=0.0, repeat=1, json=True, dir=None)
    with pytest.raises(CursorishError, match="1,4,8"):
        cmd_bench_agents(ns)


def test_bad_repeat_is_a_usage_error() -> None:
    ns = argparse.Namespace(agents="1", files=20, latency=0.0, repeat=0, json=True, dir=None)
    with pytest.raises(CursorishError, match="--repeat"):
        cmd_bench_agents(ns)


@pytest.mark.slow
def test_eight_agents_run_in_parallel_and_worktrees_are_cheap() -> None:
    result = run_bench([1, 8], files=5000, latency=0.2)
    assert all(r["statuses"] == ["done"] for r in result["runs"])
    assert result["ratio_8_to_1"] <= 1.5
    assert result["worktree_vs_bare"] <= 1.5
