"""Growing a chunk's match forward over equal closers stops at one that closes a block the
chunk opens itself with another line than the original's."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Many small functions: a bare `}` is then too common a line to place a chunk by.
_HELPERS = "".join(f"\nfunc helper{n}(m *Model) {{\n\tm.count += {n}\n}}\n" for n in range(45))

VIEWPORT = (
    """\
package viewport

func (m Model) Update(msg Msg) (Model, Cmd) {
	var cmd Cmd
	switch msg := msg.(type) {
	case MouseMsg:
		switch msg.Button {
		case WheelUp:
			lines := m.ScrollUp(m.MouseWheelDelta)
			if m.HighPerformanceRendering {
				cmd = ViewUp(m, lines)
			}
		case WheelDown:
			lines := m.ScrollDown(m.MouseWheelDelta)
			if m.HighPerformanceRendering {
				cmd = ViewDown(m, lines)
			}
		}
	}

	return m, cmd
}
"""
    + _HELPERS
)

# Each case's body moves into the `else` of a new `if msg.Shift`: the sketch's `\t\t\t}` after
# `cmd = ViewDown` closes that new `else`, not the original `switch msg.Button`, whose `\t\t}`
# is the chunk's last line; the `\t}` of the type switch stays under the marker.
VIEWPORT_SKETCH = """\
// ... existing code ...
func (m Model) Update(msg Msg) (Model, Cmd) {
		// ... existing code ...
		case WheelUp:
			if msg.Shift {
				m.ScrollLeft(m.step)
			} else {
				lines := m.ScrollUp(m.MouseWheelDelta)
				if m.HighPerformanceRendering {
					cmd = ViewUp(m, lines)
				}
			}
		case WheelDown:
			if msg.Shift {
				m.ScrollRight(m.step)
			} else {
				lines := m.ScrollDown(m.MouseWheelDelta)
				if m.HighPerformanceRendering {
					cmd = ViewDown(m, lines)
				}
			}
		case WheelLeft:
			m.ScrollLeft(m.step)
		}
	// ... existing code ...
"""


def test_a_closer_of_a_new_block_does_not_take_the_originals() -> None:
    outcome = merge(VIEWPORT, VIEWPORT_SKETCH, path="viewport.go")
    assert isinstance(outcome, Merged), outcome
    old_body = VIEWPORT[VIEWPORT.index("\t\tcase WheelUp:") : VIEWPORT.index("\t\t}\n\t}\n")]
    new_body = VIEWPORT_SKETCH[
        VIEWPORT_SKETCH.index("\t\tcase WheelUp:") : VIEWPORT_SKETCH.index("\t\t}\n\t// ...")
    ]
    assert outcome.text == VIEWPORT.replace(old_body, new_body)
