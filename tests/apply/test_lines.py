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
