"""A remote apply model behind any OpenAI-compatible endpoint (llama.cpp server, vLLM, a hosted
apply API), called through litellm with the same prompt formats as the local model.

Formats (`prompts.PROFILES`): `fastapply` (a vLLM or llama.cpp server running FastApply),
`morph` (Morph's API), `relace` (Relace's OpenAI-compatible apply endpoint) and
`openai-predicted` (a chat model with OpenAI's Predicted Outputs: the original file is sent as
`prediction`, so the provider drafts from it). Each has a default model id, endpoint and API key
variable, used when the configuration names none.

litellm is imported lazily (through the planner's loader, which keeps it quiet and offline).
The answer is streamed: `on_token` receives the merged file's text as it arrives, without the
wrapper tags. The answer then goes through the same merge verifier as a deterministic merge.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from cursorish.apply.model.prompts import ApplyProfile, get_profile, guess_profile
from cursorish.apply.model.validate import check_model_output
from cursorish.apply.result import ApplyOutcome, Merged, Refused
from cursorish.errors import CursorishError, ExitCode

ENGINE = "remote"
_TOKEN_LIMIT = (
    "failed: the answer stopped at the endpoint's token limit (finish_reason 'length'), cut "
    "off; raise the server's output limit (vLLM --max-model-len, llama.cpp -n) or edit a "
    "smaller file"
)
DEFAULT_REMOTE_MODEL = "apply"
OPENAI_API_BASE = "https://api.openai.com/v1"


class TagFilter:
    """Streams the text between the profile's opening and closing tags to a callback.

    Text before the opening tag is dropped (a chat model may repeat it, or chat first); text
    that may be the beginning of the closing tag or a stop string is held back until decided.
    """

    def __init__(self, profile: ApplyProfile, on_text: Callable[[str], None]) -> None:
        self._open = profile.output_open
        self._stops = [s for s in profile.all_stops() if s]
        self._on_text = on_text
        self._buffer = ""
        self._started = not self._open
        self._done = False

    def feed(self, chunk: str) -> None:
        if self._done or not chunk:
            return
        self._buffer += chunk
        if not self._started:
            at = self._buffer.find(self._open)
            if at == -1:
                return
            self._buffer = self._buffer[at + len(self._open) :]
            self._started = True
        for stop in self._stops:
            at = self._buffer.find(stop)
            if at != -1:
                self._emit(self._buffer[:at])
                self._buffer = ""
                self._done = True
                return
        keep = self._held_back()
        self._emit(self._buffer[: len(self._buffer) - keep])
        self._buffer = self._buffer[len(self._buffer) - keep :]

    def close(self) -> None:
        if not self._done and self._started:
            self._emit(self._buffer)
        self._buffer = ""
        self._done = True

    def _emit(self, text: str) -> None:
        if text:
            self._on_text(text)

    def _held_back(self) -> int:
        best = 0
        for stop in self._stops:
            for n in range(min(len(stop) - 1, len(self._buffer)), best, -1):
                if self._buffer.endswith(stop[:n]):
                    best = n
                    break
        return best


class RemoteApplyModel:
    """An apply model reached over HTTP; `apply` has the same contract as the local one."""

    engine_name = ENGINE

    def __init__(
        self,
        api_base: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        profile: str | ApplyProfile | None = None,
        timeout_s: float = 120.0,
    ) -> None:
        if isinstance(profile, ApplyProfile):
            self.profile = profile
        elif profile:
            self.profile = get_profile(profile)
        else:
            self.profile = guess_profile(model or DEFAULT_REMOTE_MODEL)
        self.api_base = api_base.rstrip("/")
        self.model = model or self.profile.default_model
        self.api_key = api_key
        self.timeout_s = timeout_s
        # Cleared when the endpoint rejects `prediction` (an OpenAI-compatible server without
        # Predicted Outputs): the draft only makes the answer faster, never different.
        self.sends_prediction = self.profile.predicted

    @property
    def name(self) -> str:
        return f"{self.model} at {self.api_base}"

    def _litellm_model(self) -> str:
        # Every format speaks the OpenAI protocol to `api_base`, so litellm's "openai/" route is
        # always the one; the id after it goes out whole ("Kortix/FastApply-7B-v1.0" on vLLM,
        # "openai/gpt-oss-20b" on vLLM, "openai/gpt-4.1-mini" on OpenRouter). Only OpenAI's own
        # API has no ids with a slash: there a litellm-style "openai/gpt-4.1-mini" names the route.
        if self.model.startswith("openai/") and self.api_base == OPENAI_API_BASE:
            return self.model
        return f"openai/{self.model}"

    def _key(self) -> str:
        # An endpoint without authentication (a local server) still needs some key for the
        # OpenAI client. A provider's own key variable (OPENAI_API_KEY, ...) is used only when
        # no key is configured and only for that provider's own endpoint, never sent elsewhere.
        if self.api_key:
            return self.api_key
        own = self.profile.default_api_base
        if self.profile.key_env and own and self.api_base == own.rstrip("/"):
            return os.environ.get(self.profile.key_env) or "none"
        return "none"

    def request(self, original: str, sketch: str, instruction: str | None = None) -> dict[str, Any]:
        """The keyword arguments of the litellm call (tests check them through the server)."""
        kwargs: dict[str, Any] = {
            "model": self._litellm_model(),
            "messages": self.profile.messages(original, sketch, instruction),
            "api_base": self.api_base,
            "api_key": self._key(),
            "temperature": 0,
            "timeout": self.timeout_s,
            "num_retries": 0,  # `complete` retries once itself (litellm's retries need
            "max_retries": 0,  # tenacity, which is not a dependency)
        }
        if self.sends_prediction:
            kwargs["prediction"] = {"type": "content", "content": original}
        return kwargs

    def complete(
        self,
        original: str,
        sketch: str,
        *,
        instruction: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        """The raw answer text (streamed to `on_token`, tags removed, as it arrives)."""
        from cursorish.planner.failures import stream_ended_early
        from cursorish.planner.litellm_loader import load_litellm

        litellm = load_litellm()
        request = self.request(original, sketch, instruction)
        if on_token is None:
            return self._whole_text(self._send(litellm, request, stream=False))
        response = self._send(litellm, request, stream=True)
        text_filter = TagFilter(self.profile, on_token)
        parts: list[str] = []
        finishes: list[str] = []
        try:
            for piece in _deltas(response, finishes):
                parts.append(piece)
                text_filter.feed(piece)
        except CursorishError:
            raise  # from `on_token`: the agent was cancelled, and says so itself
        except Exception as error:
            if not stream_ended_early(error):  # that one: no finish reason came, see below
                raise self._failed(f"failed mid-stream: {self._explain(error)}") from None
        # litellm makes up a finish reason when none came; its wrapper knows whether one did.
        if hasattr(response, "received_finish_reason"):
            sent = response.received_finish_reason or getattr(
                response, "intermittent_finish_reason", None
            )
        else:
            sent = finishes[-1] if finishes else None
        if not sent and not parts:
            # No event stream at all (a server that ignores `stream`): ask for the whole answer.
            text = self._whole_text(self._send(litellm, request, stream=False))
            text_filter.feed(text)
            text_filter.close()
            return text
        if not sent:
            raise self._failed(
                f"failed: the answer was cut off after {len(''.join(parts))} characters "
                "(the stream ended without a finish reason)"
            )
        if sent == "length":
            raise self._failed(_TOKEN_LIMIT)
        text_filter.close()
        return "".join(parts)

    def _send(self, litellm: Any, request: dict[str, Any], *, stream: bool) -> Any:
        """litellm's response; one retry for what may pass a moment later (429, 5xx, ...)."""
        for attempt in range(2):
            try:
                return litellm.completion(**request, stream=stream)
            except Exception as error:  # litellm raises many types; the user needs one message
                if attempt == 0 and "prediction" in request and _rejects_prediction(error):
                    self.sends_prediction = False
                    request = {k: v for k, v in request.items() if k != "prediction"}
                    continue
                wait = self._retry_wait(error) if attempt == 0 else None
                if wait is None:
                    raise self._failed(f"failed: {self._explain(error)}") from None
                time.sleep(wait)
        raise AssertionError("unreachable")

    def _whole_text(self, response: Any) -> str:
        choice = response.choices[0]
        if getattr(choice, "finish_reason", None) == "length":
            raise self._failed(_TOKEN_LIMIT)
        return str(choice.message.content or "")

    def _failed(self, what: str) -> CursorishError:
        return CursorishError(f"remote apply model {self.name} {what}", ExitCode.APPLY_REFUSED)

    def _retry_wait(self, error: Exception) -> float | None:
        """Seconds to wait before the one retry, or None when retrying cannot help."""
        from cursorish.planner.failures import classify

        failure = classify(error)
        if failure.kind not in ("rate_limit", "connection", "unavailable", "cut"):
            return None  # a timeout would only double the wait; 4xx answers stay the same
        return min(max(failure.retry_after_s or 0.5, 0.0), 5.0)

    def _explain(self, error: Exception) -> str:
        """What went wrong, in words that say which setting to look at."""
        from cursorish.planner.failures import classify

        failure = classify(error)
        detail = f" ({failure.detail})" if failure.detail else ""
        status = f"HTTP {failure.status}" if failure.status else ""
        if failure.kind == "connection":
            return f"cannot connect to {self.api_base}{detail}: is the server up? (apply_api_base)"
        if failure.kind == "timeout":
            return f"no answer within {self.timeout_s:g} s"
        if failure.kind == "auth":
            where = f"{self.profile.key_env} or " if self.profile.key_env else ""
            return (
                f"{status}: the endpoint refused the API key{detail}; set {where}"
                "apply_api_key / CURSORISH_APPLY_API_KEY"
            )
        if failure.status == 404:
            return (
                f"{status}{detail}: check apply_api_base (an OpenAI-compatible base, usually "
                f"ending in /v1) and apply_remote_model ({self.model!r})"
            )
        if status:
            return f"{status}{detail}"
        return failure.detail or _short(error)

    def apply(
        self,
        original: str,
        sketch: str,
        *,
        path: str,
        instruction: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ApplyOutcome:
        try:
            answer = self.complete(original, sketch, instruction=instruction, on_token=on_token)
        except CursorishError as error:
            return Refused(error.message, ENGINE, "model")
        merged = _like_original(self.profile.parse_output(answer), original)
        problem = check_model_output(original, sketch, merged, path)
        if problem:
            return Refused(problem, ENGINE, "model")
        return Merged(merged, ENGINE, "model", (f"remote apply model {self.name}",))


def _like_original(merged: str, original: str) -> str:
    """Hosted apply models wrap the file in newlines of their own (Morph's answers start with
    one); the original's first and last newline are what the file has."""
    if merged.startswith("\n") and not original.startswith("\n"):
        merged = merged[1:]
    if original.endswith("\n") and merged and not merged.endswith("\n"):
        merged += "\n"
    elif merged.endswith("\n") and original and not original.endswith("\n"):
        merged = merged[:-1]
    return merged


def _deltas(response: Iterable[Any], finishes: list[str]) -> Iterable[str]:
    """The text deltas of a stream; finish reasons seen go to `finishes`."""
    for chunk in response:
        choices = getattr(chunk, "choices", None) or []
        for choice in choices:
            finish = getattr(choice, "finish_reason", None)
            if finish:
                finishes.append(str(finish))
            delta = getattr(choice, "delta", None)
            content = getattr(delta, "content", None) if delta is not None else None
            if content:
                yield str(content)


def _rejects_prediction(error: Exception) -> bool:
    """An HTTP 400 that names the `prediction` argument: the server has no Predicted Outputs
    (vLLM: "extra inputs are not permitted", others: "unrecognized request argument")."""
    from cursorish.planner.failures import classify

    failure = classify(error)
    return failure.status in (400, 422) and "prediction" in str(error).lower()


def _short(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]
