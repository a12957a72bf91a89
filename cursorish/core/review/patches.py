"""Hunks as a review decides them: whole-file pseudo-hunks (a binary file, a mode change, an
empty file added or deleted, a pure rename), patches that apply one hunk of a renamed file, and
a stored patch rendered as the diff the agent reads in its feedback.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace

from cursorish.gitops.hunks import FileDiff, Hunk, parse_diff

FEEDBACK_MAX_LINES = 60  # per rejected hunk shown to the agent
_HUNK_HEAD_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def whole_file(f: FileDiff) -> FileDiff:
    """`f` with its hunks folded into one pseudo-hunk when it is decided as a whole."""
    mode_change = b"\nold mode " in b"\n" + f.header
    if f.hunks and not f.binary and not mode_change:
        return f
    if f.binary:
        what = {"A": "added", "D": "deleted"}.get(f.status, "changed")
        label = f"binary file {what}"
    elif mode_change:
        label = "mode change " + _modes(f.header)
    elif f.status == "R":
        label = f"renamed from {f.old_path}"
    elif f.status == "A":
        label = "new empty file"
    elif f.status == "D":
        label = "deleted empty file"
    else:
        label = "whole-file change"
    digest = hashlib.sha1(b"file\0" + os.fsencode(f.path) + b"\0" + f.header, usedforsecurity=False)
    first = f.hunks[0] if f.hunks else None
    pseudo = Hunk(
        id=digest.hexdigest()[:8],
        path=f.path,
        header=label,
        old_start=first.old_start if first else 0,
        old_count=sum(h.old_count for h in f.hunks),
        new_start=first.new_start if first else 0,
        new_count=sum(h.new_count for h in f.hunks),
        # dict: a context line two chunks share is shown once
        lines=tuple(dict.fromkeys(line for h in f.hunks for line in h.lines)),
        raw=f.body,  # git's own hunks: chunks cut from one hunk share context lines
    )
    return replace(f, hunks=(pseudo,))


def _modes(header: bytes) -> str:
    old = re.search(rb"(?m)^old mode (\d+)", header)
    new = re.search(rb"(?m)^new mode (\d+)", header)
    if old and new:
        return f"{old.group(1).decode()} -> {new.group(1).decode()}"
    return ""


def plain_header(f: FileDiff) -> bytes:
    """A header patching `f` under its new name only (no rename, no mode lines), with git's
    own quoting of the name taken from the `+++` line."""
    plus = next(ln for ln in f.header.splitlines() if ln.startswith(b"+++ "))
    name = plus[4:]
    tab = b"\t" if name.endswith(b"\t") else b""
    name = name[: len(name) - len(tab)]
    old = b'"a/' + name[3:] if name.startswith(b'"b/') else b"a/" + name[2:]
    return (
        b"diff --git " + old + b" " + name + b"\n--- " + old + tab + b"\n+++ " + name + tab + b"\n"
    )


def shift_hunk(raw: bytes, *, old: int, new: int) -> bytes:
    """The hunk with its `@@` start lines moved by `old` / `new` lines."""
    if not old and not new:
        return raw
    head, sep, body = raw.partition(b"\n")
    m = _HUNK_HEAD_RE.match(head)
    if m is None:  # pragma: no cover - parse_diff only makes hunks from such lines
        return raw
    old_count = int(m.group(2)) if m.group(2) is not None else 1
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    start_old, start_new = int(m.group(1)) + old, int(m.group(3)) + new
    line = b"@@ -%d,%d +%d,%d @@" % (start_old, old_count, start_new, new_count)
    return line + head[m.end() :] + sep + body


def render_patch(patch: bytes, header: str) -> str:
    """A stored patch as the diff lines the agent reads (capped)."""
    lines: list[str] = []
    for f in parse_diff(patch):
        for h in f.hunks:
            lines.append(h.header)
            lines += [line.kind + line.text for line in h.lines]
    if not lines:
        return f"(the whole file: {header})"
    if len(lines) > FEEDBACK_MAX_LINES:
        more = len(lines) - FEEDBACK_MAX_LINES
        lines = [*lines[:FEEDBACK_MAX_LINES], f"... ({more} more lines)"]
    return "```diff\n" + "\n".join(lines) + "\n```"
