"""A remote apply model behind any OpenAI-compatible endpoint (llama.cpp server, vLLM, a hosted
apply API), called through litellm with the same prompt formats as the local model.

litellm is imported lazily (through the planner's loader, which keeps it quiet and offline).
The answer is streamed: `on_token` receives the merged file's text as it arrives, without the
wrapper tags. The result is parsed and syntax-checked like a local model's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cursorish.apply.model.prompts import ApplyProfile, get_profile, guess_profile
from cursorish.apply.model.validate import check_model_output
from cursorish.apply.result import ApplyOutcome, Merged, Refused
from cursorish.errors import CursorishError, ExitCode

ENGINE = "remote"
DEFAULT_REMOTE_MODEL = "apply"


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
        self.api_base = api_base.rstrip("/")
        self.model = model or DEFAULT_REMOTE_MODEL
        self.api_key = api_key
        self.timeout_s = timeout_s
        if isinstance(profile, ApplyProfile):
            self.profile = profile
        elif profile:
            self.profile = get_profile(profile)
        else:
            self.profile = guess_profile(self.model)

    @property
    def name(self) -> str:
        return f"{self.model} at {self.api_base}"

    def _litellm_model(self) -> str:
        # A bare name is an OpenAI-compatible deployment; "provider/name" is passed through.
        return self.model if "/" in self.model else f"openai/{self.model}"

    def complete(
        self,
        original: str,
        sketch: str,
        *,
        instruction: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        """The raw answer text (streamed to `on_token`, tags removed, as it arrives)."""
        from cursorish.planner.litellm_loader import load_litellm

        litellm = load_litellm()
        stream = on_token is not None
        try:
            response = litellm.completion(
                model=self._litellm_model(),
                messages=self.profile.messages(original, sketch, instruction),
                api_base=self.api_base,
                api_key=self.api_key or "none",
                temperature=0,
                stream=stream,
                timeout=self.timeout_s,
                num_retries=1,
            )
        except Exception as error:  # litellm raises many types; the user needs one message
            raise CursorishError(
                f"remote apply model {self.name} failed: {_short(error)}", ExitCode.APPLY_REFUSED
            ) from None
        if not stream:
            return str(response.choices[0].message.content or "")
        assert on_token is not None
        text_filter = TagFilter(self.profile, on_token)
        parts: list[str] = []
        try:
            for piece in _deltas(response):
                parts.append(piece)
                text_filter.feed(piece)
        except Exception as error:
            raise CursorishError(
                f"remote apply model {self.name} failed mid-stream: {_short(error)}",
                ExitCode.APPLY_REFUSED,
            ) from None
        text_filter.close()
        return "".join(parts)

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
        merged = self.profile.parse_output(answer)
        problem = check_model_output(original, merged, path)
        if problem:
            return Refused(problem, ENGINE, "model")
        return Merged(merged, ENGINE, "model", (f"remote apply model {self.name}",))


def _deltas(response: Iterable[Any]) -> Iterable[str]:
    for chunk in response:
        choices = getattr(chunk, "choices", None) or []
        for choice in choices:
            delta = getattr(choice, "delta", None)
            content = getattr(delta, "content", None) if delta is not None else None
            if content:
                yield str(content)


def _short(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]
