"""How to reach a planner model (`PlannerSettings`) and which variable holds its API key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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
