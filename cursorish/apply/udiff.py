"""Unified diffs: hunks located by their context (line numbers are only a tie-breaker)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cursorish.apply.lazy import RefusedMerge
from cursorish.apply.lines import SourceFile, key
from cursorish.apply.sketch import HUNK_RE


@dataclass
class Hunk:
    line: int  # sketch line of the @@ header (0-based)
    start: int | None  # 0-based original line the header names, if it names one
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)


def parse_hunks(lines: list[str]) -> list[Hunk]:
    """Hunks of a unified diff; file headers and `\\ No newline` notes are skipped."""
    hunks: list[Hunk] = []
    current: Hunk | None = None
    for number, line in enumerate(lines):
        match = HUNK_RE.match(line)
        if match:
            start = int(match.group(1)) - 1 if match.group(1) else None
            current = Hunk(number, max(start, 0) if start is not None else None)
            hunks.append(current)
            continue
        if line.startswith(("--- ", "+++ ", "diff ", "index ")) and (
            current is None or (not current.old and not current.new)
        ):
            continue
        if current is None or line.startswith("\\"):
            continue
        if line.startswith("+"):
            current.new.append(line[1:])
        elif line.startswith("-"):
            current.old.append(line[1:])
        else:
            # Planners often drop the space in front of blank context lines.
            text = line[1:] if line.startswith(" ") else line
            current.old.append(text)
            current.new.append(text)
    if not hunks and lines:
        # `---`/`+++` headers without @@: one hunk of the whole body.
        body = [x for x in lines if not x.startswith(("--- ", "+++ ", "diff ", "index "))]
        hunks = parse_hunks(["@@", *body]) if body else []
    return hunks


def _find(lines: list[str], old: list[str], start: int) -> list[int]:
    size = len(old)
    for compare in (lambda x: x.rstrip(), key):
        target = [compare(x) for x in old]
        hits = [
            j
            for j in range(start, len(lines) - size + 1)
            if compare(lines[j]) == target[0]
            and [compare(x) for x in lines[j : j + size]] == target
        ]
        if hits:
            return hits
    return []


def merge_udiff(source: SourceFile, lines: list[str]) -> str:
    """Apply every hunk in order; refuse when a hunk's context is missing or ambiguous."""
    hunks = parse_hunks(lines)
    if not hunks or not any(h.old or h.new for h in hunks):
        raise RefusedMerge("the diff has no hunks")
    current = [source.original_piece(j) for j in range(len(source.lines))]
    texts = list(source.lines)
    offset = 0  # how far earlier hunks moved the lines after them
    floor = 0
    for hunk in hunks:
        # Trailing blank context is often made up by planners; do not let it block a match.
        old, new = list(hunk.old), list(hunk.new)
        while old and new and not old[-1].strip() and not new[-1].strip():
            old.pop()
            new.pop()
        if not old:
            if hunk.start is None:
                raise RefusedMerge(
                    f"sketch line {hunk.line + 1}: a hunk without context or line number"
                )
            at = min(hunk.start + offset, len(texts))
        else:
            hits = _find(texts, old, floor)
            if not hits:
                raise RefusedMerge(
                    f"sketch line {hunk.line + 1}: the hunk's old lines do not occur in the file"
                )
            if len(hits) > 1:
                expected = hunk.start + offset if hunk.start is not None else None
                if expected is None or expected not in hits:
                    where = ", ".join(str(h + 1) for h in hits[:5])
                    raise RefusedMerge(
                        f"sketch line {hunk.line + 1}: the hunk matches {len(hits)} places "
                        f"(lines {where})"
                    )
                hits = [expected]
            at = hits[0]
        pieces: list[tuple[str, str | None]] = []
        for index, line in enumerate(new):
            if (
                index < len(old)
                and at + index < len(current)
                and texts[at + index].rstrip() == line.rstrip()
            ):
                pieces.append(current[at + index])
            else:
                pieces.append((line, None))
        current[at : at + len(old)] = pieces
        texts[at : at + len(old)] = new
        offset += len(new) - len(old)
        floor = at + len(new)
    return source.render(current)
