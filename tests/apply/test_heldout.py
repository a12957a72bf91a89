"""The deterministic engine on held-out real commits (black, flask, gin, mini-redis, zustand)
with sketches in planner shapes the shared eval does not use (see `heldout.py`).

The thresholds are today's level with a little room: they catch a regression, they are not the
issue's targets (the README's table says where the engine stands against those)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply_cli import normalise
from tests.apply.heldout import (
    CONTEXT_STYLES,
    DATA,
    ELEVENTH_ROUND_STUDIED,
    FOURTH_ROUND_STUDIED,
    LANGUAGE_SETS,
    MORE_SEEN,
    STYLES,
    TWELFTH_ROUND_STUDIED,
    UNSEEN,
    UNSEEN_2,
    UNSEEN_3,
    UNSEEN_4,
    UNSEEN_5,
    UNSEEN_6,
    UNSEEN_7,
    UNSEEN_8,
    UNSEEN_9,
    UNSEEN_10,
    WINDOW_STYLES,
    cases,
    pairs,
    sketch,
)

pytestmark = pytest.mark.skipif(not DATA.exists(), reason="held-out pairs not present")


def outcomes(path: Path = DATA, styles: tuple[str, ...] = STYLES) -> Counter[str]:
    counts: Counter[str] = Counter()
    for case in cases(path=path, styles=styles):
        outcome = merge(case["original"], case["sketch"], path=case["path"])
        if not isinstance(outcome, Merged):
            counts["refused"] += 1
        elif normalise(outcome.text) == normalise(case["expected"]):
            counts["exact"] += 1
        else:
            counts["wrong"] += 1
    return counts


def test_heldout_level_does_not_regress() -> None:
    counts = outcomes()
    total = sum(counts.values())
    assert total > 500
    # 521 exact and 3 wrong of 650 when last measured (467 and 31 before issue 17's rounds,
    # 481 and 24 before its third, 494 and 11 before its fourth, 500 and 5 before its fifth,
    # 513 and 4 before its sixth, 515 and 3 before its seventh, 516 and 3 before its eighth,
    # 518 and 3 before its tenth).
    assert counts["exact"] / total >= 0.801
    assert counts["wrong"] / total <= 0.0047


@pytest.mark.skipif(not UNSEEN.exists(), reason="the second held-out set is not here")
def test_unseen_projects_level_does_not_regress() -> None:
    # Commits of starlette, echo, jotai and fd (studied in issue 17's third round).
    counts = outcomes(UNSEEN)
    total = sum(counts.values())
    assert total > 400
    # 411 exact and 2 wrong of 495 when last measured (375 and 26 before issue 17's rounds,
    # 404 and 4 before its seventh, 407 and 3 before its eighth, 408 and 2 before its ninth,
    # 410 and 2 before its tenth).
    assert counts["exact"] / total >= 0.830
    assert counts["wrong"] / total <= 0.0041


def test_context_style_level_does_not_regress() -> None:
    # The shared eval's sketch shape written by our own generator, on the held-out commits.
    counts = outcomes(styles=CONTEXT_STYLES)
    total = sum(counts.values())
    assert total > 150
    # 144 exact and 0 wrong of 160 when last measured (137 and 2 at the third round's start).
    assert counts["exact"] / total >= 0.899
    assert counts["wrong"] == 0


@pytest.mark.skipif(not MORE_SEEN.exists(), reason="the fifth held-out set is not here")
def test_werkzeug_pflag_hono_serde_level_does_not_regress() -> None:
    counts = outcomes(MORE_SEEN)
    total = sum(counts.values())
    assert total > 500
    # 434 exact and 1 wrong of 555 when last measured (406 and 15 when the set came in, 430
    # and 1 before the ninth round, 432 and 1 before the tenth).
    assert counts["exact"] / total >= 0.781
    assert counts["wrong"] / total <= 0.002


@pytest.mark.skipif(not UNSEEN_3.exists(), reason="the fourth held-out set is not here")
def test_last_unseen_projects_level_does_not_regress() -> None:
    # Commits of click, gorilla/mux, valtio and bytes: built after the tuning, only measured.
    counts = outcomes(UNSEEN_3)
    total = sum(counts.values())
    assert total > 550
    # 472 exact and 15 wrong of 639 when last measured (458 and 39 before the third round,
    # 470 and 17 before the sixth, whose blank-less doubt turned 2 exact into refusals, 469
    # and 15 before the ninth, 470 and 15 before the tenth).
    assert counts["exact"] / total >= 0.738
    assert counts["wrong"] / total <= 0.0235


def test_every_style_writes_sketches_with_markers_the_engine_reads() -> None:
    from cursorish.apply.languages import detect_language
    from cursorish.apply.markers import is_marker

    seen: Counter[str] = Counter()
    for pair in pairs()[:40]:
        lang = detect_language(pair["path"])
        for style in STYLES:
            text = sketch(pair, style, 0)
            if text is None:
                continue
            seen[style] += 1
            lines = text.splitlines()
            assert any(line.strip() for line in lines)
            if style != "loose":
                assert any(is_marker(line, lang) for line in lines), (style, text)
    assert all(seen[style] for style in STYLES if style != "nested"), seen


def test_window_sketches_show_wider_context_and_read_as_markers() -> None:
    from cursorish.apply.languages import detect_language
    from cursorish.apply.markers import is_marker

    written = 0
    for pair in pairs()[:40]:
        text = sketch(pair, "window", 0)
        assert text is not None
        lines = text.splitlines()
        lang = detect_language(pair["path"])
        code = [line for line in lines if not is_marker(line, lang)]
        # Every sketch line is the commit's own or a marker: the wordings all read as markers.
        expected = set(pair["expected"].split("\n"))
        assert all(line in expected for line in code), text
        assert len(code) >= 4
        written += 1
    assert written == 40


# The `window` style: floors where the engine was never tuned on that generator, at the level
# when last measured (the ninth round; unseen-2, -3 and -4 gave 93/10/0, 141/15/0 and 134/17/0;
# held-out 154 and unseen-7 169 when the style came in).
WINDOW_FLOORS = {
    DATA: (156, 0),
    UNSEEN_6: (188, 3),
    UNSEEN_7: (174, 1),
    UNSEEN_8: (188, 3),
    UNSEEN_9: (184, 0),
    ELEVENTH_ROUND_STUDIED: (191, 0),
    UNSEEN_10: (176, 1),
    TWELFTH_ROUND_STUDIED: (170, 0),
}


@pytest.mark.parametrize("path", list(WINDOW_FLOORS), ids=lambda path: path.name)
def test_window_sketches_level_does_not_regress(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path.name} is not here")
    exact, wrong = WINDOW_FLOORS[path]
    counts = outcomes(path, WINDOW_STYLES)
    assert sum(counts.values()) > 150
    assert counts["exact"] >= exact and counts["wrong"] <= wrong


def test_sketches_are_seeded() -> None:
    pair = pairs()[0]
    assert sketch(pair, "function", 1) == sketch(pair, "function", 1)


@pytest.mark.skipif(not UNSEEN_2.exists(), reason="the third held-out set is not here")
def test_second_unseen_projects_level_does_not_regress() -> None:
    # Commits of typer, cobra, immer and log: the engine does worst here (Rust and TypeScript).
    counts = outcomes(UNSEEN_2)
    total = sum(counts.values())
    assert total > 350
    # 294 exact and 10 wrong of 416 when last measured (244 and 36 before issue 17's rounds,
    # 278 and 22 before its seventh, whose first fix kept tab-indented Go lines as tabs, 292
    # and 10 before its ninth, 293 and 10 before its tenth).
    assert counts["exact"] / total >= 0.706
    assert counts["wrong"] / total <= 0.025


@pytest.mark.skipif(not FOURTH_ROUND_STUDIED.exists(), reason="the sixth held-out set is not here")
def test_attrs_afero_zustand_anyhow_level_does_not_regress() -> None:
    # Measured before any tuning (478 exact, 26 wrong of 642), then studied in the fourth round.
    counts = outcomes(FOURTH_ROUND_STUDIED)
    total = sum(counts.values())
    assert total > 600
    # 520 exact and 4 wrong of 642 when last measured (493 and 12 before the fifth round, 516
    # and 4 before the tenth).
    assert counts["exact"] / total >= 0.809
    assert counts["wrong"] / total <= 0.0063
    context = outcomes(FOURTH_ROUND_STUDIED, CONTEXT_STYLES)
    # 144 exact and 0 wrong of 160 (132 and 7 before the fourth round, 142 and 1 before the
    # tenth).
    assert context["exact"] >= 144 and context["wrong"] == 0


@pytest.mark.skipif(not UNSEEN_4.exists(), reason="the seventh held-out set is not here")
def test_jinja_cli_got_http_level_does_not_regress() -> None:
    # Commits of jinja, urfave/cli, got and http: built at the fourth round's start, only measured.
    counts = outcomes(UNSEEN_4)
    total = sum(counts.values())
    assert total > 600
    # 472 exact and 6 wrong of 623 when last measured (452 and 16 at the fourth round's start,
    # 469 and 6 at the tenth's).
    assert counts["exact"] / total >= 0.757
    assert counts["wrong"] / total <= 0.0097
    context = outcomes(UNSEEN_4, CONTEXT_STYLES)
    # 122 exact and 1 wrong of 151 (116 and 4 at the fourth round's start).
    assert context["exact"] >= 122 and context["wrong"] <= 1


@pytest.mark.skipif(not UNSEEN_5.exists(), reason="the twelfth held-out set is not here")
def test_uvicorn_bubbletea_swr_reqwest_level_does_not_regress() -> None:
    # Commits of uvicorn, bubbletea, swr and reqwest: built at the seventh round's start by a
    # helper that read only the totals; only measured in that round, studied from the eighth.
    counts = outcomes(UNSEEN_5)
    total = sum(counts.values())
    assert total > 800
    # 626 exact and 7 wrong of 818 when last measured (616 and 34 at the seventh round's start,
    # 616 and 33 at the eighth's, 626 and 7 at the tenth's).
    assert counts["exact"] >= 629 and counts["wrong"] <= 7
    context = outcomes(UNSEEN_5, CONTEXT_STYLES)
    # 168 exact and 0 wrong of 200 when last measured (166 and 4 at the eighth round's start).
    assert context["exact"] >= 168 and context["wrong"] == 0


@pytest.mark.skipif(not UNSEEN_6.exists(), reason="the thirteenth held-out set is not here")
def test_marshmallow_lipgloss_query_axum_level_does_not_regress() -> None:
    # Commits of marshmallow, lipgloss, TanStack query and axum: built at the eighth round's start
    # by a helper that read only the totals; never studied.
    counts = outcomes(UNSEEN_6)
    total = sum(counts.values())
    assert total > 800
    # 656 exact and 13 wrong of 808 when last measured (652 and 13 at the eighth round's start,
    # 653 and 13 at the ninth's, 654 and 13 at the tenth's).
    assert counts["exact"] >= 656 and counts["wrong"] <= 13
    context = outcomes(UNSEEN_6, CONTEXT_STYLES)
    # 173 exact and 1 wrong of 200 when last measured (171 and 1 at the eighth round's start).
    assert context["exact"] >= 173 and context["wrong"] <= 1


@pytest.mark.skipif(not UNSEEN_7.exists(), reason="the fourteenth held-out set is not here")
def test_anyio_resty_unstorage_indicatif_level_does_not_regress() -> None:
    # Commits of anyio, resty, unstorage and indicatif: built at the ninth round's start by the
    # coordinator, who read only the totals; studied from the twelfth round on.
    counts = outcomes(UNSEEN_7)
    total = sum(counts.values())
    assert total > 750
    # 606 exact and 13 wrong of 792 when last measured (595 and 15 at the ninth round's start,
    # 598 and 15 at the tenth's, 600 and 14 at the twelfth's; studied in the twelfth).
    assert counts["exact"] >= 606 and counts["wrong"] <= 13
    context = outcomes(UNSEEN_7, CONTEXT_STYLES)
    # 160 exact and 2 wrong of 190 when last measured (155 and 4 at the ninth round's start).
    assert context["exact"] >= 160 and context["wrong"] <= 2


@pytest.mark.skipif(not UNSEEN_8.exists(), reason="the fifteenth held-out set is not here")
def test_loguru_gin_pinia_crossterm_level_does_not_regress() -> None:
    # Commits of loguru, gin, pinia and crossterm: built at the tenth round's start by the
    # coordinator, who read only the totals; never studied.
    counts = outcomes(UNSEEN_8)
    total = sum(counts.values())
    assert total > 800
    # 681 exact and 13 wrong of 811 when last measured (678 and 14 at the tenth round's start).
    assert counts["exact"] >= 681 and counts["wrong"] <= 13
    context = outcomes(UNSEEN_8, CONTEXT_STYLES)
    # 175 exact and 3 wrong of 200 at the round's start.
    assert context["exact"] >= 175 and context["wrong"] <= 3


@pytest.mark.skipif(not UNSEEN_9.exists(), reason="the sixteenth held-out set is not here")
def test_structlog_lo_yup_mobx_rayon_level_does_not_regress() -> None:
    # Commits of structlog, samber/lo, yup, mobx and rayon: built at the eleventh round's start
    # by the coordinator, who read only the totals; kept from the helpers' scoring.
    counts = outcomes(UNSEEN_9)
    total = sum(counts.values())
    assert total > 780
    # 592 exact and 21 wrong of 802 at the eleventh round's start and end, 593 and 21 after
    # the twelfth.
    assert counts["exact"] >= 593 and counts["wrong"] <= 21
    context = outcomes(UNSEEN_9, CONTEXT_STYLES)
    # 169 exact and 4 wrong of 200 at the round's start and end, 170 and 4 after the twelfth.
    assert context["exact"] >= 170 and context["wrong"] <= 4


@pytest.mark.skipif(not ELEVENTH_ROUND_STUDIED.exists(), reason="the 17th set is not here")
def test_packaging_bubbles_vue_ripgrep_level_does_not_regress() -> None:
    # Commits of packaging, bubbles, vue core and ripgrep: measured at the eleventh round's
    # start (habits 642/161/9, context 175/23/2), then studied.
    counts = outcomes(ELEVENTH_ROUND_STUDIED)
    total = sum(counts.values())
    assert total > 800
    assert counts["exact"] >= 648 and counts["wrong"] <= 8
    context = outcomes(ELEVENTH_ROUND_STUDIED, CONTEXT_STYLES)
    assert context["exact"] >= 180 and context["wrong"] <= 1


@pytest.mark.skipif(not UNSEEN_10.exists(), reason="the 18th set is not here")
def test_tenacity_sqlx_xstate_itertools_level_does_not_regress() -> None:
    # Commits of tenacity, sqlx, xstate and itertools: built at the twelfth round's start by the
    # coordinator, who read only the totals; kept from the helpers' scoring.
    counts = outcomes(UNSEEN_10)
    total = sum(counts.values())
    assert total > 800
    # 568 exact and 16 wrong of 811 at the twelfth round's start.
    assert counts["exact"] >= 568 and counts["wrong"] <= 16
    context = outcomes(UNSEEN_10, CONTEXT_STYLES)
    # 161 exact and 2 wrong of 200 at the round's start.
    assert context["exact"] >= 161 and context["wrong"] <= 2


@pytest.mark.skipif(not TWELFTH_ROUND_STUDIED.exists(), reason="the 19th set is not here")
def test_yarl_jwt_react_router_toml_level_does_not_regress() -> None:
    # Commits of yarl, golang-jwt, react-router and toml-rs: measured at the twelfth round's
    # start (habits 528/220/20, context 150/37/3), then studied (533/217/18, 152/37/1).
    counts = outcomes(TWELFTH_ROUND_STUDIED)
    total = sum(counts.values())
    assert total > 750
    assert counts["exact"] >= 533 and counts["wrong"] <= 18
    context = outcomes(TWELFTH_ROUND_STUDIED, CONTEXT_STYLES)
    assert context["exact"] >= 152 and context["wrong"] <= 1


def test_blankless_sketches_level_does_not_regress() -> None:
    # Three styles with every blank line dropped (markers kept), on the first held-out set.
    styles = ("function-blankless", "nested-blankless", "context-blankless")
    counts = outcomes(styles=styles)
    total = sum(counts.values())
    assert total > 200
    # 144 exact and 19 wrong of 246 when last measured (145 and 71 before the blank-less check,
    # 142 and 58 before the fifth round, 146 and 46 before the sixth, whose doubt of every
    # marked sketch without a blank line refused 26 wrong merges for 3 exact, 143 and 20 before
    # the ninth).
    assert counts["exact"] >= 144
    assert counts["wrong"] <= 19


# Each one-language set's floors (habits exact, wrong; context exact, wrong), at the level when
# last measured: measured before any tuning, then studied (see heldout.py's docstring).
LANGUAGE_FLOORS = {
    "heldout-pairs-8.jsonl.gz": (439, 8, 127, 1),  # Go: 424/12, 121/2 before the sixth round
    "heldout-pairs-9.jsonl.gz": (651, 6, 178, 0),  # TypeScript: 633/22, 174/1 at first
    "heldout-pairs-10.jsonl.gz": (553, 12, 149, 1),  # Rust: 532/26, 144/4 at first
    "heldout-pairs-11.jsonl.gz": (615, 13, 171, 1),  # Go: 597/25, 163/4 at first
}


@pytest.mark.parametrize("path", LANGUAGE_SETS, ids=lambda path: path.name)
def test_one_language_set_level_does_not_regress(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path.name} is not here")
    exact, wrong, context_exact, context_wrong = LANGUAGE_FLOORS[path.name]
    counts = outcomes(path)
    assert sum(counts.values()) > 500
    assert counts["exact"] >= exact and counts["wrong"] <= wrong
    context = outcomes(path, CONTEXT_STYLES)
    assert context["exact"] >= context_exact and context["wrong"] <= context_wrong
