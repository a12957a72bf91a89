"""A sketch that moves code out of a block and shows that block's end after it: the chunk's
last line recurs (before and after the moved lines), and the later copy is meant, so the
moved lines go from their old place instead of staying there twice."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

EXCEPTIONS = '''\
import typing


class HTTPError(Exception):
    """
    Base class for `RequestError` and `HTTPStatusError`.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)


class RequestError(HTTPError):
    """
    Base class for all exceptions that may occur when issuing a `.request()`.
    """

    def __init__(self, message: str, *, request: "Request" = None) -> None:
        super().__init__(message)
        # The request is set later on, by the client that sends it, so that
        # every raised exception has a `.request` property set on it.
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
    """
    Base class for all exceptions that occur at the level of the Transport API.
    """
'''

# The `request` property moves up into `HTTPError`; the chunk after the marker ends on
# `self._request = request` with the two blank lines that end the class: the setter's copy.
SKETCH = """\
# ...
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self._request: typing.Optional["Request"] = None

    @property
    def request(self) -> "Request":
        if self._request is None:
            raise RuntimeError("The .request property has not been set.")
        return self._request

    @request.setter
    def request(self, request: "Request") -> None:
        self._request = request


# ...
        # The request is set later on, by the client that sends it, so that
        # every raised exception has a `.request` property set on it.
        self._request = request


# ...
"""

MOVED = """
    @property
    def request(self) -> "Request":
        if self._request is None:
            raise RuntimeError("The .request property has not been set.")
        return self._request

    @request.setter
    def request(self, request: "Request") -> None:
        self._request = request
"""


def test_moved_block_leaves_the_block_whose_end_the_chunk_shows() -> None:
    result = merge(EXCEPTIONS, SKETCH, path="httpx/_exceptions.py")
    assert isinstance(result, Merged), result
    expected = EXCEPTIONS.replace(MOVED, "").replace(
        "        super().__init__(message)\n\n\nclass RequestError",
        "        super().__init__(message)\n"
        + '        self._request: typing.Optional["Request"] = None\n'
        + MOVED
        + "\n\nclass RequestError",
    )
    assert result.text == expected
