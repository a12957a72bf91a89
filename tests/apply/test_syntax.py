"""The syntax check's fast path: parsing only the top-level statements around a merge's
changes must judge exactly as parsing both whole files does."""

from __future__ import annotations

import random

import pytest

from cursorish.apply.syntax import Aligned, new_errors
from cursorish.apply.verify.alignment import _diff, _lines, changed_rows
from tests.apply.heldout import UNSEEN, pairs


def _both_ways(original: str, merged: str, lang: str) -> tuple[str | None, str | None]:
    before, after = _lines(original), _lines(merged)
    old_of = _diff(before, after)
    changed = changed_rows(old_of, len(before))
    fast = new_errors(original, merged, lang, changed, Aligned(before, after, old_of))
    whole = new_errors(original, merged, lang, changed)
    return fast, whole


def test_deleting_a_comment_opener_is_an_error_though_the_lines_around_it_parse() -> None:
    original = "package main\n\n/* old\nfunc a() {}\n*/\n\nfunc b() {\n\tx := 1\n}\n"
    merged = original.replace("/* old\n", "")
    fast, whole = _both_ways(original, merged, "go")
    assert fast is not None and "syntax error" in fast
    assert fast == whole


def test_deleting_a_string_closer_is_an_error_though_the_new_lines_parse_alone() -> None:
    """The lines around the deletion parse alone in the result; the original's lines there do
    not (the closer is among them), so the whole files decide."""
    original = "package main\n\nvar s = `\nfunc a() {}\n`\nfunc b() {}\n"
    merged = original.replace("`\nfunc b", "func b")
    fast, whole = _both_ways(original, merged, "go")
    assert fast is not None and "syntax error" in fast
    assert fast == whole


def test_a_clean_edit_of_one_function_passes() -> None:
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    merged = original.replace("return 2", "return 3")
    assert _both_ways(original, merged, "python") == (None, None)


_BREAKERS = ["{", "}", '"""', "/*", "*/", "`", ")", "fn x(", "'"]


@pytest.mark.parametrize("seed", range(3))
def test_the_fast_path_judges_as_the_whole_parse_on_real_files(seed: int) -> None:
    """Real files of other projects, each edited at random places: lines deleted, duplicated,
    or a line that opens or closes a bracket, string or comment inserted."""
    rng = random.Random(seed)
    chosen = rng.sample(pairs(UNSEEN), 25)
    checked = 0
    for pair in chosen:
        lines = pair["original"].split("\n")
        for _ in range(4):
            edited = list(lines)
            for _edit in range(rng.randint(1, 3)):
                at = rng.randrange(len(edited))
                kind = rng.randrange(3)
                if kind == 0:
                    del edited[at]
                elif kind == 1:
                    edited.insert(at, edited[at])
                else:
                    edited.insert(at, rng.choice(_BREAKERS))
            merged = "\n".join(edited)
            fast, whole = _both_ways(pair["original"], merged, pair["lang"])
            assert (fast is None) == (whole is None), (pair["id"], fast, whole)
            checked += 1
    assert checked == 100
