"""The configuration keys: each one's type, default, environment variable and help, and how a
raw value (TOML, environment text, a flag) becomes a value of that type, or a precise error.

`cursorish config` lists them in this order; layers.py reads them from files and the
environment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cursorish.errors import ConfigError


@dataclass(frozen=True)
class Setting:
    """One configuration key: its type, default, environment variable and help text."""

    key: str
    kind: type
    default: Any
    env: str | None
    help: str
    secret: bool = False


SETTINGS: tuple[Setting, ...] = (
    Setting("planner", str, "", "CURSORISH_PLANNER", "litellm model string of the planner"),
    Setting("api_base", str, "", "CURSORISH_API_BASE", "OpenAI-compatible base URL"),
    Setting("api_key", str, "", "CURSORISH_API_KEY", "API key for api_base", secret=True),
    Setting("apply_engine", str, "auto", "CURSORISH_APPLY_ENGINE", "auto|deterministic|model"),
    Setting("apply_model", str, "", "CURSORISH_APPLY_MODEL", "path of a GGUF apply model"),
    Setting("apply_api_base", str, "", "CURSORISH_APPLY_API_BASE", "remote apply endpoint"),
    Setting(
        "apply_remote_model", str, "", "CURSORISH_APPLY_REMOTE_MODEL", "model id at the endpoint"
    ),
    Setting(
        "apply_remote_format",
        str,
        "",
        "CURSORISH_APPLY_REMOTE_FORMAT",
        "fastapply|morph|relace|openai-predicted (remote apply prompt format)",
    ),
    Setting(
        "apply_api_key",
        str,
        "",
        "CURSORISH_APPLY_API_KEY",
        "key for the apply endpoint",
        secret=True,
    ),
    Setting(
        "apply_timeout_s",
        float,
        120.0,
        "CURSORISH_APPLY_TIMEOUT",
        "remote apply: seconds to wait for the answer (streamed: between pieces)",
    ),
    Setting("profile", str, "default", "CURSORISH_PROFILE", "agent profile name"),
    Setting("concurrency", int, 8, "CURSORISH_CONCURRENCY", "agents running at once"),
    Setting("max_steps", int, 0, "CURSORISH_MAX_STEPS", "planner steps per agent (0: profile)"),
    Setting("max_tokens", int, 0, "CURSORISH_MAX_TOKENS", "tokens per agent (0: profile)"),
    Setting("max_cost_usd", float, 0.0, "CURSORISH_MAX_COST", "USD per agent (0: profile)"),
    Setting("max_wall_s", float, 0.0, "CURSORISH_MAX_WALL", "seconds per agent (0: profile)"),
    Setting("command_policy", str, "allowlist", "CURSORISH_COMMAND_POLICY", "allowlist|deny|ask"),
    Setting("command_allowlist", list, [], None, "extra command prefixes allowed headless"),
    Setting("command_timeout_s", float, 120.0, "CURSORISH_COMMAND_TIMEOUT", "run_command timeout"),
    Setting("sandbox", str, "on", "CURSORISH_SANDBOX", "on|off: the OS sandbox (user only)"),
    Setting("sandbox_network", bool, False, "CURSORISH_SANDBOX_NETWORK", "network in the sandbox"),
    Setting("sandbox_deny", list, [], None, "paths hidden from the sandbox (added to defaults)"),
    Setting("sandbox_env_deny", list, [], None, "env var globs scrubbed (added to defaults)"),
    Setting("sandbox_cpu_s", int, 900, "CURSORISH_SANDBOX_CPU_S", "CPU seconds per process"),
    Setting("sandbox_memory_mb", int, 8192, "CURSORISH_SANDBOX_MEMORY_MB", "data MB per process"),
    Setting("sandbox_processes", int, 1024, "CURSORISH_SANDBOX_PROCESSES", "tasks per command"),
    Setting("sandbox_tmp_mb", int, 1024, "CURSORISH_SANDBOX_TMP_MB", "size of the private /tmp"),
    Setting(
        "expose_local_files",
        list,
        [],
        "CURSORISH_EXPOSE_LOCAL_FILES",
        "provisioned local files the planner may read (names or globs, * for all; user only)",
    ),
    Setting("stream", bool, True, "CURSORISH_STREAM", "stream planner responses"),
    Setting("planner_timeout_s", float, 120.0, "CURSORISH_PLANNER_TIMEOUT", "per request"),
    Setting("planner_retries", int, 4, "CURSORISH_PLANNER_RETRIES", "retries on 429/5xx"),
)
SETTINGS_BY_KEY = {s.key: s for s in SETTINGS}
# Tables a config file may hold that their own modules read (`[mcp_servers.NAME]`: cursorish/mcp).
TABLES = frozenset({"mcp_servers"})

# The providers' usual key variables: shown as set/unset by `cursorish config`, never printed.
PROVIDER_KEY_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "TOGETHERAI_API_KEY",
    "XAI_API_KEY",
    "AZURE_API_KEY",
    "MORPH_API_KEY",  # the hosted apply models' (apply_remote_format = morph | relace)
    "RELACE_API_KEY",
)


def show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(empty)"
    return str(value) if value != "" else "(unset)"


# The smallest value each numeric key may take (a budget of 0 means "the profile's").
_MINIMUM: dict[str, tuple[float, bool]] = {  # key -> (bound, whether the bound itself is allowed)
    "concurrency": (1, True),
    "max_steps": (0, True),
    "max_tokens": (0, True),
    "max_cost_usd": (0, True),
    "max_wall_s": (0, True),
    "command_timeout_s": (0, False),
    "planner_timeout_s": (0, False),
    "apply_timeout_s": (0, False),
    "planner_retries": (0, True),
    "sandbox_cpu_s": (1, True),
    "sandbox_memory_mb": (16, True),
    "sandbox_processes": (8, True),
    "sandbox_tmp_mb": (1, True),
}


def coerce(setting: Setting, raw: Any, origin: str) -> Any:
    value = _coerce_kind(setting, raw, origin)
    if setting.kind in (int, float):
        if not math.isfinite(value):
            raise ConfigError(f"{origin}: {setting.key} must be a finite number, got {raw!r}")
        bound, inclusive = _MINIMUM.get(setting.key, (-math.inf, True))
        if value < bound or (value == bound and not inclusive):
            least = f"at least {bound:g}" if inclusive else f"more than {bound:g}"
            raise ConfigError(f"{origin}: {setting.key} must be {least}, got {raw!r}")
    return value


def _coerce_kind(setting: Setting, raw: Any, origin: str) -> Any:
    try:
        if setting.kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if setting.kind is list:
            if isinstance(raw, list):
                return [str(x) for x in raw]
            return [part.strip() for part in str(raw).split(",") if part.strip()]
        if setting.kind is int and isinstance(raw, bool):
            raise ValueError(raw)
        return setting.kind(raw)
    except (TypeError, ValueError):
        kind = {int: "an integer", float: "a number", bool: "true or false", list: "a list"}
        raise ConfigError(
            f"{origin}: {setting.key} must be {kind.get(setting.kind, 'text')}, got {raw!r}"
        ) from None


# Keys only the user may set (user file, environment, flags), never a repository file.
USER_ONLY_KEYS = frozenset({"expose_local_files", "sandbox", "sandbox_network", "mcp_servers"})
