"""Routing between apply engines: `auto` tries the deterministic merge, then the model on refusal.

Engines: `deterministic` (never guesses), `model` (the configured apply model: a local GGUF run
by llama.cpp with speculative edits, or a remote OpenAI-compatible endpoint), `auto` (the
deterministic merge first; the model only when it refuses).

Which model backs `model`/`auto` is process-wide configuration, set once at start-up with
`configure(model_path=..., remote_api_base=..., remote_format=...)` (the CLI does it from
`--apply-model` and the config keys `apply_model`, `apply_api_base`, `apply_remote_model`,
`apply_remote_format`, `apply_api_key`, or their `CURSORISH_APPLY_*` environment variables).
A remote format with a public endpoint (morph, relace, openai-predicted) needs no api base.
A caller can also pass `model=` to one `apply_sketch` call. The local model is loaded on first
use and shared by every agent; its decoding is serialized inside it, so `apply_sketch` may be
called from any number of threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cursorish.apply.engines import ENGINES
from cursorish.apply.result import ApplyOutcome, Refused
from cursorish.errors import ConfigError

if TYPE_CHECKING:
    from cursorish.apply.model.prompts import ApplyProfile

HOW_TO_CONFIGURE = (
    "configure an apply model with --apply-model PATH (a GGUF file), the CURSORISH_APPLY_MODEL "
    "environment variable, or `apply_model` in the config (or `apply_api_base` / "
    "CURSORISH_APPLY_API_BASE for an OpenAI-compatible endpoint, or `apply_remote_format` = "
    "morph | relace | openai-predicted for a hosted one)"
)


class ApplyModel(Protocol):
    """What the router needs from a model backend (local or remote)."""

    engine_name: str

    def apply(
        self,
        original: str,
        sketch: str,
        *,
        path: str,
        instruction: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ApplyOutcome: ...


@dataclass(frozen=True)
class ModelConfig:
    """Where the apply model comes from; nothing is loaded until the first model apply."""

    model_path: str | None = None
    profile: str | None = None  # prompt format name ("fastapply" | "morph"); guessed if None
    remote_api_base: str | None = None
    remote_model: str | None = None
    remote_api_key: str | None = None
    remote_format: str | None = None  # fastapply | morph | relace | openai-predicted
    remote_timeout_s: float = 120.0  # `apply_timeout_s`

    @property
    def configured(self) -> bool:
        return bool(self.model_path or self.remote_base())

    def remote_base(self) -> str | None:
        """The remote endpoint: the configured one, else the remote format's public one."""
        if self.remote_api_base:
            return self.remote_api_base
        if self.remote_format:
            return remote_format_profile(self.remote_format).default_api_base
        return None


def remote_format_profile(name: str) -> ApplyProfile:
    """The prompt format called `name`; a configuration error naming the known ones otherwise."""
    from cursorish.apply.model.prompts import get_profile

    try:
        return get_profile(name)
    except ValueError as error:
        raise ConfigError(f"apply_remote_format: {error}") from None


_lock = threading.Lock()
_config: ModelConfig | None = None
_model: ApplyModel | None = None


def configure(
    model_path: str | None = None,
    *,
    remote_api_base: str | None = None,
    remote_model: str | None = None,
    remote_api_key: str | None = None,
    remote_format: str | None = None,
    profile: str | None = None,
    remote_timeout_s: float = 120.0,
) -> None:
    """Set the process-wide apply model (a local GGUF wins over a remote endpoint).

    Raises `ConfigError` naming the known formats when `remote_format` is not one of them, and
    when `remote_api_base` is not an http(s) URL.
    """
    global _config, _model
    if remote_format:
        remote_format_profile(remote_format)
    if remote_api_base and not remote_api_base.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"apply_api_base {remote_api_base!r} is not an http(s) URL "
            "(an OpenAI-compatible base such as http://localhost:8000/v1)"
        )
    with _lock:
        _config = ModelConfig(
            model_path,
            profile,
            remote_api_base,
            remote_model,
            remote_api_key,
            remote_format,
            remote_timeout_s,
        )
        _model = None


def reset() -> None:
    """Forget the configuration (tests); the environment is consulted again on next use."""
    global _config, _model
    with _lock:
        _config = None
        _model = None


def current_config() -> ModelConfig:
    """The configuration in force: `configure`'s, or else the environment's."""
    with _lock:
        if _config is not None:
            return _config
    return ModelConfig(
        model_path=os.environ.get("CURSORISH_APPLY_MODEL") or None,
        remote_api_base=os.environ.get("CURSORISH_APPLY_API_BASE") or None,
        remote_model=os.environ.get("CURSORISH_APPLY_REMOTE_MODEL") or None,
        remote_api_key=os.environ.get("CURSORISH_APPLY_API_KEY") or None,
        remote_format=os.environ.get("CURSORISH_APPLY_REMOTE_FORMAT") or None,
    )


def configured_model() -> ApplyModel | None:
    """The configured apply model, loaded on first call; None when none is configured.

    Raises `CursorishError` (exit code CONFIG) when the configured GGUF is missing or corrupt.
    """
    global _model
    config = current_config()
    if not config.configured:
        return None
    with _lock:
        if _model is not None:
            return _model
        if config.model_path:
            from cursorish.apply.model.backend import load_local_model

            model: ApplyModel = load_local_model(config.model_path, profile=config.profile)
        else:
            from cursorish.apply.model.remote import RemoteApplyModel

            base = config.remote_base()
            assert base is not None
            name = config.remote_format or config.profile
            model = RemoteApplyModel(
                base,
                model=config.remote_model,
                api_key=config.remote_api_key,
                profile=remote_format_profile(name) if name else None,
                timeout_s=config.remote_timeout_s,
            )
        if _config is config:  # only cache what `configure` set; env may change between tests
            _model = model
        return model


def apply_sketch(
    original: str,
    sketch: str,
    *,
    path: str,
    engine: str = "auto",
    on_token: Callable[[str], None] | None = None,
    model: ApplyModel | None = None,
    instruction: str | None = None,
) -> ApplyOutcome:
    """Merge `sketch` into `original` (the file at `path`) with the chosen engine.

    `model` overrides the configured apply model for this call. `on_token` receives the
    model's output text as it is decoded (the deterministic merge does not stream).
    """
    from cursorish.apply.deterministic import merge

    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    first: Refused | None = None
    if engine in ("auto", "deterministic"):
        outcome = merge(original, sketch, path=path)
        if engine == "deterministic" or not isinstance(outcome, Refused):
            return outcome
        first = outcome
    backend = model if model is not None else configured_model()
    if backend is None:
        if first is not None:
            return Refused(
                f"{first.reason}; no apply model to fall back on: {HOW_TO_CONFIGURE}",
                first.engine,
                first.sketch_format,
            )
        return Refused(f"no apply model is configured: {HOW_TO_CONFIGURE}", "model")
    result = backend.apply(original, sketch, path=path, instruction=instruction, on_token=on_token)
    if first is not None and isinstance(result, Refused):
        return Refused(
            f"deterministic merge: {first.reason}; {backend.engine_name}: {result.reason}",
            result.engine,
            first.sketch_format,
        )
    return result
