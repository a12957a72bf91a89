"""`cursorish bench mcp` end to end with few calls, on the reference `mcp-server-time`."""

from __future__ import annotations

import json

import pytest

from cursorish.cli import main


def test_bench_mcp_times_the_server_bare_and_sandboxed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "mcp", "--calls", "3", "--repeat", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["calls"], result["repeat"]) == (3, 1)
    for mode in ("bare", "sandboxed"):
        figures = result[mode]
        assert figures["start_list_ms"] > 0 and figures["stop_ms"] >= 0
        assert 0 < figures["call_p50_ms"] <= figures["call_p95_ms"]
    assert result["ratio_start"] > 0 and result["ratio_call_p50"] > 0
