"""The planner client: one chat-completion turn (text + tool calls) through litellm.

`Planner.complete` sends the conversation and tool schemas to any model litellm speaks
to, streams the answer (text deltas go to `on_text` as they arrive, tool-call deltas are
assembled by index), and returns a `PlannerReply` with usage and cost. It owns the retry
policy: rate limits (429, honouring Retry-After), 5xx, connection errors and timeouts are
retried with exponential backoff and jitter; litellm's and the OpenAI SDK's own retries
are switched off (``num_retries=0``, ``max_retries=0``) so this loop is the only one.
Every final failure is a `PlannerError` subclass with a message meant for the user.

Importing this module does not import litellm (seconds of start-up); the first call does.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cursorish.errors import CursorishError, ExitCode
from cursorish.planner.litellm_loader import load_litellm

# Used when an OpenAI-compatible api_base is given with no key: the OpenAI SDK refuses to
# send a request without one, and local servers (llama.cpp, vLLM, Ollama) ignore it.
DUMMY_API_KEY = "sk-cursorish-no-key"

_KEY_VARIABLES = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "text-completion-openai": "OPENAI_API_KEY",
    "azure": "AZURE_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "cohere_chat": "COHERE_API_KEY",
}
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


# -- results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it (may be invalid JSON!)


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class PlannerReply:
    content: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    finish_reason: str | None
    model: str
    elapsed_s: float
    retries: int


# -- errors -----------------------------------------------------------------------------


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


# -- settings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannerSettings:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0  # per attempt: to the response head, and between stream chunks
    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    retry_after_max_s: float = 120.0  # a longer Retry-After is cut to this
    stream: bool = True
    temperature: float | None = None
    max_tokens: int | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict)


# -- the client -------------------------------------------------------------------------


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
        attempt = 0
        while True:
            try:
                if s.stream:
                    reply = await self._streamed(litellm, model, messages, tools, on_text)
                else:
                    reply = await self._whole(litellm, model, messages, tools, on_text)
            except _CallbackError as exc:
                raise exc.original from None  # the caller's bug, not the planner's
            except Exception as exc:  # litellm, openai, httpx and aiohttp all raise their own
                failure = _classify(exc)
                if not failure.retryable or attempt >= s.max_retries:
                    raise self._error(failure, attempt) from None
                await asyncio.sleep(self._delay(attempt, failure.retry_after_s))
                attempt += 1
                continue
            return replace(reply, elapsed_s=time.monotonic() - started, retries=attempt)

    # -- one attempt ----------------------------------------------------------------

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

    async def _whole(
        self,
        litellm: Any,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None] | None,
    ) -> PlannerReply:
        response = await litellm.acompletion(**self._request(model, messages, tools))
        if not response.choices:
            raise _MalformedReply("the response has no choices")
        choice = response.choices[0]
        message = choice.message
        content = message.content or ""
        if content and on_text is not None:
            _emit(on_text, content)
        calls = tuple(
            ToolCall(
                id=call.id or f"call_{i}",
                name=call.function.name or "",
                arguments=call.function.arguments or "",
            )
            for i, call in enumerate(message.tool_calls or ())
        )
        prompt, completion = _token_counts(getattr(response, "usage", None))
        cost = self._cost(litellm, prompt, completion, response)
        return PlannerReply(
            content=content,
            tool_calls=calls,
            usage=Usage(prompt, completion, cost),
            finish_reason=choice.finish_reason,
            model=str(getattr(response, "model", None) or model),
            elapsed_s=0.0,
            retries=0,
        )

    async def _streamed(
        self,
        litellm: Any,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None] | None,
    ) -> PlannerReply:
        request = self._request(model, messages, tools)
        request["stream"] = True
        request["stream_options"] = {"include_usage": True}
        stream = await litellm.acompletion(**request)
        text: list[str] = []
        calls: dict[int, _PartialCall] = {}
        finish: str | None = None
        usage_obj: Any = None
        reply_model: str | None = None
        chunks = stream.__aiter__()
        while True:
            try:
                # A stalled stream is a timeout too, not just a slow response head.
                chunk = await asyncio.wait_for(chunks.__anext__(), self.settings.timeout_s)
            except StopAsyncIteration:
                break
            reply_model = reply_model or getattr(chunk, "model", None)
            if getattr(chunk, "usage", None) is not None:
                usage_obj = chunk.usage
            for choice in getattr(chunk, "choices", None) or ():
                if choice.finish_reason:
                    finish = choice.finish_reason
                delta = choice.delta
                if delta is None:
                    continue
                if delta.content:
                    text.append(delta.content)
                    if on_text is not None:
                        _emit(on_text, delta.content)
                for tc in delta.tool_calls or ():
                    _merge_call_delta(calls, tc)
        # litellm ends every stream with a finish reason, making up "stop" when the provider sent
        # none; its wrapper remembers whether one really came. None came: the body ended early
        # (a dropped connection) or was no event stream at all, and what arrived is only part
        # of the answer, never to be taken for the whole of it.
        if hasattr(stream, "received_finish_reason"):
            mid = getattr(stream, "intermittent_finish_reason", None)
            sent = stream.received_finish_reason or mid
        else:
            sent = finish
        if not sent:
            raise _CutReply(
                f"the answer ended without a finish reason after {len(''.join(text))} characters "
                f"and {len(calls)} tool call(s): the stream was cut off, or the endpoint did not "
                "answer with an event stream"
            )
        prompt, completion = _token_counts(usage_obj)
        cost = self._cost(litellm, prompt, completion, None)
        return PlannerReply(
            content="".join(text),
            tool_calls=tuple(calls[i].finish(i) for i in sorted(calls)),
            usage=Usage(prompt, completion, cost),
            finish_reason=finish,
            model=str(reply_model or model),
            elapsed_s=0.0,
            retries=0,
        )

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

    def _cost(self, litellm: Any, prompt: int, completion: int, response: Any) -> float:
        """USD for this turn by litellm's price table; 0.0 for models it does not know."""
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

    def _error(self, failure: _Failure, retries: int) -> PlannerError:
        s = self.settings
        where = f"model {s.model!r} (provider {self._provider or 'unknown'}"
        where += f", api_base {s.api_base})" if s.api_base else ")"
        status = f" (HTTP {failure.status})" if failure.status else ""
        tries = f" after {retries} retries" if retries else ""
        detail = f": {failure.detail}" if failure.detail else ""
        kind = failure.kind
        if kind == "auth":
            key = self._key_hint()
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
            target = s.api_base or f"the {self._provider or 'provider'} API"
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

    def _key_hint(self) -> str:
        s = self.settings
        if s.api_key is not None:
            return "the api_key in the planner configuration"
        if s.api_base and self._provider == "openai":
            return f"the api_key for {s.api_base} (planner config api_key, or OPENAI_API_KEY)"
        return f"{key_variable(self._provider, self.model)} (or api_key in the planner config)"


