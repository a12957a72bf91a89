"""`cursorish bench context` end to end at a tiny size (the figures are the README's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursorish.bench.context import TARGETS
from cursorish.cli import main


def test_bench_context_measures_the_generated_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "context", "--files", "30", "--queries", "5", "--json"]
    # A bundle that does not exist is skipped: only the generated repository is measured.
    assert main([*argv, "--bundle", str(tmp_path / "missing.bundle")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["targets"] == TARGETS
    (figures,) = result["results"].values()
    assert list(result["results"]) == ["generated-30"]
    assert figures["files"] >= 30
    for key in (*TARGETS, "resync_ms"):
        assert figures[key] >= 0
    assert figures["reindex_ms"] > 0 and figures["query_p95_ms"] > 0
