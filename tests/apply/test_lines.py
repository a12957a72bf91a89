"""The shared line helpers of `cursorish.apply.lines`."""

from __future__ import annotations

from cursorish.apply.lines import shared_ends


def test_shared_ends_counts_the_common_start_and_end() -> None:
    assert shared_ends(["a", "b", "x", "c"], ["a", "b", "y", "z", "c"]) == (2, 1)


def test_shared_ends_end_never_reaches_into_the_shared_start() -> None:
    # "aa" against "aaa": the start takes both, so only one is left for the end.
    assert shared_ends("aa", "aaa") == (2, 0)


def test_shared_ends_of_unlike_sequences_is_nothing() -> None:
    assert shared_ends("Query", "Mutation") == (0, 0)


def test_parent_of_one_line_is_what_parents_gives_it() -> None:
    from cursorish.apply.blocks import parent_of, parents

    lines = [
        "class A:",
        "    def f(self):",
        "        return 1",
        "",
        "    def g(self):",
        "        if x:",
        "            pass",
        "}",
        "    def h(self):",
    ]
    assert [parent_of(lines, j) for j in range(len(lines))] == parents(lines)
    # The `}` at column 0 closed class A: h's nearest less-indented line is not A any more.
    assert parent_of(lines, 8) == -1
