"""Text search over an agent's worktree: the files git would track, a regex, capped output.

`git grep` does the work where it can: it runs in C outside our process (no GIL, so parallel
agents do not serialise on each other's searches) and already knows which files are tracked or
untracked-but-not-ignored. The Python search is the fallback (a git without PCRE support, or a
pattern PCRE gave up on).

A planner's pattern may be catastrophic (`(a+)+$` backtracks exponentially): nothing here lets
one run unbounded. git's PCRE has a match limit and a deadline (`GREP_TIMEOUT_S`, after which
git is killed and what it found so far is returned); the fallback runs on RE2, whose time is
linear in the text, and refuses the few patterns RE2 cannot run (backreferences, lookaround)
instead of handing them to Python's backtracking `re`.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.apply.textio import is_binary

MAX_FILE_BYTES = 2_000_000
MAX_LINE_CHARS = 300
GREP_TIMEOUT_S = 20.0  # a whole git grep; then it is killed and its matches so far returned


class PatternError(ValueError):
    """A pattern the linear-time engine cannot run (the message says why and what to do)."""


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str


def glob_filter(files: list[str], glob: str) -> list[str]:
    """Files whose path, or whose name in any directory, matches `glob`."""
    return [f for f in files if fnmatch.fnmatch(f, glob) or fnmatch.fnmatch(f, f"*/{glob}")]


def search_worktree(
    root: Path,
    pattern: str,
    *,
    regex: bool = True,
    ignore_case: bool = False,
    glob: str | None = None,
    max_matches: int = 200,
    list_files: Callable[[Path], list[str]] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[list[Match], bool]:
    """Matches of `pattern` in the worktree's files; raises re.error for a bad pattern.
    `cancel` (the agent's) ends a search early, with what it found so far."""
    flags = re.IGNORECASE if ignore_case else 0
    re.compile(pattern if regex else re.escape(pattern), flags)  # our error messages, not git's
    if list_files is None:
        found = _git_grep(root, pattern, regex, ignore_case, glob, max_matches, cancel=cancel)
        if found is not None:
            matches, cut = found
            if glob:
                matches = [m for m in matches if glob_filter([m.path], glob)]
            return matches, cut
        from cursorish.gitops.worktrees import tracked_files

        list_files = tracked_files
    files = list_files(root)
    if glob:
        files = glob_filter(files, glob)
    return grep(
        root,
        files,
        pattern,
        regex=regex,
        ignore_case=ignore_case,
        max_matches=max_matches,
        cancel=cancel,
    )


def _git_grep(
    root: Path,
    pattern: str,
    regex: bool,
    ignore_case: bool,
    glob: str | None,
    max_matches: int,
    timeout_s: float = GREP_TIMEOUT_S,
    cancel: threading.Event | None = None,
) -> tuple[list[Match], bool] | None:
    """`git grep` over tracked and untracked-not-ignored files; None when git cannot do it.

    A glob becomes the pathspecs `GLOB` and `**/GLOB` (git's rules: `*` stays inside one
    directory), so the match cap applies after the glob, not before.
    """
    argv = ["git", "--no-optional-locks", "grep", "--untracked", "-I", "-n", "-z", "--no-color"]
    argv += ["-P"] if regex else ["-F"]
    if ignore_case:
        argv.append("-i")
    argv += ["-e", pattern]
    if glob:
        argv += ["--", f":(glob){glob}", f":(glob)**/{glob}"]
    try:
        proc = subprocess.Popen(
            argv,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return None
    out: list[Match] = []
    cut = False
    timed_out, done = threading.Event(), threading.Event()

    def watch() -> None:
        """Kill git at the deadline, or as soon as the agent is cancelled."""
        deadline = time.monotonic() + timeout_s
        while not done.wait(0.05):
            if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
                timed_out.set()
                proc.kill()
                return

    threading.Thread(target=watch, daemon=True, name="grep-deadline").start()
    assert proc.stdout is not None and proc.stderr is not None
    for raw in proc.stdout:
        path, _, rest = raw.partition(b"\0")
        number, _, text = rest.partition(b"\0")
        name = os.fsdecode(path)
        if os.path.islink(root / name):
            continue  # never report (or read through) a symlink
        out.append(
            Match(name, int(number), text.decode("utf-8", "replace").rstrip()[:MAX_LINE_CHARS])
        )
        if len(out) >= max_matches:
            cut = True
            proc.kill()
            break
    stderr = proc.stderr.read()
    code = proc.wait()
    done.set()
    if cut or timed_out.is_set():
        return out, True
    if code == 0 or (code == 1 and not stderr.strip()):
        return out, False  # 1 with no message: no match
    # e.g. "cannot use Perl-compatible regexes", or PCRE's match limit on a catastrophic
    # pattern: the linear-time fallback decides.
    return None


def grep(
    root: Path,
    files: list[str],
    pattern: str,
    *,
    regex: bool = True,
    ignore_case: bool = False,
    max_matches: int = 200,
    cancel: threading.Event | None = None,
) -> tuple[list[Match], bool]:
    """Search `files` (relative names under root); returns matches and whether it was cut off.

    Runs on RE2 (linear time, whatever the pattern); raises PatternError for a pattern RE2
    cannot run and re.error for an invalid one."""
    compiled = _linear(pattern if regex else re.escape(pattern), ignore_case)
    out: list[Match] = []
    for name in files:
        if cancel is not None and cancel.is_set():
            return out, True
        try:
            # O_NOFOLLOW: a symlink is never read.
            fd = os.open(root / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE_BYTES or is_binary(data):
            continue
        text = data.decode("utf-8", "replace")
        if not compiled.search(text):
            continue  # one C-level search per file; most files do not match
        for number, line in enumerate(text.splitlines(), 1):
            if compiled.search(line):
                out.append(Match(name, number, line.rstrip()[:MAX_LINE_CHARS]))
                if len(out) >= max_matches:
                    return out, True
    return out, False


def _linear(pattern: str, ignore_case: bool) -> Any:
    """`pattern` compiled by RE2, or PatternError saying why it cannot be."""
    import re2

    re.compile(pattern)  # an invalid pattern gets Python's message, which names the position
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False  # RE2 would write its own message to stderr (the app's screen)
    try:
        # (?m): `^` and `$` at every line, as in git grep (the file is searched whole first).
        return re2.compile(f"(?m){pattern}", options)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise PatternError(
            f"this pattern needs a backtracking engine ({detail}), which grep does not run "
            "here: one pattern can take hours that way. Rewrite it without backreferences "
            "or lookaround (search the plain part, then read the file)"
        ) from None
