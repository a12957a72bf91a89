"""Issue 17, round 11: TypeScript and Rust refusals where the sketch tells its reading.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

MERGE_ALL = """import {isObject} from './is.js';

export function mergeAll(sources: Source[]): Result {
\tlet result: Result = {};
\tconst signals: AbortSignal[] = [];

\tfor (const source of sources) {
\t\tfor (const [key, value] of Object.entries(source)) {
\t\t\tif (key === 'signal') {
\t\t\t\tsignals.push(value);
\t\t\t\tcontinue;
\t\t\t}

\t\t\tresult = {...result, [key]: value};
\t\t}

\t\tif (isObject(source.headers)) {
\t\t\tresult.headers = source.headers;
\t\t}
\t}

\treturn result;
}
"""


def test_closer_of_a_new_block_is_not_the_closer_of_the_block_the_marker_keeps() -> None:
    """The chunk after a deep marker writes a new `if` block whose `}` matches the loop's
    closing line: that `}` closes the new block, so the loop's own `}` (and the loop's lines
    the marker stands for) stay, and the new block goes before the `return`."""
    sketch = (
        "// ... existing code ...\n"
        "\t\t\tif (key === 'signal') {\n"
        "\t\t\t\t// ... existing code ...\n"
        "\n"
        "\tif (signals.length > 0) {\n"
        "\t\tif (signals.length === 1) {\n"
        "\t\t\tresult.signal = signals[0];\n"
        "\t\t} else {\n"
        "\t\t\tresult.signal = AbortSignal.any(signals);\n"
        "\t\t}\n"
        "\t}\n"
        "\n"
        "\treturn result;\n"
        "}\n"
    )
    added = (
        "\tif (signals.length > 0) {\n"
        "\t\tif (signals.length === 1) {\n"
        "\t\t\tresult.signal = signals[0];\n"
        "\t\t} else {\n"
        "\t\t\tresult.signal = AbortSignal.any(signals);\n"
        "\t\t}\n"
        "\t}\n"
        "\n"
    )
    expected = MERGE_ALL.replace("\treturn result;\n", added + "\treturn result;\n")
    result = merge(MERGE_ALL, sketch, path="merge.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected
