"""A doc comment deleted with an edit of the declaration it documents."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

DEP = """\
import { targetMap } from './state'

export function track(target: object, key: unknown): void {
  const depsMap = targetMap.get(target)
  if (depsMap) {
    depsMap.get(key)?.track()
  }
}

/**
 * Test only
 */
export function getDep(
  object: any,
  key: string | number | symbol,
): Dep | undefined {
  // eslint-disable-next-line
  return targetMap.get(object)?.get(key)
}
"""

# The sketch shows the closer of `track` and, right after it, `getDep`'s unchanged header
# with a new body: it edits `getDep`, and with nothing between that closer and the header,
# the doc comment above it goes. (Code written new above a declaration it copies would leave
# the old declaration's body whole.)
DEP_SKETCH = """\
// ... existing code ...
  }
}

export function getDep(
  object: any,
  key: string | number | symbol,
): Dep | undefined {
  const depMap = targetMap.get(object)
  return depMap && depMap.get(key)
}
"""


def test_a_doc_comment_goes_with_an_edit_of_what_it_documents() -> None:
    outcome = merge(DEP, DEP_SKETCH, path="dep.ts")
    assert isinstance(outcome, Merged), outcome
    expected = DEP.replace("/**\n * Test only\n */\n", "").replace(
        "  // eslint-disable-next-line\n  return targetMap.get(object)?.get(key)\n",
        "  const depMap = targetMap.get(object)\n  return depMap && depMap.get(key)\n",
    )
    assert outcome.text == expected
