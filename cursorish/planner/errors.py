"""The planner's errors: each final failure is a `PlannerError` subclass whose message tells
the user what failed, where (model, provider, api_base) and what to check."""

from __future__ import annotations

from collections.abc import Callable

from cursorish.errors import CursorishError, ExitCode
from cursorish.planner.failures import Failure
from cursorish.planner.settings import PlannerSettings


class PlannerError(CursorishError):
    """A planner call failed for good (after any retries)."""

    def __init__(self, message: str, *, status: int | None = None, retries: int = 0) -> None:
        super().__init__(message, ExitCode.PLANNER_FAILED)
        self.status = status
        self.retries = retries


class PlannerAuthError(PlannerError):
    """401/403: a missing or wrong API key. Never retried."""


class PlannerRateLimitError(PlannerError):
    """429 on every attempt."""


class PlannerUnavailableError(PlannerError):
    """5xx or the endpoint could not be reached, on every attempt."""


class PlannerBadResponseError(PlannerError):
    """The endpoint answered with something that is not a valid completion."""


class PlannerTimeoutError(PlannerError):
    """No answer (or the stream stalled) within the timeout, on every attempt."""


class PlannerRequestError(PlannerError):
    """4xx other than auth/rate limit: unknown model, context too long, bad parameters."""


def error_for(
    failure: Failure,
    settings: PlannerSettings,
    provider: str,
    retries: int,
    key_hint: Callable[[], str],
) -> PlannerError:
    """The error the user sees for a failure that is not retried (again)."""
    s = settings
    where = f"model {s.model!r} (provider {provider or 'unknown'}"
    where += f", api_base {s.api_base})" if s.api_base else ")"
    status = f" (HTTP {failure.status})" if failure.status else ""
    tries = f" after {retries} retries" if retries else ""
    detail = f": {failure.detail}" if failure.detail else ""
    kind = failure.kind
    if kind == "auth":
        key = key_hint()
        return PlannerAuthError(
            f"Planner authentication failed{status} for {where}{detail}. Check {key}.",
            status=failure.status,
        )
    if kind == "rate_limit":
        return PlannerRateLimitError(
            f"Planner rate-limited{status} by {where}{tries}{detail}. Wait and retry, "
            "run fewer agents at once, or check your plan's limits.",
            status=failure.status,
            retries=retries,
        )
    if kind == "timeout":
        return PlannerTimeoutError(
            f"Planner timed out ({s.timeout_s:g} s without an answer) for {where}{tries}. "
            "Check that the endpoint is up, or raise the planner timeout.",
            status=failure.status,
            retries=retries,
        )
    if kind == "connection":
        target = s.api_base or f"the {provider or 'provider'} API"
        return PlannerUnavailableError(
            f"Planner unreachable: could not connect to {target} for {where}{tries}"
            f"{detail}. Check the network, a proxy, or that the server is running.",
            status=None,
            retries=retries,
        )
    if kind == "unavailable":
        return PlannerUnavailableError(
            f"Planner unavailable{status} for {where}{tries}{detail}. "
            "The provider is failing; try again later.",
            status=failure.status,
            retries=retries,
        )
    if kind == "cut":
        return PlannerBadResponseError(
            f"Planner answer incomplete from {where}{tries}{detail}. Check the network and "
            "any proxy in between, and that api_base streams (text/event-stream).",
            status=failure.status,
            retries=retries,
        )
    if kind == "bad_response":
        return PlannerBadResponseError(
            f"Planner sent a malformed response for {where}{detail}. "
            "Check that api_base points at an OpenAI-compatible endpoint.",
            status=failure.status,
            retries=retries,
        )
    if kind == "request":
        return PlannerRequestError(
            f"Planner rejected the request{status} for {where}{detail}. "
            "Check the model name and the context length.",
            status=failure.status,
            retries=retries,
        )
    return PlannerError(
        f"Planner call failed for {where}{detail}.", status=failure.status, retries=retries
    )
