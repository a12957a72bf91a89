"""A review session's state as the diff viewer shows it: accepted, pending and rejected hunks
of each file in one list, placed by their line in the index version, and a one-line summary."""

from __future__ import annotations

import re

from cursorish.core.review import Decision, ReviewFile, is_whole_file
from cursorish.tui.diff_model import ACCEPTED, PENDING, REJECTED, ViewFile, ViewHunk

_HEADER_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)")


def _start(header: str, side: int) -> int:
    m = _HEADER_RE.match(header)
    return int(m.group(side)) if m else 0


def session_view_files(files: list[ReviewFile], decisions: list[Decision]) -> list[ViewFile]:
    """What a session holds, as the viewer shows it: per file, accepted and pending hunks with
    their lines and rejected hunks collapsed to their header and reason, in file order."""
    rejected: dict[str, list[Decision]] = {}
    for d in decisions:
        if d.decision == REJECTED:
            rejected.setdefault(d.path, []).append(d)
    out: list[ViewFile] = []
    for rf in files:
        out.append(_view_file(rf, rejected.pop(rf.path, [])))
    # A file whose every hunk was rejected is back to its accepted state and gone from the
    # diff; it stays listed so the rejection can be seen (and undone).
    for path, ds in sorted(rejected.items()):
        hunks = tuple(ViewHunk(d.hunk_id, d.header, REJECTED, reason=d.reason) for d in ds)
        out.append(ViewFile(path, None, "M", False, hunks))
    out.sort(key=lambda vf: vf.path)
    return out


def _view_file(rf: ReviewFile, rejected: list[Decision]) -> ViewFile:
    # Accepted hunks are base -> index and pending ones index -> worktree: both are placed by
    # their line number in the index version, the one coordinate they share. At one place, a
    # rejected hunk comes before the pending one that replaced it (an agent's revision).
    keyed: list[tuple[int, int, ViewHunk]] = []
    for order, (state, diff) in ((0, (ACCEPTED, rf.accepted)), (2, (PENDING, rf.pending))):
        if diff is None:
            continue
        for h in diff.hunks:
            where = h.new_start if state == ACCEPTED else h.old_start
            hunk = ViewHunk(h.id, h.header, state, h.lines, whole_file=is_whole_file(h))
            keyed.append((where, order, hunk))
    for d in rejected:
        hunk = ViewHunk(d.hunk_id, d.header, REJECTED, (), d.reason)
        keyed.append((_start(d.header, 1), 1, hunk))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return ViewFile(rf.path, rf.old_path, rf.status, rf.binary, tuple(h for _, _, h in keyed))


def summary(files: list[ViewFile]) -> str:
    pending = sum(f.count(PENDING) for f in files)
    accepted = sum(f.count(ACCEPTED) for f in files)
    rejected = sum(f.count(REJECTED) for f in files)
    added = sum(f.added for f in files)
    deleted = sum(f.deleted for f in files)
    return (
        f"{len(files)} file{'s' * (len(files) != 1)} +{added} -{deleted} · {pending} pending · "
        f"{accepted} accepted · {rejected} rejected"
    )
