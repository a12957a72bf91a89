"""The planner client: one chat-completion turn (text + tool calls) through litellm.

`Planner.complete` sends the conversation and tool schemas to any model litellm speaks
to, streams the answer (text deltas go to `on_text` as they arrive, tool-call deltas are
assembled by index), and returns a `PlannerReply` with usage and cost. It owns the retry
policy: rate limits (429, honouring Retry-After), 5xx, connection errors and timeouts are
retried with exponential backoff and jitter; litellm's and the OpenAI SDK's own retries
are switched off (``num_retries=0``, ``max_retries=0``) so this loop is the only one.
Every final failure is a `PlannerError` subclass with a message meant for the user.

The parts live beside it: `settings` (how to reach the model), `attempt` (one request,
read whole or streamed), `failures` (what went wrong, and whether to retry), `errors`
(what the user is told), `reply` (what a turn returns). The names callers use are
re-exported here.

Importing this module does not import litellm (seconds of start-up); the first call does.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cursorish.planner.attempt import CallbackError, streamed, whole
from cursorish.planner.errors import (
    PlannerAuthError,
    PlannerBadResponseError,
    PlannerError,
    PlannerRateLimitError,
    PlannerRequestError,
    PlannerTimeoutError,
    PlannerUnavailableError,
    error_for,
)
from cursorish.planner.failures import Failure, classify
from cursorish.planner.litellm_loader import load_litellm
from cursorish.planner.reply import PlannerReply, ToolCall, Usage
from cursorish.planner.settings import DUMMY_API_KEY, PlannerSettings, key_variable

__all__ = [
    "DUMMY_API_KEY",
    "Planner",
    "PlannerAuthError",
    "PlannerBadResponseError",
    "PlannerError",
    "PlannerRateLimitError",
    "PlannerReply",
    "PlannerRequestError",
    "PlannerSettings",
    "PlannerTimeoutError",
    "PlannerUnavailableError",
    "ToolCall",
    "Usage",
    "key_variable",
]

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class Planner:
    """Talks to one planner model. Safe to share between agents on one asyncio loop.

    Model naming: a model string is passed to litellm as written
    (``anthropic/claude-sonnet-4-5``, ``openai/gpt-5``, ``ollama/qwen2.5-coder``, or a
    bare ``gpt-5`` that litellm maps itself). When ``api_base`` is set and the model has
    no litellm provider prefix (``qwen2.5-coder``, or ``Qwen/Qwen2.5-Coder`` whose
    ``Qwen`` is not a provider), it is sent as ``openai/<model>``: litellm's convention
    for "an OpenAI-compatible server at api_base", which sends ``<model>`` verbatim.
    For that route the key is ``api_key`` if given, else ``OPENAI_API_KEY``, else a
    dummy key (local servers ignore it; a server that wants one answers 401, reported
    as `PlannerAuthError`).
    """

    def __init__(self, settings: PlannerSettings) -> None:
        self.settings = settings
        self._model: str | None = None  # resolved on first call (needs litellm)
        self._provider = ""

    @property
    def model(self) -> str:
        """The model string as sent to litellm (resolved on first use)."""
        if self._model is None:
            self._resolve()
        assert self._model is not None
        return self._model

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None] | None = None,
    ) -> PlannerReply:
        """One assistant turn. On a retry after a partly streamed answer, `on_text`
        receives the new attempt's text from the start."""
        litellm = load_litellm()
        _bypass_proxy_for_localhost()
        model = self.model
        s = self.settings
        started = time.monotonic()
        request = self._request(model, messages, tools)
        attempt = 0
        while True:
            try:
                if s.stream:
                    reply = await streamed(litellm, request, on_text, self._price, s.timeout_s)
                else:
                    reply = await whole(litellm, request, on_text, self._price)
            except CallbackError as exc:
                raise exc.original from None  # the caller's bug, not the planner's
            except Exception as exc:  # litellm, openai, httpx and aiohttp all raise their own
                failure = classify(exc)
                if not failure.retryable or attempt >= s.max_retries:
                    raise self._error(failure, attempt) from None
                await asyncio.sleep(self._delay(attempt, failure.retry_after_s))
                attempt += 1
                continue
            return replace(reply, elapsed_s=time.monotonic() - started, retries=attempt)

    # -- the request -----------------------------------------------------------------

    def _request(
        self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "timeout": s.timeout_s,
            # Ours is the only retry loop: litellm's wrapper and the OpenAI SDK (2 by
            # default) would otherwise retry underneath it and multiply the attempts.
            "num_retries": 0,
            "max_retries": 0,
            # e.g. gpt-5 accepts no temperature: drop what a provider does not support.
            "drop_params": True,
        }
        if tools:
            kwargs["tools"] = tools
        if s.api_base:
            kwargs["api_base"] = s.api_base
        api_key = s.api_key
        if (
            api_key is None
            and s.api_base
            and self._provider == "openai"
            and not os.environ.get("OPENAI_API_KEY")
        ):
            api_key = DUMMY_API_KEY
        if api_key is not None:
            kwargs["api_key"] = api_key
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        if s.max_tokens is not None:
            kwargs["max_tokens"] = s.max_tokens
        if s.extra_headers:
            kwargs["extra_headers"] = dict(s.extra_headers)
        return kwargs

    # -- helpers ----------------------------------------------------------------------

    def _resolve(self) -> None:
        litellm = load_litellm()
        model = self.settings.model
        prefix = model.split("/", 1)[0] if "/" in model else ""
        if self.settings.api_base and prefix not in litellm.provider_list:
            model = f"openai/{model}"
        try:
            _, provider, _, _ = litellm.get_llm_provider(model)
        except Exception:  # an unknown model: litellm will say so on the call itself
            provider = prefix or "unknown"
        self._model = model
        self._provider = str(provider)

    def _price(self, prompt: int, completion: int, response: Any) -> float:
        """USD for this turn by litellm's price table; 0.0 for models it does not know."""
        litellm = load_litellm()
        try:
            if response is not None:
                return float(
                    litellm.completion_cost(completion_response=response, model=self._model)
                )
            p, c = litellm.cost_per_token(
                model=self._model, prompt_tokens=prompt, completion_tokens=completion
            )
            return float(p) + float(c)
        except Exception:  # ModelNotMappedError and friends: no price known
            return 0.0

    def _delay(self, attempt: int, retry_after_s: float | None) -> float:
        s = self.settings
        if retry_after_s is not None:
            return max(0.0, min(retry_after_s, s.retry_after_max_s))
        backoff: float = min(s.backoff_max_s, s.backoff_base_s * (2.0**attempt))
        return backoff * random.uniform(0.5, 1.0)  # jitter: agents must not retry in lockstep

    def _error(self, failure: Failure, retries: int) -> PlannerError:
        return error_for(failure, self.settings, self._provider, retries, self._key_hint)

    def _key_hint(self) -> str:
        s = self.settings
        if s.api_key is not None:
            return "the api_key in the planner configuration"
        if s.api_base and self._provider == "openai":
            return f"the api_key for {s.api_base} (planner config api_key, or OPENAI_API_KEY)"
        return f"{key_variable(self._provider, self.model)} (or api_key in the planner config)"


def _bypass_proxy_for_localhost() -> None:
    """With HTTP(S)_PROXY set, keep local endpoints (the scripted server, Ollama) direct."""
    if not any(
        os.environ.get(v) for v in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    ):
        return
    for var in ("NO_PROXY", "no_proxy"):
        current = [h.strip() for h in os.environ.get(var, "").split(",") if h.strip()]
        missing = [h for h in _LOCAL_HOSTS if h not in current]
        if missing:
            os.environ[var] = ",".join(current + missing)
