"""`cursorish bench spec`: the JSON summary, on the tiny model (fast) and the 0.5b one (slow)."""

from __future__ import annotations

import argparse
import json
from difflib import SequenceMatcher

import pytest

from cursorish.bench.spec import cmd_bench_spec, perturb


def test_perturbation_changes_a_modest_share_of_tokens() -> None:
    tokens = list(range(1000, 1400))
    for seed in range(20):
        changed = perturb(tokens, seed, list(range(10)))
        assert changed != tokens
        blocks = SequenceMatcher(None, tokens, changed, autojunk=False).get_matching_blocks()
        kept = sum(block.size for block in blocks)
        assert kept >= 0.8 * len(tokens)
        assert (len(tokens) - kept) + (len(changed) - kept) <= 0.35 * len(tokens)


def _bench(capsys: pytest.CaptureFixture[str], **kwargs: object) -> dict[str, object]:
    args = argparse.Namespace(model=None, json=True, max_tokens=None, **kwargs)
    code = cmd_bench_spec(args)
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert code == (0 if summary["identical"] else 1)
    return dict(summary)


def test_bench_on_the_tiny_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path_factory
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    summary = _bench(capsys, synthetic="tiny", cases=2)
    assert summary["identical"] is True
    assert summary["output_tokens"] == 600
    assert float(summary["calls_per_token"]) <= 0.25  # type: ignore[arg-type]
    for key in ("vanilla_tok_s", "spec_tok_s", "speedup"):
        assert float(summary[key]) > 0  # type: ignore[arg-type]


@pytest.mark.slow
def test_bench_targets_on_the_realistic_model(capsys: pytest.CaptureFixture[str]) -> None:
    summary = _bench(capsys, synthetic="0.5b", cases=8)
    assert summary["identical"] is True
    assert float(summary["calls_per_token"]) <= 0.25  # type: ignore[arg-type]
    assert float(summary["speedup"]) >= 2.5  # type: ignore[arg-type]
