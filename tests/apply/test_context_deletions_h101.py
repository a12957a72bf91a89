"""Deletions a context-shaped sketch shows only by leaving lines out between two context lines:
where a context line recurs, the merge can take the copy that keeps the deleted code. What the
kept code leaves behind (a name the sketch stopped importing) tells the reading is wrong."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

URL = """\
from urllib.parse import (SplitResult, parse_qsl, quote,
                          quote_plus, unquote, urlencode)


class URL:
    @classmethod
    def _encode_query_param(cls, val, safe=''):
        val = val.replace('%', '%25')
        return quote_plus(val, safe)

    @classmethod
    def _encode_query(cls, query):
        ret = urlencode(query, quote_via=cls._encode_query_param)
        return ret.encode('ascii')

    def split(self, text):
        return SplitResult(*parse_qsl(unquote(quote(text))))
"""

URL_SKETCH = """\
from urllib.parse import (SplitResult, parse_qsl, quote,
                          unquote, urlencode)

# ... existing code ...
class URL:
    # ... existing code ...
    @classmethod
    def _encode_query(cls, query):
        return urlencode(query).encode('ascii')

# ... existing code ...
"""


def test_a_name_dropped_from_a_parenthesized_import_but_still_called_is_refused() -> None:
    # The reading that keeps `_encode_query_param` (the second `@classmethod` taken as the
    # context line) leaves `quote_plus` called with its import gone.
    kept = URL.replace("quote_plus, unquote", "unquote")
    kept = kept.replace(
        "        ret = urlencode(query, quote_via=cls._encode_query_param)\n"
        "        return ret.encode('ascii')\n",
        "        return urlencode(query).encode('ascii')\n",
    )
    problem = verify_merge(URL, URL_SKETCH, kept, path="url.py")
    assert problem is not None
    assert "'quote_plus'" in problem


def test_the_merge_does_not_keep_code_calling_a_name_the_sketch_stopped_importing() -> None:
    outcome = merge(URL, URL_SKETCH, path="url.py")
    if isinstance(outcome, Merged):
        assert "quote_plus" not in outcome.text
    else:
        assert isinstance(outcome, Refused)


SYNC = """\
from typing import Callable
from typing_extensions import ParamSpec

P = ParamSpec("P")


def run(func: Callable[P, None]) -> None:
    func()
"""

SYNC_SKETCH = """\
from typing import (
    Callable,
    ParamSpec,
)

P = ParamSpec("P")
# ... existing code ...
"""


def test_a_name_moved_into_a_parenthesized_import_is_still_imported() -> None:
    outcome = merge(SYNC, SYNC_SKETCH, path="sync.py")
    assert isinstance(outcome, Merged), outcome
    assert "from typing_extensions" not in outcome.text
    assert "    ParamSpec,\n" in outcome.text
