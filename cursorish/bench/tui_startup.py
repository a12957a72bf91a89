"""`cursorish bench tui`, figure 1: start-up to the first frame, on a pseudo-terminal.

`cursorish tui` is spawned as a person starts it; the time runs from the spawn to the first
frame (the "Agents" panel) on the terminal, then `q` quits it. The process reports on exit
whether litellm or llama_cpp were ever imported (they must not be).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cursorish.bench.stats import spread
from cursorish.bench.tui_frames import SIZE
from cursorish.errors import CursorishError

TARGET_STARTUP_S = 1.5
LAZY_MODULES = ("litellm", "llama_cpp")

# Runs `cursorish` like the console script does, and says on exit which lazy modules the
# process ever imported.
_CHILD = f"""
import atexit, json, os, sys
def _report():
    with open(os.environ["CURSORISH_BENCH_MODULES"], "w") as f:
        json.dump({{m: m in sys.modules for m in {LAZY_MODULES!r}}}, f)
atexit.register(_report)
import runpy
runpy.run_module("cursorish", run_name="__main__", alter_sys=True)
"""


def startup_once(
    repo: Path, env: dict[str, str], report: Path, timeout_s: float = 30.0
) -> tuple[float, dict[str, bool]]:
    """Spawn `cursorish tui` on a 120x40 pseudo-terminal; (seconds to the first frame,
    {module: imported before exit})."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    cols, rows = SIZE
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    child_env = {**env, "TERM": "xterm-256color", "CURSORISH_BENCH_MODULES": str(report)}
    child_env.pop("TEXTUAL", None)
    report.unlink(missing_ok=True)
    argv = [sys.executable, "-c", _CHILD, "tui", "--repo", str(repo)]
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=child_env, start_new_session=True
    )
    os.close(slave)
    seen = b""
    first_frame: float | None = None
    quit_sent = False
    try:
        deadline = started + timeout_s
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                if first_frame is None:
                    seen = (seen + data)[-200_000:]
                    if b"Agents" in seen:
                        first_frame = time.perf_counter()
            if first_frame is not None and not quit_sent:
                os.write(master, b"q")
                quit_sent = True
            if proc.poll() is not None and not ready:
                break
        if first_frame is None:
            tail = seen[-600:].decode("utf-8", "replace")
            raise CursorishError(f"the app drew no frame within {timeout_s:.0f} s: {tail!r}")
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired as exc:
            raise CursorishError("the app did not quit on q within 10 s") from exc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    try:
        modules = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        modules = {}
    return first_frame - started, {m: bool(modules.get(m, True)) for m in LAZY_MODULES}


def measure_startup(repo: Path, env: dict[str, str], runs: int, tmp: Path) -> dict[str, Any]:
    report = tmp / "modules.json"
    cold, cold_modules = startup_once(repo, env, report)
    times: list[float] = []
    imported = {m: v for m, v in cold_modules.items()}
    for _ in range(runs):
        seconds, modules = startup_once(repo, env, report)
        times.append(seconds)
        for m, v in modules.items():
            imported[m] = imported[m] or v
    result = {"event": "startup", "runs": runs, "first_run_s": round(cold, 3)}
    result.update({f"{k}_s": v for k, v in spread(times, digits=3).items()})
    result["imported"] = imported
    result["target_s"] = TARGET_STARTUP_S
    result["ratio_to_target"] = round(statistics.median(times) / TARGET_STARTUP_S, 3)
    return result
