"""`cursorish bench tui` at a tiny size: the figures it prints have the promised shape and are
sane (ordered, positive, measured while the agents streamed). Timings are not asserted: this
machine is shared and noisy; the README has the figures of a full run."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from typing import Any

import pytest

from cursorish.bench.stats import percentile
from cursorish.bench.tui import _print_human, cmd_bench_tui, streaming_script
from cursorish.bench.tui_frames import SIZE
from cursorish.bench.tui_startup import LAZY_MODULES
from cursorish.errors import CursorishError, ExitCode

AGENTS, DIFF_LINES, KEYS = 2, 200, 4


def bench_args(**overrides: Any) -> argparse.Namespace:
    values: dict[str, Any] = {
        "agents": AGENTS,
        "diff_lines": DIFF_LINES,
        "keys": KEYS,
        "json": True,
        "runs": 1,
    }
    values.update(overrides)
    return argparse.Namespace(**values)


@pytest.fixture(scope="module")
def printed() -> list[dict[str, Any]]:
    """The JSON lines of one tiny run (the bench isolates its own home and configuration)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cmd_bench_tui(bench_args())
    assert code == 0, out.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def ordered(figures: dict[str, Any], unit: str) -> bool:
    first = "median" if f"median_{unit}" in figures else "p50"
    values = [figures[f"{first}_{unit}"], figures[f"p95_{unit}"], figures[f"max_{unit}"]]
    return bool(0 < values[0] <= values[1] <= values[2])


def test_json_lines_end_with_one_summary_of_every_part(printed: list[dict[str, Any]]) -> None:
    assert [line["event"] for line in printed] == ["startup", "keys", "diff", "send", "summary"]
    summary = printed[-1]
    assert summary["size"] == list(SIZE)
    for part in printed[:-1]:
        assert summary[part["event"]] == part


def test_typing_in_the_input_line_and_send_to_planner_request_are_timed(
    printed: list[dict[str, Any]],
) -> None:
    typing = printed[1]["typing"]
    assert typing["presses"] == KEYS  # every key typed while the agents streamed
    assert 0 < typing["median"] <= typing["p95"] <= typing["max"]
    send = printed[3]
    assert send["event"] == "send" and send["runs"] >= 3
    assert ordered(send, "ms") and send["target_ms"] == 50.0


def test_startup_reaches_a_frame_without_importing_litellm_or_llama_cpp(
    printed: list[dict[str, Any]],
) -> None:
    startup = printed[0]
    assert startup["runs"] == 1 and startup["first_run_s"] > 0
    assert ordered(startup, "s")
    assert startup["imported"] == dict.fromkeys(LAZY_MODULES, False)
    assert startup["target_s"] == 1.5


def test_every_key_press_was_timed_while_every_agent_streamed(
    printed: list[dict[str, Any]],
) -> None:
    keys = printed[1]
    assert keys["agents"] == AGENTS and keys["presses"] == KEYS
    assert keys["timed_while_streaming"] == KEYS
    assert keys["missed_frames"] == 0
    assert ordered(keys, "ms")
    assert 0 < keys["idle_p50_ms"] <= keys["idle_p95_ms"]
    assert keys["frames_per_s"] > 0
    # The scripted reply ends with finish: every agent ran to its end, none failed.
    assert "failed" not in keys["states"] and "planning" not in keys["states"]
    assert keys["ratio_to_target"] == round(keys["p95_ms"] / 100.0, 3)


def test_diff_opens_and_scrolls_drawing_only_the_rows_on_screen(
    printed: list[dict[str, Any]],
) -> None:
    diff = printed[2]
    assert DIFF_LINES <= diff["lines"] <= 1.5 * DIFF_LINES
    assert ordered(diff, "ms")
    assert 0 < diff["session_open_ms"] <= diff["median_ms"]
    assert diff["viewer_only_ms"] > 0
    assert len(diff["scroll"]) == 2  # a tenth of the size (at least 50 lines) and the full one
    for figures in diff["scroll"].values():
        assert ordered(figures, "ms")
        # Virtualised: a jump draws at most one screen of rows, whatever the diff's size.
        assert 0 < figures["rows_drawn_max"] <= SIZE[1]
    assert diff["scroll_ratio"] > 0


def test_the_human_table_names_each_figure_and_its_target(
    printed: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    _print_human(printed[-1])
    text = capsys.readouterr().out
    assert "start-up to first frame" in text and "target <= 1.5 s" in text
    assert "litellm and llama_cpp not imported" in text
    assert "key press -> frame" in text and "target p95 <= 100 ms" in text
    assert f"diff of {printed[2]['lines']:,} lines opens" in text and "target <= 500 ms" in text
    assert "scroll jump -> frame" in text


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("agents", 1, "--agents"),
        ("agents", 17, "--agents"),
        ("diff_lines", 10, "--diff-lines"),
        ("keys", 1, "--keys"),
    ],
)
def test_out_of_range_arguments_are_refused(flag: str, value: int, message: str) -> None:
    with pytest.raises(CursorishError) as caught:
        cmd_bench_tui(bench_args(**{flag: value}))
    assert caught.value.exit_code == ExitCode.BAD_ARGS and message in caught.value.message


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.95) == 95.0
    assert percentile([3.0], 0.95) == 3.0


def test_streaming_script_streams_for_the_asked_time_then_finishes() -> None:
    (turn,) = streaming_script(2.0)
    # 12 characters every 20 ms: 2 s is 100 chunks.
    assert len(turn["content"]) == 100 * 12
    assert [call["name"] for call in turn["tool_calls"]] == ["finish"]
