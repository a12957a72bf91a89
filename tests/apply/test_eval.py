"""The deterministic engine on the shared eval set (about 2 s)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cursorish.apply_cli import cmd_eval_apply

CASES = Path("/work/shared/eval/apply-dev.jsonl")
pytestmark = pytest.mark.skipif(not CASES.exists(), reason="the shared eval set is not here")


def summary(capsys: pytest.CaptureFixture[str]) -> dict[str, float]:
    cmd_eval_apply(argparse.Namespace(cases=str(CASES), engine="deterministic", json=True))
    result: dict[str, float] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return result


def test_eval_does_not_regress(capsys: pytest.CaptureFixture[str]) -> None:
    result = summary(capsys)
    # The engine's level: 178 of 195 exact, 0 wrong (179 before issue 13's edge rule made a
    # sketch that stops five lines short of the file's end without a marker a refusal; 177
    # since issue 17's stale-import check: one case keeps `import math` after its last use
    # went, which the check refuses as unsaid, the price of four wrong merges on held-out code;
    # 176 since the blank-less sketch check: one sketch without blank lines joins two pairs of
    # lines the original spaces apart, the price of about 70 wrong merges on blank-less
    # held-out sketches; 177 again since issue 17's fifth round wrote a new look-alike
    # definition whole beside the one the sketch never mentions; 178 since the ninth round's
    # rule for new lines ending with a blank line before their marker). The target is 90%.
    assert result["exact_rate"] >= 0.90
    assert result["exact"] >= 178
    assert result["wrong"] == 0


def test_eval_meets_the_targets(capsys: pytest.CaptureFixture[str]) -> None:
    result = summary(capsys)
    assert result["exact_rate"] >= 0.90
    assert result["wrong_rate"] <= 0.01


WIDE = CASES.with_name("apply-dev-wide.jsonl")


@pytest.mark.skipif(not WIDE.exists(), reason="the wide eval set is not here")
def test_wide_eval_does_not_regress(capsys: pytest.CaptureFixture[str]) -> None:
    cmd_eval_apply(argparse.Namespace(cases=str(WIDE), engine="deterministic", json=True))
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # 361 of 420 exact, 3 wrong when last measured (318 and 10 before issue 17's rounds, 340
    # and 8 before its third, 348 and 6 before its fourth, 353 and 4 before its fifth, 356 and 3
    # before its seventh, 358 and 3 before its eighth, 361 and 3 before its ninth; the issue's
    # >= 90% exact is not met).
    assert result["exact"] >= 363
    assert result["wrong"] <= 3
