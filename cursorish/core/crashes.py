"""Crash reports: the traceback of an internal error (a bug), saved under `$CURSORISH_HOME/crashes/`
for a bug report, while the user sees one line saying where it is."""

from __future__ import annotations

import os
import time
import traceback

from cursorish.store.paths import cursorish_home


def save_crash_report(exc: BaseException, *, what: str = "") -> str:
    """Write `exc`'s traceback (after a line saying `what` failed) to a new file under
    crashes/; returns its path, or a sentence saying why none could be written."""
    try:
        folder = cursorish_home() / "crashes"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        # Several agents of one run may fail in the same second: one file each, none replaced.
        for n in range(1000):
            path = folder / f"crash-{stamp}-{os.getpid()}{f'-{n}' if n else ''}.txt"
            try:
                with path.open("x", encoding="utf-8", errors="backslashreplace") as fh:
                    if what:
                        fh.write(f"{what}\n\n")
                    fh.write("".join(traceback.format_exception(exc)))
                return str(path)
            except FileExistsError:
                continue
        return "no crash file could be written (too many in this second)"
    except OSError:
        return "no crash file could be written"
