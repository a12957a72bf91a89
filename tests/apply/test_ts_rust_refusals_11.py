"""Issue 17, round 11: TypeScript and Rust refusals where the sketch tells its reading.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

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


COMPLETE = """use crate::candidate::Candidate;

fn complete_values(value: &str, completer: &Completer) -> Vec<Candidate> {
    debug!("complete_values: value={value:?}");

    let mut values = Vec::new();
    let found = completer.candidates();
    values.extend(found);

    values.retain(|c| c.get_value().starts_with(value));

    values
}

fn complete_names(value: &str, names: &[String]) -> Vec<Candidate> {
    names
        .iter()
        .filter(|n| n.starts_with(value))
        .map(Candidate::new)
        .collect()
}
"""

COMPLETE_SKETCH = """// ... existing code ...
fn complete_values(value: &str, completer: &Completer) -> Vec<Candidate> {
    // ... existing code ...

    let mut values = completer.candidates();
    values.retain(|c| c.get_value().starts_with(value));
    values
}
// ... existing code ...
"""


def test_blank_line_opening_a_chunk_is_the_one_before_the_declaration_it_rewrites() -> None:
    """The chunk opens on a blank line, then declares `values` anew right before the lines it
    keeps: the original's declaration of `values` opens the lines after an earlier blank line
    of the block, so that blank line is the sketch's, and the lines between are rewritten
    (read as the nearest blank line, the old declaration would stay beside the new one)."""
    expected = COMPLETE.replace(
        "    let mut values = Vec::new();\n"
        "    let found = completer.candidates();\n"
        "    values.extend(found);\n"
        "\n"
        "    values.retain(|c| c.get_value().starts_with(value));\n"
        "\n",
        "    let mut values = completer.candidates();\n"
        "    values.retain(|c| c.get_value().starts_with(value));\n",
    )
    result = merge(COMPLETE, COMPLETE_SKETCH, path="complete.rs")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_blank_line_before_other_code_than_the_declaration_tells_nothing() -> None:
    """Where other code sits between the earlier blank line and the old declaration, that code
    might as well stay under the marker (the sketch's blank line new): refused."""
    original = COMPLETE.replace(
        "    let mut values = Vec::new();\n",
        "    let limit = 10;\n    let mut values = Vec::new();\n",
    )
    result = merge(original, COMPLETE_SKETCH, path="complete.rs")
    assert isinstance(result, Refused), result


CLIENT = """export class Client {
\tconstructor(options: Options) {
\t\tthis.options = options;

\t\tif (supportsAbort) {
\t\t\tthis.controller = new AbortController();
\t\t\tif (this.options.signal) {
\t\t\t\tconst outer = this.options.signal;

\t\t\t\tthis.options.signal.addEventListener('abort', () => {
\t\t\t\t\tthis.controller.abort(outer.reason);
\t\t\t\t});
\t\t\t}

\t\t\tthis.options.signal = this.controller.signal;
\t\t}
\t}
}
"""


def test_blank_line_closing_a_chunk_ends_the_statement_its_new_lines_rewrite() -> None:
    """The chunk's new lines, then a blank line and a marker, write again a telling line of the
    `if` statement right after the chunk's last match: the blank line is the one that ends
    that statement, which the new lines rewrite (read as an insertion, the old statement
    would stay with the line the sketch moved out of it)."""
    sketch = (
        "// ... existing code ...\n"
        "\t\t\tthis.controller = new AbortController();\n"
        "\t\t\tconst outer = this.options.signal ?? this.input.signal;\n"
        "\t\t\touter?.addEventListener('abort', () => {\n"
        "\t\t\t\tthis.controller.abort(outer.reason);\n"
        "\t\t\t});\n"
        "\n"
        "\t\t\t// ... existing code ...\n"
    )
    start = CLIENT.index("\t\t\tif (this.options.signal) {\n")
    end = CLIENT.index("\n\t\t\tthis.options.signal = this.controller.signal;")
    expected = (
        CLIENT[:start] + "\t\t\tconst outer = this.options.signal ?? this.input.signal;\n"
        "\t\t\touter?.addEventListener('abort', () => {\n"
        "\t\t\t\tthis.controller.abort(outer.reason);\n"
        "\t\t\t});\n" + CLIENT[end:]
    )
    result = merge(CLIENT, sketch, path="client.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_blank_line_closing_an_insertion_does_not_take_the_next_statement() -> None:
    """New lines that write nothing of the statement after the chunk's last match are an
    insertion before it: the blank line the sketch shows is no reason to delete that
    statement up to the next blank line (refused: the blank line is not there)."""
    original = (
        "export class Client {\n"
        "\tconstructor(options: Options) {\n"
        "\t\tthis.options = options;\n"
        "\t\tif (this.options.retry) {\n"
        "\t\t\tthis.retries = this.options.retry.limit;\n"
        "\t\t}\n"
        "\n"
        "\t\tthis.ready = true;\n"
        "\t}\n"
        "}\n"
    )
    sketch = (
        "// ... existing code ...\n"
        "\t\tthis.options = options;\n"
        "\t\tthis.startedAt = Date.now();\n"
        "\n"
        "\t\t// ... existing code ...\n"
    )
    result = merge(original, sketch, path="client.ts")
    assert isinstance(result, Refused), result


STORE = """export function createStore<T>(createState: () => T) {
  let state = createState()
  const listeners: Set<Listener> = new Set()

  const getState: () => T = () => state

  const subscribe: (listener: Listener) => () => void = (listener) => {
    listeners.add(listener)
    return () => listeners.delete(listener)
  }

  return { getState, subscribe }
}
"""


def test_blank_line_opening_a_chunk_passes_blank_lines_between_rewritten_declarations() -> None:
    """The chunk's new lines declare two names, a blank line between them, as the original
    does: the sketch's first blank line is the one before the first of the two declarations
    (taking the one between them would keep `getState` declared twice)."""
    sketch = (
        "// ... existing code ...\n"
        "\n"
        "  const getState: StoreApi<T>['getState'] = () => state\n"
        "\n"
        "  const subscribe: StoreApi<T>['subscribe'] = (listener) => {\n"
        "    listeners.add(listener)\n"
        "// ... existing code ...\n"
    )
    expected = STORE.replace(
        "const getState: () => T = ", "const getState: StoreApi<T>['getState'] = "
    ).replace(
        "const subscribe: (listener: Listener) => () => void = ",
        "const subscribe: StoreApi<T>['subscribe'] = ",
    )
    result = merge(STORE, sketch, path="store.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected
