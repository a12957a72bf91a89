from __future__ import annotations

from cursorish.apply.align import Index, candidates
from cursorish.apply.lines import key


def placements(original: list[str], chunk: list[str]) -> list[list[tuple[int, int]]]:
    index = Index([key(line) for line in original], original)
    return [p.pairs for p in candidates([key(line) for line in chunk], chunk, index)]


def test_a_brace_at_another_depth_is_no_anchor() -> None:
    # `}` says only how deep it is: one tab deeper it closes another block.
    assert placements(["a {", "\tb {", "\t}", "}"], ["\t\t}"]) == []


def test_a_brace_at_the_chunks_edge_does_not_pay_for_deleting_lines() -> None:
    # The chunk's first line `\t}` could be the `\t}` five lines up, deleting the lines
    # between; a brace is too little evidence for that: the chain starts at the wordy lines.
    original = [
        "func f() {",
        "\tif a {",
        "\t\tx()",
        "\t}",
        "\tone()",
        "\ttwo()",
        "\tthree()",
        "\tfour()",
        "\tfive()",
        "\tkeep_going()",
        "\tand_return()",
        "}",
    ]
    chunk = ["\t}", "\tnew_call()", "\tkeep_going()", "\tand_return()"]
    assert placements(original, chunk)[0] == [(2, 9), (3, 10)]
