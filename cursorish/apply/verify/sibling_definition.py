"""A definition the merge writes over one of another name, as its rename, where the new
definition is a sibling adapted from a copy: its name swaps one part of the old name
(`QueryOptions` -> `MutationOptions`) and its body swaps that part the same way in a name
(`QueryApi` -> `MutationApi`) while the file keeps both names of that pair. A file that has
both families adds the sibling beside the old definition as often as it renames it; the
sketch, which shows deletions by leaving lines out, does not tell which."""

from __future__ import annotations

import re

from cursorish.apply.lines import shared_ends
from cursorish.apply.verify.dead_definitions import _DEFINITION, _end

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def _headers(lines: list[str], lang: str) -> dict[str, int]:
    """Name -> line of each top-level definition the pattern finds (the first of a name)."""
    pattern = _DEFINITION.get(lang)
    found: dict[str, int] = {}
    if pattern is None:
        return found
    for j, line in enumerate(lines):
        if not line or line[0].isspace():
            continue
        match = pattern.match(line)
        if match and (name := match.group(1) or match.group(2)):
            found.setdefault(name, j)
    return found


def _words(lines: list[str], start: int, headers: dict[str, int]) -> set[str]:
    """The names a definition writes, from its header to the next top-level definition (its
    own end where that is earlier: a `}` at its depth)."""
    end = min((j for j in headers.values() if j > start), default=len(lines))
    end = max(end, _end(lines, start))
    return {w for line in lines[start:end] for w in _IDENT.findall(line)}


def _swapped_part(old: str, new: str) -> tuple[str, str] | None:
    """The parts (`Query`, `Mutation`) that make `new` of `old`, the rest kept (a shared start
    and end of three characters at least together), each part three characters at least."""
    p, s = shared_ends(old, new)
    was, now = old[p : len(old) - s], new[p : len(new) - s]
    if p + s < 3 or len(was) < 3 or len(now) < 3:
        return None
    return was, now


def _sibling_over_definition(
    before: list[str], after: list[str], lang: str, shown: set[str]
) -> str | None:
    """The first definition the merge removes in favour of a sibling it writes (see above)."""
    pattern = _DEFINITION.get(lang)
    if pattern is None:
        return None
    # An added definition's header is a line the original does not hold (were it there, its
    # name would be among the original's): without such a line, no need to read both files.
    if not any(
        line and not line[0].isspace() and pattern.match(line)
        for line in set(after).difference(before)
    ):
        return None
    old = _headers(before, lang)
    new = _headers(after, lang)
    gone = [name for name in old if name not in new]
    added = [name for name in new if name not in old]
    if not gone or not added:
        return None  # most merges: cheap
    sketch_words = {w for line in shown for w in _IDENT.findall(line)}
    file_words = {w for line in before for w in _IDENT.findall(line)}
    kept_words = {w for line in after for w in _IDENT.findall(line)}
    for name in gone:
        if name in sketch_words:
            continue
        old_body = _words(before, old[name], old)
        for other in added:
            swap = _swapped_part(name, other)
            if swap is None:
                continue
            was, now = swap
            for word in _words(after, new[other], new) - old_body:
                if word == other or now not in word or word not in file_words:
                    continue
                back = word.replace(now, was, 1)
                if back in old_body and back in kept_words:
                    return (
                        f"the merge writes {other!r} over {name!r} as its rename, but {other!r} "
                        f"swaps {was!r} for {now!r} in {back!r} too, and the file keeps both: "
                        f"a sibling the sketch may add beside {name!r}"
                    )
    return None
