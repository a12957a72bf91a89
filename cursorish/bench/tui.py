"""`cursorish bench tui`: is the app fast enough to live in?

Three figures, measured in one run on one machine, each printed next to its target:

1. Start-up to first frame (target <= 1.5 s). `cursorish tui` is spawned on a pseudo-terminal
   of 120x40, exactly as a person starts it; the time runs from the spawn to the moment the
   first frame (the "Agents" panel) arrives on the terminal, then `q` quits it. The process
   also reports, when it exits, whether litellm or llama_cpp were ever imported (they must
   not be: a module imported by then was imported by the first frame too).
2. Key press to frame with N agents streaming (target p95 <= 100 ms). The real app runs
   headless with the real bridge and orchestrator against a local scripted planner that
   streams every reply in many small chunks for several seconds. While every agent streams,
   keys move the agent selection (which switches the transcript); a press counts from the
   moment the key event is posted, as the terminal driver posts it, to the first frame the
   app renders in which the selection moved and the new transcript is mounted. The same keys
   are timed again once the agents have finished, for comparison.
3. A big diff opens in the viewer (target <= 500 ms): `ReviewSession.open` on a branch whose
   diff has about `--diff-lines` lines, then the ReviewScreen up to its first drawn rows
   (`tui_diff.measure_review_open`); `tui_diff.measure_viewer_open` gives the viewer alone
   (parse + rows + first frame, no git). Scrolling: the time from a jump (middle, end, ...)
   to the frame that shows it, for a diff of a tenth of the size and the full one; the ratio
   shows it does not depend on the diff's size (the viewer draws only visible rows).

Frames are counted where Textual hands a rendered update to the driver (see `tui_frames`);
start-up is in `tui_startup`, the big diff in `tui_diff`, key presses and sends here.
Everything runs in a temporary directory with its own CURSORISH_HOME and an empty
configuration, so the user's store and settings are untouched.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from textual import events

from cursorish.bench.stats import percentile, spread
from cursorish.bench.tui_diff import (
    DIFF_FILES,
    REPO_FILES,
    TARGET_DIFF_OPEN_MS,
    make_repo,
    measure_diff,
)
from cursorish.bench.tui_frames import FRAME_TIMEOUT_S, SIZE, TimedApp, until
from cursorish.bench.tui_startup import LAZY_MODULES, TARGET_STARTUP_S, measure_startup
from cursorish.errors import CursorishError, ExitCode
from cursorish.replay.scripted_server import ScriptedServer

TARGET_KEY_P95_MS = 100.0
TARGET_SEND_MS = 50.0  # enter in the input line -> the planner request leaves (idle agent)
KEY_GAP_S = 0.05  # pause after a press is drawn before the next (a fast typist)
CHUNK_CHARS = 12
CHUNK_DELAY_S = 0.02  # 50 chunks a second per agent, a fast provider
# Variables of the user's that would change what is measured.
_CLEARED_ENV = (
    "CURSORISH_PLANNER",
    "CURSORISH_API_BASE",
    "CURSORISH_API_KEY",
    "CURSORISH_PROFILE",
    "CURSORISH_COMMAND_POLICY",
    "CURSORISH_CONCURRENCY",
)


# -- the scripted planner, streaming in many small chunks --------------------------------------


def streaming_script(seconds: float) -> list[dict[str, Any]]:
    """One planner reply that streams prose for about `seconds`, then calls finish."""
    sentence = "Reading the module layout and planning the change step by step. "
    chars = int(seconds / CHUNK_DELAY_S) * CHUNK_CHARS
    text = ""
    line = 0
    while len(text) < chars:
        line += 1
        text += f"{line}. {sentence}{'' if line % 3 else chr(10)}"
    return [
        {
            "content": text[:chars],
            "stream_chunk_chars": CHUNK_CHARS,
            "stream_chunk_delay_s": CHUNK_DELAY_S,
            "tool_calls": [{"name": "finish", "arguments": {"summary": "benchmark reply"}}],
        }
    ]


# -- the environment ------------------------------------------------------------------------


@contextlib.contextmanager
def isolated_env(tmp: Path) -> Iterator[dict[str, str]]:
    """CURSORISH_HOME and XDG_CONFIG_HOME in `tmp`, no CURSORISH_* setting of the user's;
    yields the environment (for subprocesses) and restores the old one afterwards."""
    saved = dict(os.environ)
    os.environ["CURSORISH_HOME"] = str(tmp / "home")
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    for var in _CLEARED_ENV:
        os.environ.pop(var, None)
    try:
        yield dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)


# -- 2. key presses while agents stream --------------------------------------------------------


def _namespace(repo: Path, **flags: Any) -> argparse.Namespace:
    from cursorish.config.settings import FLAG_KEYS

    values: dict[str, Any] = dict.fromkeys(FLAG_KEYS)
    values.update(flags)
    return argparse.Namespace(repo=str(repo), **values)


async def _press_and_time(app: TimedApp, key: str, target: str) -> float:
    """Seconds from posting `key` to the first frame where `target` is the selected agent
    and its transcript is built and mounted (inf: no such frame within FRAME_TIMEOUT_S)."""
    assert app._driver is not None

    def drawn() -> bool:
        selected = app.panel.selected
        transcript = app.transcript
        return (
            selected is not None
            and selected.id == target
            and transcript.agent_id == target
            and all(child.is_mounted for child in transcript.children)
        )

    started = time.perf_counter()
    app._driver.send_message(events.Key(key, None))
    try:
        return await app.clock.wait(drawn) - started
    except TimeoutError:
        return math.inf


async def _time_keys(
    app: TimedApp,
    presses: int,
    misses: list[int],
    still: Callable[[], bool] = lambda: True,
    rows: int | None = None,
) -> list[float]:
    """Move the selection down through the first `rows` agents (default: all) and back up,
    `presses` times in all (or until `still()` turns false); each press's latency. The index
    of a press that was never drawn is added to `misses`."""
    order = list(app.panel.order)[:rows]
    if len(order) < 2:
        raise CursorishError("bench tui: key presses need at least 2 agents")
    app.panel.table.focus()
    app.panel.select(order[0])
    await until(lambda: app.transcript.agent_id == order[0], 10, "the first agent")
    index, step = 0, 1
    times: list[float] = []
    for _ in range(presses):
        if not still():
            break
        if not 0 <= index + step < len(order):
            step = -step
        index += step
        seconds = await _press_and_time(app, "down" if step > 0 else "up", order[index])
        if math.isinf(seconds):  # never drawn: counted as the time waited, and as a miss
            app.panel.select(order[index])
            seconds = FRAME_TIMEOUT_S
            misses.append(len(times))
        times.append(seconds)
        await asyncio.sleep(KEY_GAP_S)
    return times


async def _time_typing(
    app: TimedApp, presses: int, still: Callable[[], bool] = lambda: True
) -> list[float]:
    """Seconds from posting each character key to the first frame whose input line shows
    it (`presses` keys, or until `still()` turns false); the line is emptied afterwards."""
    chat = app.chat_input
    chat.focus()
    await until(lambda: app.focused is chat, 10, "the input line")
    times: list[float] = []
    for i in range(presses):
        if not still():
            break
        char = "abcdefghij"[i % 10]
        want = len(chat.text) + 1
        started = time.perf_counter()
        assert app._driver is not None
        app._driver.send_message(events.Key(char, char))
        try:
            drawn = await app.clock.wait(lambda w=want: len(chat.text) >= w)  # type: ignore[misc]
            times.append(drawn - started)
        except TimeoutError:
            times.append(FRAME_TIMEOUT_S)
        await asyncio.sleep(KEY_GAP_S)
    chat.load_text("")
    app.panel.table.focus()
    return times


def measure_send(repo: Path, runs: int) -> dict[str, Any]:
    """Time from pressing enter in the input line to the planner request leaving, for an
    agent that is idle (it ended): the follow-up continues it from its transcript."""
    from cursorish.tui.launch import app_setup

    result: dict[str, Any] = {"event": "send", "runs": runs}
    finish = {"tool_calls": [{"name": "finish", "arguments": {"summary": "ok"}}]}
    edit = {
        "tool_calls": [
            {"name": "create_file", "arguments": {"path": "bench.txt", "content": "x\n"}}
        ]
    }
    times: list[float] = []

    async def run(server: ScriptedServer) -> None:
        with app_setup(
            _namespace(repo, planner="openai/scripted", api_base=server.base_url)
        ) as setup:
            app = TimedApp(setup)
            async with app.run_test(size=SIZE) as pilot:
                app.bridge.start_agents("benchmark: one edit, then follow-ups")
                await until(lambda: bool(app.panel.rows), 60, "the agent")
                row = next(iter(app.panel.rows.values()))
                app.panel.select(row.id)
                for _ in range(runs):
                    await until(lambda: app.panel.rows[row.id].ended, 60, "the agent to end")
                    await until(lambda: not app.bridge.busy, 60, "the commit")
                    await pilot.pause(0.2)
                    chat = app.chat_input
                    chat.focus()
                    chat.load_text("one more thing")
                    await pilot.pause(0.1)
                    before = len(server.requests)
                    assert app._driver is not None
                    started = time.perf_counter()
                    app._driver.send_message(events.Key("enter", None))
                    while len(server.requests) == before:
                        await asyncio.sleep(0.001)
                    times.append(time.perf_counter() - started)
                    # The next round waits for this run to end: `bridge.busy` is set from the
                    # moment enter was handled (the row's state may not have changed yet).

    server = ScriptedServer([edit, finish] + [finish] * runs)
    server.start()
    try:
        asyncio.run(run(server))
    finally:
        server.stop()
    result.update({f"{k}_ms": v for k, v in spread(times, 1000).items()})
    result["target_ms"] = TARGET_SEND_MS
    result["ratio_to_target"] = round(statistics.median(times) * 1000 / TARGET_SEND_MS, 3)
    return result


def measure_keys(repo: Path, agents: int, presses: int) -> dict[str, Any]:
    from cursorish.planner.litellm_loader import load_litellm
    from cursorish.tui.launch import app_setup

    load_litellm()  # its import is start-up of the first agent, not key latency
    # Long enough for every press, then as many keys typed in the input line, after the last
    # agent started (worktrees come one by one).
    stream_s = 2 * presses * (KEY_GAP_S + 0.1) + 2.0 + 0.25 * agents
    result: dict[str, Any] = {"event": "keys", "agents": agents, "presses": presses}
    misses: list[int] = []

    async def run(server: ScriptedServer) -> None:
        with app_setup(
            _namespace(
                repo, planner="openai/scripted", api_base=server.base_url, concurrency=agents
            )
        ) as setup:
            app = TimedApp(setup)
            async with app.run_test(size=SIZE) as pilot:
                before = set(app.panel.rows)  # agents of an earlier run, if any
                left = agents
                while left > 0:
                    app.bridge.start_agents("benchmark: stream and finish", count=min(8, left))
                    left -= min(8, left)

                def streaming() -> bool:
                    rows = [r for r in app.panel.rows.values() if r.id not in before]
                    return len(rows) == agents and all(
                        not r.ended and app.bridge.snapshot(r.id)[1].text for r in rows
                    )

                await until(streaming, 120, f"{agents} agents streaming")
                frames = app.clock.frames
                began = time.perf_counter()
                # The new agents are the top rows (newest first).
                busy = await _time_keys(app, presses, misses, streaming, agents)
                result["streaming_s"] = round(time.perf_counter() - began, 2)
                result["frames_per_s"] = round(
                    (app.clock.frames - frames) / max(1e-9, result["streaming_s"]), 1
                )
                result["timed_while_streaming"] = len(busy)
                result.update({f"{k}_ms": v for k, v in spread(busy, 1000).items()})
                result["p50_ms"] = result.pop("median_ms", None)
                # Typing in the input line under the transcript, agents still streaming.
                typed = await _time_typing(app, presses, streaming)
                result["typing"] = {"presses": len(typed), **spread(typed, 1000)}
                await until(
                    lambda: all(r.ended for r in app.panel.rows.values()), 120, "agents to end"
                )
                await until(lambda: not app.bridge.busy, 60, "agents to be committed")
                await pilot.pause(0.2)
                idle = await _time_keys(app, max(4, presses // 2), misses, rows=agents)
                result["idle_p50_ms"] = round(statistics.median(idle) * 1000, 1)
                result["idle_p95_ms"] = round(percentile(idle, 0.95) * 1000, 1)
                result["states"] = sorted(
                    {r.state for r in app.panel.rows.values() if r.id not in before}
                )

    server = ScriptedServer(streaming_script(stream_s))
    server.start()
    try:
        asyncio.run(run(server))
    finally:
        server.stop()
    result["missed_frames"] = len(misses)
    result["target_p95_ms"] = TARGET_KEY_P95_MS
    p95 = result.get("p95_ms")
    result["ratio_to_target"] = round(p95 / TARGET_KEY_P95_MS, 3) if p95 is not None else None
    return result


# -- the command --------------------------------------------------------------------------------


def run_bench(
    agents: int = 8, diff_lines: int = 5000, keys: int = 60, runs: int = 5
) -> dict[str, Any]:
    """Every figure of the bench, in one dict (see the module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="cursorish-bench-tui-"))
    try:
        with isolated_env(tmp) as env:
            repo = tmp / "repo"
            branches = make_repo(repo, sorted({max(50, diff_lines // 10), diff_lines}))
            key_figures = measure_keys(repo, agents, keys)
            send = measure_send(repo, max(3, runs))
            startup = measure_startup(repo, env, runs, tmp)
            startup["agents_in_store"] = agents
            diff = measure_diff(repo, branches, runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "event": "summary",
        "size": list(SIZE),
        "repo_files": REPO_FILES + DIFF_FILES * len(branches),
        "startup": startup,
        "keys": key_figures,
        "diff": diff,
        "send": send,
    }


def _check(ns: argparse.Namespace) -> tuple[int, int, int, int]:
    agents = int(getattr(ns, "agents", 8))
    diff_lines = int(getattr(ns, "diff_lines", 5000))
    keys = int(getattr(ns, "keys", 60))
    runs = int(getattr(ns, "runs", 5))
    if not 2 <= agents <= 16:
        raise CursorishError("--agents must be between 2 and 16", ExitCode.BAD_ARGS)
    if not 100 <= diff_lines <= 200_000:
        raise CursorishError("--diff-lines must be between 100 and 200000", ExitCode.BAD_ARGS)
    if not 2 <= keys <= 10_000:
        raise CursorishError("--keys must be between 2 and 10000", ExitCode.BAD_ARGS)
    if runs < 1:
        raise CursorishError("runs must be at least 1", ExitCode.BAD_ARGS)
    return agents, diff_lines, keys, runs


def _print_human(result: dict[str, Any]) -> None:
    s, k, d = result["startup"], result["keys"], result["diff"]
    cols, rows = result["size"]
    print(
        f"terminal {cols}x{rows}; repo of {result['repo_files']} files; "
        f"{k['agents']} agents streaming ({CHUNK_CHARS} chars every {CHUNK_DELAY_S * 1000:.0f} ms)"
    )
    lazy = [m for m, v in s["imported"].items() if v]
    print(
        f"start-up to first frame   median {s['median_s']:.2f} s  p95 {s['p95_s']:.2f} s  "
        f"({s['runs']} runs, first {s['first_run_s']:.2f} s)  target <= {TARGET_STARTUP_S} s: "
        f"{s['ratio_to_target']:.2f}x  "
        + (f"IMPORTED {', '.join(lazy)}" if lazy else f"{' and '.join(LAZY_MODULES)} not imported")
    )
    print(
        f"key press -> frame        p50 {k['p50_ms']:.0f} ms  p95 {k['p95_ms']:.0f} ms  "
        f"max {k['max_ms']:.0f} ms  ({k['timed_while_streaming']} presses while "
        f"{k['agents']} agents streamed, {k['frames_per_s']:.0f} frames/s)  "
        f"target p95 <= {TARGET_KEY_P95_MS:.0f} ms: {k['ratio_to_target']:.2f}x; "
        f"after they finished p95 {k['idle_p95_ms']:.0f} ms"
    )
    print(
        f"diff of {d['lines']:,} lines opens  median {d['median_ms']:.0f} ms  "
        f"p95 {d['p95_ms']:.0f} ms  ({d['runs']} runs; session open {d['session_open_ms']:.0f} "
        f"ms, viewer alone {d['viewer_only_ms']:.0f} ms)  target <= {TARGET_DIFF_OPEN_MS:.0f} "
        f"ms: {d['ratio_to_target']:.2f}x"
    )
    t = k.get("typing") or {}
    if t.get("presses"):
        print(
            f"typing in the input line  p50 {t['median']:.0f} ms  p95 {t['p95']:.0f} ms  "
            f"max {t['max']:.0f} ms  ({t['presses']} keys while {k['agents']} agents streamed)  "
            f"target p95 <= {TARGET_KEY_P95_MS:.0f} ms: {t['p95'] / TARGET_KEY_P95_MS:.2f}x"
        )
    n = result["send"]
    print(
        f"send -> planner request   median {n['median_ms']:.0f} ms  p95 {n['p95_ms']:.0f} ms  "
        f"({n['runs']} follow-ups to an idle agent)  target <= {TARGET_SEND_MS:.0f} ms: "
        f"{n['ratio_to_target']:.2f}x"
    )
    sizes = list(d["scroll"].items())
    parts = [
        f"{int(lines):,} lines {fig['median_ms']:.1f} ms (p95 {fig['p95_ms']:.1f}, "
        f"<= {fig['rows_drawn_max']} rows drawn)"
        for lines, fig in sizes
    ]
    ratio = d["scroll_ratio"]
    print(
        "scroll jump -> frame      "
        + "; ".join(parts)
        + (f"; ratio {ratio:.2f}x" if ratio is not None else "")
    )


def cmd_bench_tui(ns: argparse.Namespace) -> int:
    agents, diff_lines, keys, runs = _check(ns)
    result = run_bench(agents, diff_lines, keys, runs)
    if getattr(ns, "json", False):
        for part in ("startup", "keys", "diff", "send"):
            print(json.dumps(result[part]))
        print(json.dumps(result))
    else:
        _print_human(result)
    return 0
