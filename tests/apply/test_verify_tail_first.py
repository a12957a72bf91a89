"""The verifier lines a chunk whose last line recurs up with the later copy where that
explains a deletion: the lines between the copies sit between two of the chunk's lines, which
the sketch shows next to each other."""

from __future__ import annotations

from cursorish.apply.verify import verify_merge

ORIGINAL = """\
class RequestError(HTTPError):
    def __init__(self, message: str, *, request: "Request" = None) -> None:
        super().__init__(message)
        # Set later on, by the client that sends the request.
        self._request = request

    @property
    def request(self) -> "Request":
        if self._request is None:
            raise RuntimeError("The .request property has not been set.")
        return self._request

    @request.setter
    def request(self, request: "Request") -> None:
        self._request = request


class TransportError(RequestError):
    pass
"""

SKETCH = """\
# ...
        # Set later on, by the client that sends the request.
        self._request = request


# ...
"""

# The property goes: `self._request = request` is the setter's line, the last of the class.
MERGED = """\
class RequestError(HTTPError):
    def __init__(self, message: str, *, request: "Request" = None) -> None:
        super().__init__(message)
        # Set later on, by the client that sends the request.
        self._request = request


class TransportError(RequestError):
    pass
"""


def test_deletion_between_a_chunk_line_and_the_later_copy_of_its_last() -> None:
    assert verify_merge(ORIGINAL, SKETCH, MERGED, path="httpx/_exceptions.py") is None
