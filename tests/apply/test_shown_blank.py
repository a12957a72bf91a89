"""A blank line the sketch shows between a marker and a kept original line.

A chunk that opens (ends) with a blank line at its marker, then an original line kept as it is,
says the original line next to that one is blank. Where the original has other lines there, up
to its nearest blank line, the sketch deletes them: the merge drops them rather than keeping
lines the sketch shows nothing between (which the verifier refuses).
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

PY = """import os


def to_text(value):
    if value is True:
        return "true"
    elif value is None:
        return ""
    elif isinstance(value, (str, float, int)):
        return str(value)
    raise TypeError(
        f"Expected str, int, float, bool, or None. Got {type(value).__name__!r}."
    )


def other():
    return os.sep
"""


def test_blank_line_before_the_marker_deletes_the_lines_up_to_the_blank_one() -> None:
    sketch = (
        "# ... existing code ...\n"
        '        return ""\n'
        "    return str(value)\n"
        "\n"
        "# ... existing code ...\n"
    )
    result = merge(PY, sketch, path="utils.py")
    assert isinstance(result, Merged), result
    assert result.text == PY.replace(
        "    elif isinstance(value, (str, float, int)):\n        return str(value)\n"
        "    raise TypeError(\n"
        '        f"Expected str, int, float, bool, or None. Got {type(value).__name__!r}."\n'
        "    )\n",
        "    return str(value)\n",
    )


GO = """package config

import (
	"bytes"
	"io"

	_ "net/http/pprof"
	"github.com/hashicorp/hcl"
	"github.com/spf13/cast"
)

func read(in io.Reader) string {
	buf := new(bytes.Buffer)
	buf.ReadFrom(in)
	return cast.ToString(hcl.Parse) + buf.String()
}
"""


def test_blank_line_after_the_marker_deletes_the_lines_back_to_the_blank_one() -> None:
    sketch = '// ...\n\n\t"github.com/hashicorp/hcl"\n\t"github.com/spf13/cast"\n// ...\n'
    result = merge(GO, sketch, path="util.go")
    assert isinstance(result, Merged), result
    assert result.text == GO.replace('\t_ "net/http/pprof"\n', "")


def test_a_gone_line_the_chunk_writes_again_rewritten_stays_refused() -> None:
    """The chunk rewrites the gone import further down: it moves or rewrites that line, and
    the blank line says nothing about where the lines around it went."""
    sketch = (
        "// ...\n"
        "\n"
        '\t"github.com/hashicorp/hcl"\n'
        '\t_ "net/http/pprof/v2"\n'
        '\t"github.com/spf13/cast"\n'
        "// ...\n"
    )
    result = merge(GO, sketch, path="util.go")
    assert isinstance(result, Refused), result