def key_variable(provider: str, model: str | None = None) -> str:
    """The environment variable that holds the API key for a litellm provider."""
    if provider in _KEY_VARIABLES:
        return _KEY_VARIABLES[provider]
    if model:
        try:
            missing = load_litellm().validate_environment(model=model).get("missing_keys", [])
            keys = [k for k in missing if k.endswith(("_KEY", "_TOKEN"))]
            if keys:
                return str(keys[0])
        except Exception:  # no env knowledge for this provider: fall back to the convention
            pass
    return f"{provider.upper() or 'PROVIDER'}_API_KEY"


# -- stream assembly ------------------------------------------------------------------


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def finish(self, index: int) -> ToolCall:
        return ToolCall(self.id or f"call_{index}", self.name, "".join(self.arguments))


def _merge_call_delta(calls: dict[int, _PartialCall], tc: Any) -> None:
    index = getattr(tc, "index", None)
    call_id = getattr(tc, "id", None)
    if index is None:  # some providers omit it: a new id starts a new call
        known = [i for i, c in calls.items() if call_id and c.id == call_id]
        if known:
            index = known[0]
        elif call_id or not calls:
            index = len(calls)
        else:
            index = max(calls)
    part = calls.setdefault(int(index), _PartialCall())
    if call_id:
        part.id = call_id
    fn = getattr(tc, "function", None)
    if fn is not None:
        if getattr(fn, "name", None):
            part.name = fn.name
        if getattr(fn, "arguments", None):
            part.arguments.append(fn.arguments)


def _token_counts(usage: Any) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
    return int(get("prompt_tokens", 0) or 0), int(get("completion_tokens", 0) or 0)


class _CallbackError(Exception):
    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def _emit(on_text: Callable[[str], None], text: str) -> None:
    try:
        on_text(text)
    except Exception as exc:
        raise _CallbackError(exc) from exc


class _MalformedReply(Exception):
    pass


class _CutReply(Exception):
    """A streamed answer that ended before its finish reason: retried like a dropped connection."""


# -- error classification -------------------------------------------------------------


@dataclass(frozen=True)
class _Failure:
    # auth | rate_limit | timeout | connection | unavailable | cut | bad_response | request | other
    kind: str
    status: int | None
    detail: str
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "timeout", "connection", "unavailable", "cut")


_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?")


def _classify(exc: BaseException) -> _Failure:
    """Map whatever litellm raised to one failure kind.

    litellm reports a non-JSON body and a refused connection as InternalServerError with
    a made-up status 500, so the exception chain decides before the status does.
    """
    import openai  # loaded with litellm by now

    chain = _chain(exc)
    status = _status(exc)
    detail = _detail(exc)
    if isinstance(exc, _CutReply):
        return _Failure("cut", None, str(exc))
    if isinstance(exc, _MalformedReply) or any(isinstance(e, json.JSONDecodeError) for e in chain):
        return _Failure("bad_response", None, detail)
    if any(isinstance(e, (openai.APITimeoutError, TimeoutError)) for e in chain):
        return _Failure("timeout", None, "")
    if status in (401, 403) or isinstance(
        exc, (openai.AuthenticationError, openai.PermissionDeniedError)
    ):
        return _Failure("auth", status, detail)
    if status == 429 or isinstance(exc, openai.RateLimitError):
        return _Failure("rate_limit", status or 429, detail, _retry_after(chain))
    if any(isinstance(e, (openai.APIConnectionError, ConnectionError)) for e in chain) or any(
        type(e).__name__ in ("ConnectError", "ClientConnectorError", "ServerDisconnectedError")
        for e in chain
    ):
        return _Failure("connection", None, detail)
    if status is not None and status >= 500:
        return _Failure("unavailable", status, detail)
    if status is not None and 400 <= status < 500:
        return _Failure("request", status, detail)
    if isinstance(exc, openai.BadRequestError):
        return _Failure("request", status, detail)
    return _Failure("other", status, f"{type(exc).__name__}: {detail}")


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
