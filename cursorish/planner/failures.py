"""Why a planner attempt failed: whatever litellm, openai, httpx or aiohttp raised, mapped to
one `Failure` kind that says whether to retry and how long the server asked to wait."""

from __future__ import annotations

import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import Any


class MalformedReply(Exception):
    pass


class CutReply(Exception):
    """A streamed answer that ended before its finish reason: retried like a dropped connection."""


@dataclass(frozen=True)
class Failure:
    # auth | rate_limit | timeout | connection | unavailable | cut | bad_response | request | other
    kind: str
    status: int | None
    detail: str
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "timeout", "connection", "unavailable", "cut")


_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?")


def classify(exc: BaseException) -> Failure:
    """Map whatever litellm raised to one failure kind.

    litellm reports a non-JSON body and a refused connection as InternalServerError with
    a made-up status 500, so the exception chain decides before the status does.
    """
    import openai  # loaded with litellm by now

    chain = _chain(exc)
    status = _status(exc)
    detail = _detail(exc)
    if isinstance(exc, CutReply):
        return Failure("cut", None, str(exc))
    if isinstance(exc, MalformedReply) or any(isinstance(e, json.JSONDecodeError) for e in chain):
        return Failure("bad_response", None, detail)
    if any(isinstance(e, (openai.APITimeoutError, TimeoutError)) for e in chain):
        return Failure("timeout", None, "")
    if status in (401, 403) or isinstance(
        exc, (openai.AuthenticationError, openai.PermissionDeniedError)
    ):
        return Failure("auth", status, detail)
    if status == 429 or isinstance(exc, openai.RateLimitError):
        return Failure("rate_limit", status or 429, detail, _retry_after(chain))
    if any(isinstance(e, (openai.APIConnectionError, ConnectionError)) for e in chain) or any(
        type(e).__name__ in ("ConnectError", "ClientConnectorError", "ServerDisconnectedError")
        for e in chain
    ):
        return Failure("connection", None, detail)
    if status is not None and status >= 500:
        return Failure("unavailable", status, detail)
    if status is not None and 400 <= status < 500:
        return Failure("request", status, detail)
    if isinstance(exc, openai.BadRequestError):
        return Failure("request", status, detail)
    return Failure("other", status, f"{type(exc).__name__}: {detail}")


# litellm 1.110 and later end a stream that closed without a finish reason with this error
# (an httpx.RemoteProtocolError, wrapped as a connection error) instead of a made-up "stop".
_ENDED_EARLY = "Stream ended before a finish_reason was received"


def stream_ended_early(exc: BaseException) -> bool:
    """Whether `exc` is litellm's word that a stream closed before its finish reason: what
    came is part of an answer (or no event stream at all), not a connection that failed."""
    return any(_ENDED_EARLY in str(e) for e in _chain(exc))


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or any(e is s for s in seen) or len(seen) > 20:
            continue
        seen.append(e)
        original = getattr(e, "original_exception", None)
        todo.extend([e.__cause__, e.__context__])
        if isinstance(original, BaseException):
            todo.append(original)
    return seen


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _detail(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc).strip()
    while (stripped := _PREFIX.sub("", text, count=1).strip()) != text:
        text = stripped  # litellm nests them: "litellm.X: X: OpenAIException - ..."
    text = text.split(" Original exception:", 1)[0].split("\n", 1)[0].rstrip(". ")
    return text if len(text) <= 300 else text[:299] + "…"


def _retry_after(chain: list[BaseException]) -> float | None:
    for e in chain:
        headers: Any = getattr(getattr(e, "response", None), "headers", None)
        if headers is None:
            headers = getattr(e, "litellm_response_headers", None)
        if headers is None:
            continue
        ms = headers.get("retry-after-ms")
        if ms is not None:
            try:
                return float(ms) / 1000.0
            except ValueError:
                pass
        value = headers.get("retry-after")
        if value is None:
            continue
        try:
            return float(value)
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            continue
    return None
