"""Issue 17, round 4: refusals where the sketch does decide the merge.

Each rule names the evidence that tells one reading from its rivals, and each keeps refusing
where that evidence is even.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Two functions with the same guarded call; only the first one logs its failure.
STORE = """package store

import (
	"errors"
	"log"
	"os"
)

func Save(dir string) (err error) {
	if dir != "" {
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			log.Println(err)
		}
	}
	return
}

func SaveNew(dir string) (err error) {
	if dir != "" {
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			return
		}
	}
	return
}
"""

# The sketch drops the `log` import and rewrites the guarded call, without saying where.
STORE_SKETCH = """// ... existing code ...
"errors"
"os"
// ... existing code ...
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			return errors.Join(err, os.ErrExist)
		}
	}
// ... existing code ...
"""


def test_a_reading_that_leaves_a_removed_import_used_is_no_reading() -> None:
    # Placed in SaveNew, the merge keeps `log.Println` with its import gone: it cannot compile.
    result = merge(STORE, STORE_SKETCH, path="store.go")
    assert isinstance(result, Merged), result
    expected = STORE.replace('\t"log"\n', "").replace(
        "log.Println(err)", "return errors.Join(err, os.ErrExist)"
    )
    assert result.text == expected


def test_with_the_import_kept_the_two_places_stay_a_tie() -> None:
    sketch = STORE_SKETCH.replace('"errors"\n"os"\n', '"errors"\n"log"\n"os"\n')
    assert isinstance(merge(STORE, sketch, path="store.go"), Refused)
