"""run_command: policy, output cap, timeout that kills the whole process group."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cursorish.core.command_runner import (
    DEFAULT_ALLOWLIST,
    CommandRefused,
    check_policy,
    run_in_worktree,
)
from tests.core.agent_helpers import gone_within


def test_allowlist_accepts_known_prefix() -> None:
    assert check_policy("pytest -q tests", "allowlist", DEFAULT_ALLOWLIST) == [
        "pytest",
        "-q",
        "tests",
    ]


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("rm -rf /", "not in the headless allowlist"),
        ("pytest; rm -rf /", "shell syntax"),
        ("pytest && curl x", "shell syntax"),
        ("cat $(whoami)", "shell syntax"),
        ("pytesty", "not in the headless allowlist"),
    ],
)
def test_allowlist_refuses(command: str, why: str) -> None:
    with pytest.raises(CommandRefused, match=why):
        check_policy(command, "allowlist", DEFAULT_ALLOWLIST)


def test_deny_policy_refuses_everything() -> None:
    with pytest.raises(CommandRefused, match="disabled"):
        check_policy("ls", "deny", DEFAULT_ALLOWLIST)


def test_exit_code_and_output(tmp_path: Path) -> None:
    result = run_in_worktree(["bash", "-c", "echo hi; exit 3"], tmp_path, timeout_s=10)
    assert (result.exit_code, result.output.strip()) == (3, "hi")


def test_output_is_capped(tmp_path: Path) -> None:
    result = run_in_worktree(
        ["python3", "-c", "print('x' * 500000)"], tmp_path, timeout_s=20, output_cap=1000
    )
    assert "output truncated" in result.output
    assert len(result.output) < 1200


def test_timeout_kills_grandchildren(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    script = f"sleep 60 & echo $! > {pidfile}; wait"
    started = time.monotonic()
    result = run_in_worktree(["bash", "-c", script], tmp_path, timeout_s=1.0)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - started < 10
    grandchild = int(pidfile.read_text())
    assert gone_within(grandchild), "the grandchild sleep survived the timeout"


def test_missing_program_is_reported(tmp_path: Path) -> None:
    result = run_in_worktree(["no-such-program-xyz"], tmp_path, timeout_s=5)
    assert result.exit_code == 127 and "command not found" in result.output
