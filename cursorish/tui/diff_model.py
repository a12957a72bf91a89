"""What the diff viewer shows, as data: files and hunks with their review state (`ViewFile`,
`ViewHunk`), and the flat list of display rows they are laid out in (`DiffLayout`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cursorish.gitops.hunks import DiffLine, FileDiff, count_lines

PENDING = "pending"
ACCEPTED = "accepted"
REJECTED = "rejected"

MARKERS = {PENDING: "•", ACCEPTED: "✓", REJECTED: "✗"}

# Row kinds of the flat display list.
FILE, HUNK, LINE, BINARY, COLLAPSED, BLANK = range(6)


@dataclass(frozen=True)
class ViewHunk:
    """One hunk as the viewer shows it. `lines` is empty for a collapsed (rejected) hunk and
    for a binary file's whole-file pseudo-hunk; `id` is "" when the file has no hunk id."""

    id: str
    header: str
    state: str  # PENDING | ACCEPTED | REJECTED
    lines: tuple[DiffLine, ...] = ()
    reason: str = ""
    whole_file: bool = False  # binary, pure rename or mode change: one decision per file

    @property
    def added(self) -> int:
        return count_lines(self.lines, "+")

    @property
    def deleted(self) -> int:
        return count_lines(self.lines, "-")


@dataclass(frozen=True)
class ViewFile:
    path: str
    old_path: str | None
    status: str  # A M D R C T
    binary: bool
    hunks: tuple[ViewHunk, ...]

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks if h.state != REJECTED)

    @property
    def deleted(self) -> int:
        return sum(h.deleted for h in self.hunks if h.state != REJECTED)

    def count(self, state: str) -> int:
        return sum(1 for h in self.hunks if h.state == state)


def view_files(diffs: Iterable[FileDiff], state: str = PENDING) -> list[ViewFile]:
    """FileDiffs (e.g. from `gitops.hunks.diff_files`) as ViewFiles, every hunk in `state`."""
    out: list[ViewFile] = []
    for diff in diffs:
        hunks = tuple(ViewHunk(h.id, h.header, state, h.lines) for h in diff.hunks)
        if not hunks:
            hunks = (ViewHunk("", "", state, whole_file=True),)
        out.append(ViewFile(diff.path, diff.old_path, diff.status, diff.binary, hunks))
    return out


@dataclass(frozen=True)
class DiffLayout:
    """Files flattened into display rows, with the indexes the cursor and drawing need."""

    rows: list[tuple[int, int, int, int]]  # (kind, file, hunk-in-file, line)
    row_hunk: list[int]  # flat hunk index of each row, -1 for none
    hunk_refs: list[tuple[int, int]]  # flat hunk -> (file, hunk-in-file)
    hunk_spans: list[tuple[int, int]]  # flat hunk -> (first row, end row)
    file_rows: list[int]  # file -> row of its header
    file_first_hunk: list[int]  # file -> flat index of its first hunk, -1
    number_width: int  # digits of the largest line number (at least 3)
    widest: int  # the longest code line, for the horizontal scroll range

    @classmethod
    def of(cls, files: Sequence[ViewFile]) -> DiffLayout:
        rows: list[tuple[int, int, int, int]] = []
        row_hunk: list[int] = []
        refs: list[tuple[int, int]] = []
        spans: list[tuple[int, int]] = []
        file_rows: list[int] = []
        first_hunk: list[int] = []
        biggest = 0
        widest = 0
        for fi, vf in enumerate(files):
            if fi:
                rows.append((BLANK, fi, -1, -1))
                row_hunk.append(-1)
            file_rows.append(len(rows))
            first_hunk.append(len(refs) if vf.hunks else -1)
            rows.append((FILE, fi, -1, -1))
            row_hunk.append(-1)
            for hi, hunk in enumerate(vf.hunks):
                flat = len(refs)
                refs.append((fi, hi))
                start = len(rows)
                if hunk.whole_file and not hunk.lines:
                    rows.append((BINARY, fi, hi, -1))
                    row_hunk.append(flat)
                elif not hunk.lines:
                    rows.append((COLLAPSED, fi, hi, -1))
                    row_hunk.append(flat)
                else:
                    rows.append((HUNK, fi, hi, -1))
                    row_hunk.append(flat)
                    for li, line in enumerate(hunk.lines):
                        rows.append((LINE, fi, hi, li))
                        row_hunk.append(flat)
                        number = line.new_no if line.new_no is not None else line.old_no or 0
                        biggest = max(biggest, number)
                        # len() is the cell width for ASCII; wide characters only make the
                        # horizontal scroll range a little short, never wrong otherwise.
                        widest = max(widest, len(line.text))
                spans.append((start, len(rows)))
        return cls(
            rows, row_hunk, refs, spans, file_rows, first_hunk, max(3, len(str(biggest))), widest
        )
