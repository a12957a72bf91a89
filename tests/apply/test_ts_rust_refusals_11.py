"""Issue 17, round 11: TypeScript and Rust refusals where the sketch tells its reading.

Each test's sketch is made up, but for the last, trimmed from a seen case (bubbles, help.go).
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


HELP_GO = """package help

import (
\t"strings"

\t"github.com/charmbracelet/bubbles/v2/key"
\ttea "github.com/charmbracelet/bubbletea/v2"
\t"github.com/charmbracelet/lipgloss"
)

// Styles is a set of available style definitions for the Help bubble.
type Styles struct {
\tEllipsis lipgloss.Style

\t// Styling for the short help
\tShortKey       lipgloss.Style
\tShortDesc      lipgloss.Style
\tShortSeparator lipgloss.Style

\t// Styling for the full help
\tFullKey       lipgloss.Style
\tFullDesc      lipgloss.Style
\tFullSeparator lipgloss.Style
}

// Model contains the state of the help view.
type Model struct {
\tWidth   int
\tShowAll bool // if true, render the "full" help menu

\tShortSeparator string
\tFullSeparator  string

\t// The symbol we use in the short help when help items have been truncated
\t// due to width. Periods of ellipsis by default.
\tEllipsis string

\tStyles Styles
}

// New creates a new help view with some useful defaults.
func New() Model {
\tkeyStyle := lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{
\t\tLight: "#909090",
\t\tDark:  "#626262",
\t})

\tdescStyle := lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{
\t\tLight: "#B2B2B2",
\t\tDark:  "#4A4A4A",
\t})

\tsepStyle := lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{
\t\tLight: "#DDDADA",
\t\tDark:  "#3C3C3C",
\t})

\treturn Model{
\t\tShortSeparator: " • ",
\t\tFullSeparator:  "    ",
\t\tEllipsis:       "…",
\t\tStyles: Styles{
\t\t\tShortKey:       keyStyle,
\t\t\tShortDesc:      descStyle,
\t\t\tShortSeparator: sepStyle,
\t\t\tEllipsis:       sepStyle,
\t\t\tFullKey:        keyStyle,
\t\t\tFullDesc:       descStyle,
\t\t\tFullSeparator:  sepStyle,
\t\t},
\t}
}
"""

HELP_GO_SKETCH = """/* ... unchanged code ... */

func newStyles(isDark bool) Styles {
\tlightDark := lipgloss.LightDark(isDark)

\tkeyStyle := lipgloss.NewStyle().Foreground(lightDark("#909090", "#626262"))
\tdescStyle := lipgloss.NewStyle().Foreground(lightDark("#B2B2B2", "#4A4A4A"))
\tsepStyle := lipgloss.NewStyle().Foreground(lightDark("#DADADA", "#3C3C3C"))

\treturn Styles{
\t\tShortKey:       keyStyle,
\t\tShortDesc:      descStyle,
\t\tShortSeparator: sepStyle,
\t\tEllipsis:       sepStyle,
\t\tFullKey:        keyStyle,
\t\tFullDesc:       descStyle,
\t\tFullSeparator:  sepStyle,
\t}
}

// DefaultDarkStyles returns a set of default styles for dark backgrounds.
func DefaultDarkStyles() Styles {
\treturn newStyles(true)
}

// DefaultLightStyles returns a set of default styles for light backgrounds.
func DefaultLightStyles() Styles {
\treturn newStyles(false)
}

// Model contains the state of the help view.
// ... unchanged code ...
func New() Model {
\treturn Model{
\t\t// ... existing code ...
\t\tEllipsis:       "…",
\t\tStyles:         DefaultDarkStyles(),
\t}
// ... rest of the file unchanged ...
"""

HELP_GO_EXPECTED = """package help

import (
\t"strings"

\t"github.com/charmbracelet/bubbles/v2/key"
\ttea "github.com/charmbracelet/bubbletea/v2"
\t"github.com/charmbracelet/lipgloss"
)

// Styles is a set of available style definitions for the Help bubble.
type Styles struct {
\tEllipsis lipgloss.Style

\t// Styling for the short help
\tShortKey       lipgloss.Style
\tShortDesc      lipgloss.Style
\tShortSeparator lipgloss.Style

\t// Styling for the full help
\tFullKey       lipgloss.Style
\tFullDesc      lipgloss.Style
\tFullSeparator lipgloss.Style
}

func newStyles(isDark bool) Styles {
\tlightDark := lipgloss.LightDark(isDark)

\tkeyStyle := lipgloss.NewStyle().Foreground(lightDark("#909090", "#626262"))
\tdescStyle := lipgloss.NewStyle().Foreground(lightDark("#B2B2B2", "#4A4A4A"))
\tsepStyle := lipgloss.NewStyle().Foreground(lightDark("#DADADA", "#3C3C3C"))

\treturn Styles{
\t\tShortKey:       keyStyle,
\t\tShortDesc:      descStyle,
\t\tShortSeparator: sepStyle,
\t\tEllipsis:       sepStyle,
\t\tFullKey:        keyStyle,
\t\tFullDesc:       descStyle,
\t\tFullSeparator:  sepStyle,
\t}
}

// DefaultDarkStyles returns a set of default styles for dark backgrounds.
func DefaultDarkStyles() Styles {
\treturn newStyles(true)
}

// DefaultLightStyles returns a set of default styles for light backgrounds.
func DefaultLightStyles() Styles {
\treturn newStyles(false)
}

// Model contains the state of the help view.
type Model struct {
\tWidth   int
\tShowAll bool // if true, render the "full" help menu

\tShortSeparator string
\tFullSeparator  string

\t// The symbol we use in the short help when help items have been truncated
\t// due to width. Periods of ellipsis by default.
\tEllipsis string

\tStyles Styles
}

// New creates a new help view with some useful defaults.
func New() Model {
\treturn Model{
\t\tShortSeparator: " • ",
\t\tFullSeparator:  "    ",
\t\tEllipsis:       "…",
\t\tStyles:         DefaultDarkStyles(),
\t}
}
"""


def test_closers_of_new_functions_tied_on_one_original_closer_are_no_rival_readings() -> None:
    """The chunk writes three new functions after the `Styles` struct, each ending on a `}`
    that matches the struct's own closing line as well as the others: each of those `}` closes
    a function the chunk opens, so no chain starting on one of them is a reading (taken as a
    rival, it would tie with the reading that writes the functions after the struct)."""
    result = merge(HELP_GO, HELP_GO_SKETCH, path="help.go")
    assert isinstance(result, Merged), result
    assert result.text == HELP_GO_EXPECTED
