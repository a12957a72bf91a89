"""Go sketches (round 6, fresh set of zap, testify, hcl, fiber), each from a small made-up
example of one general shape: the merge must give the intended file or refuse (never another
file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Three look-alike checks share their boilerplate lines (the guard, the call, the error
# branch). A sketch adds a fourth check with one line of context around it: lined up over the
# check before it, the new one would read as that check renamed, anchored only by lines the
# file writes in every check. Those lines anchor no rename: the new check goes in beside
# the others, and none of them is lost.
_CHECKS = """package probe

import "fmt"

// IsUp reports whether the service answers at all.
func IsUp(t Tester, addr string) bool {
\tif h, ok := t.(helper); ok {
\t\th.Helper()
\t}
\tcode, err := fetch(addr)
\tif err != nil {
\t\tt.Errorf("fetch failed: %s", err)
\t\treturn false
\t}
\treturn code > 0
}

// IsHealthy reports whether the service answers with a success code.
func IsHealthy(t Tester, addr string) bool {
\tif h, ok := t.(helper); ok {
\t\th.Helper()
\t}
\tcode, err := fetch(addr)
\tif err != nil {
\t\tt.Errorf("fetch failed: %s", err)
\t\treturn false
\t}
\treturn code < 400
}

// IsDown reports whether the service answers with a server error.
func IsDown(t Tester, addr string) bool {
\tif h, ok := t.(helper); ok {
\t\th.Helper()
\t}
\tcode, err := fetch(addr)
\tif err != nil {
\t\tt.Errorf("fetch failed: %s", err)
\t\treturn false
\t}
\treturn code >= 500
}

// fetch returns the status code of one request.
func fetch(addr string) (int, error) {
\treturn 0, fmt.Errorf("not implemented: %s", addr)
}
"""

_NEW_CHECK = """
// IsMoved reports whether the service redirects.
func IsMoved(t Tester, addr string) bool {
\tif h, ok := t.(helper); ok {
\t\th.Helper()
\t}
\tcode, err := fetch(addr)
\tif err != nil {
\t\tt.Errorf("fetch failed: %s", err)
\t\treturn false
\t}
\treturn code >= 300 && code < 400
}
"""


def test_a_new_check_beside_look_alikes_is_not_read_as_a_rename() -> None:
    sketch = (
        "// ... code before this block unchanged ...\n"
        + _NEW_CHECK
        + "\n// fetch returns the status code of one request.\n"
        "// ... rest of the file unchanged ...\n"
    )
    cut = _CHECKS.index("// fetch returns")
    expected = _CHECKS[:cut] + _NEW_CHECK.lstrip("\n") + "\n" + _CHECKS[cut:]
    outcome = merge(_CHECKS, sketch, path="probe/checks.go")
    assert isinstance(outcome, Merged)
    assert outcome.text == expected


# A method only this file calls (`sampled`, lower case) whose one call the sketch takes out,
# inlining its body: whether the method goes too is not said, so keeping it is a guess.
_SAMPLER = """package limit

type sampler struct {
\tfirst uint64
\tseen  uint64
}

func (s *sampler) Allow(name string) bool {
\tif s.sampled(name) {
\t\treturn true
\t}
\treturn false
}

func (s *sampler) sampled(name string) bool {
\ts.seen++
\treturn s.seen <= s.first
}

func (s *sampler) Reset() {
\ts.seen = 0
}
"""


def test_a_method_left_without_its_last_call_is_refused() -> None:
    sketch = (
        "func (s *sampler) Allow(name string) bool {\n"
        "\ts.seen += 1\n"
        "\tif s.seen > s.first {\n"
        "\t\treturn false\n"
        "\t}\n"
        "\treturn true\n"
        "}\n"
    )
    outcome = merge(_SAMPLER, sketch, path="limit/sampler.go")
    assert isinstance(outcome, Refused)
    assert "sampled" in outcome.reason


# A sketch with markers at both edges that writes blank lines where the code has them (here
# in its first chunk) shows the lines of each stretch it rewrites as they are to be: where
# another of its chunks writes two original lines one right after the other, with only a
# blank line between them in the original, that blank line goes.
_RUNNER = """package runner

func Run(jobs []Job) error {
\tif len(jobs) == 0 {
\t\treturn nil
\t}

\tqueue := make(chan Job, len(jobs))
\tfor _, job := range jobs {
\t\tqueue <- job
\t}
\tclose(queue)

\tfor job := range queue {
\t\tif err := job.Do(); err != nil {
\t\t\treturn err
\t\t}
\t}
\treturn nil
}
"""


def test_a_careful_sketch_that_joins_two_lines_drops_the_blank_between() -> None:
    sketch = (
        "// ... existing code ...\n"
        "\tif len(jobs) == 0 {\n"
        "\t\treturn errNoJobs\n"
        "\t}\n"
        "\n"
        "\tqueue := make(chan Job, len(jobs))\n"
        "// ... existing code ...\n"
        "\tclose(queue)\n"
        "\tfor job := range queue {\n"
        "// ... existing code ...\n"
    )
    expected = _RUNNER.replace("\t\treturn nil\n\t}\n\n", "\t\treturn errNoJobs\n\t}\n\n").replace(
        "\tclose(queue)\n\n", "\tclose(queue)\n"
    )
    outcome = merge(_RUNNER, sketch, path="runner/run.go")
    assert isinstance(outcome, Merged)
    assert outcome.text == expected


# The sketch takes out the last use of an imported package and writes a comment that names
# the package: a comment uses nothing, so the import the marker keeps has lost every use,
# and whether it goes too is not said.
_JOINER = """package text

import (
\t"fmt"
\t"strings"
)

func Join(parts []string) string {
\treturn strings.Join(parts, ",")
}

func Show(parts []string) {
\tfmt.Println(Join(parts))
}
"""


def test_an_import_whose_last_use_goes_is_not_kept_by_a_comment_naming_it() -> None:
    sketch = (
        "// ... existing code ...\n"
        "func Join(parts []string) string {\n"
        "\t// Written by hand: strings.Join allocates twice here.\n"
        '\tout := ""\n'
        "\tfor i, part := range parts {\n"
        "\t\tif i > 0 {\n"
        '\t\t\tout += ","\n'
        "\t\t}\n"
        "\t\tout += part\n"
        "\t}\n"
        "\treturn out\n"
        "}\n"
        "// ... existing code ...\n"
    )
    outcome = merge(_JOINER, sketch, path="text/join.go")
    assert isinstance(outcome, Refused)
    assert "strings" in outcome.reason
