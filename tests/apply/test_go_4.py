"""Go sketches (round 6, fresh set of zap, testify, hcl, fiber), each from a small made-up
example of one general shape: the merge must give the intended file or refuse (never another
file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

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
