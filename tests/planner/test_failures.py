"""What counts as a stream that ended before its finish reason, whichever litellm raised it."""

from __future__ import annotations

import httpx

from cursorish.planner.failures import stream_ended_early


def _wrapped(inner: BaseException) -> BaseException:
    # litellm wraps the transport's error in its own, keeping the first as the cause.
    try:
        try:
            raise inner
        except BaseException as first:
            raise RuntimeError("litellm.APIConnectionError: connection error") from first
    except RuntimeError as outer:
        return outer


def test_litellms_end_of_stream_error_is_a_stream_that_ended_early() -> None:
    eof = httpx.RemoteProtocolError("Stream ended before a finish_reason was received")
    assert stream_ended_early(_wrapped(eof))


def test_a_dropped_connection_is_not() -> None:
    dropped = httpx.RemoteProtocolError("peer closed connection without sending complete message")
    assert not stream_ended_early(_wrapped(dropped))
