"""Layered configuration: defaults < user TOML < repo TOML < environment < command-line flags.

Every value remembers where it came from so `cursorish config` can say so. Secrets (API keys)
are never stored in the effective config's printable form: they are reported as set/unset.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
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
)


@dataclass
class Config:
    """The effective configuration and, per key, the source of its value."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    # Values of a repository file that did not take effect: (key, shown value, file, why).
    ignored: list[tuple[str, str, str, str]] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def get_str(self, key: str) -> str:
        return str(self.values[key])

    def get_int(self, key: str) -> int:
        return int(self.values[key])

    def get_float(self, key: str) -> float:
        return float(self.values[key])

    def printable(self) -> list[tuple[str, str, str]]:
        """(key, value, source) rows with secrets masked."""
        rows = []
        for s in SETTINGS:
            value = self.values[s.key]
            shown = ("set" if value else "not set") if s.secret else _show(value)
            rows.append((s.key, shown, self.sources[s.key]))
        for var in PROVIDER_KEY_VARS:
            rows.append((var, "set" if os.environ.get(var) else "not set", "environment"))
        return rows


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(empty)"
    return str(value) if value != "" else "(unset)"


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cursorish" / "config.toml"


def repo_config_path(repo_root: Path) -> Path:
    return repo_root / ".cursorish" / "config.toml"


# The smallest value each numeric key may take (a budget of 0 means "the profile's").
_MINIMUM: dict[str, tuple[float, bool]] = {  # key -> (bound, whether the bound itself is allowed)
    "concurrency": (1, True),
    "max_steps": (0, True),
    "max_tokens": (0, True),
    "max_cost_usd": (0, True),
    "max_wall_s": (0, True),
    "command_timeout_s": (0, False),
    "planner_timeout_s": (0, False),
    "planner_retries": (0, True),
    "sandbox_cpu_s": (1, True),
    "sandbox_memory_mb": (16, True),
    "sandbox_processes": (8, True),
    "sandbox_tmp_mb": (1, True),
}


def _coerce(setting: Setting, raw: Any, origin: str) -> Any:
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


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "TOML files must be UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    unknown = sorted(set(data) - set(SETTINGS_BY_KEY) - TABLES)
    if unknown:
        known = ", ".join(SETTINGS_BY_KEY)
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; known keys: {known}")
    return data


# Keys only the user may set (user file, environment, flags), never a repository file.
USER_ONLY_KEYS = frozenset({"expose_local_files", "sandbox", "sandbox_network", "mcp_servers"})


def _gate_repo_layer(
    cfg: Config, repo_root: Path, path: Path, data: dict[str, Any]
) -> dict[str, Any]:
    """The repository file's values that may take effect: those that widen what runs only
    when the user trusts this content of the file (see core/trust.py); the rest is noted."""
    from cursorish.core.trust import (
        CONFIG_FILE,
        UNTRUSTED,
        config_key_widens,
        content_trusted,
        printable,
    )

    if not data:
        return data
    trusted: bool | None = None
    kept: dict[str, Any] = {}
    for key, raw in data.items():
        if key in USER_ONLY_KEYS:
            shown = printable(_show(raw))
            cfg.ignored.append((key, shown, str(path), "ignored (user config only)"))
            continue
        if config_key_widens(key, raw):
            if trusted is None:
                try:
                    trusted = content_trusted(repo_root, CONFIG_FILE, path.read_bytes())
                except OSError:
                    trusted = False
            if not trusted:
                cfg.ignored.append((key, printable(_show(raw)), str(path), UNTRUSTED))
                continue
        kept[key] = raw
    return kept


def load_config(
    repo_root: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Build the effective configuration; `flags` holds only the flags the user gave."""
    env = os.environ if environ is None else environ
    cfg = Config()
    for s in SETTINGS:
        cfg.values[s.key] = s.default
        cfg.sources[s.key] = "default"
    layers: list[tuple[str, dict[str, Any]]] = []
    user_path = user_config_path()
    layers.append((str(user_path), _read_toml(user_path)))
    if user_path.exists():
        cfg.files.append(user_path)
    if repo_root is not None:
        repo_path = repo_config_path(repo_root)
        repo_data = _gate_repo_layer(cfg, repo_root, repo_path, _read_toml(repo_path))
        layers.append((str(repo_path), repo_data))
        if repo_path.exists():
            cfg.files.append(repo_path)
    for origin, data in layers:
        for key, raw in data.items():
            if key in TABLES:
                continue
            cfg.values[key] = _coerce(SETTINGS_BY_KEY[key], raw, origin)
            cfg.sources[key] = origin
    for s in SETTINGS:
        if s.env and env.get(s.env, "") != "":
            cfg.values[s.key] = _coerce(s, env[s.env], f"${s.env}")
            cfg.sources[s.key] = f"${s.env}"
    for key, raw in (flags or {}).items():
        if raw is None:
            continue
        cfg.values[key] = _coerce(SETTINGS_BY_KEY[key], raw, f"--{key.replace('_', '-')}")
        cfg.sources[key] = f"--{key.replace('_', '-')}"
    return cfg


NO_PLANNER_MESSAGE = """no planner model is configured.
Configure one of these ways (a flag wins over the environment, which wins over config files):
  cursorish --task "..." --planner anthropic/claude-sonnet-4-5     (with ANTHROPIC_API_KEY set)
  export CURSORISH_PLANNER=openai/gpt-5                             (with OPENAI_API_KEY set)
  cursorish --task "..." --planner my-model --api-base http://localhost:8000/v1
                                               (any OpenAI-compatible server)
  or put  planner = "ollama/qwen2.5-coder"  in {user} or .cursorish/config.toml
To see the whole pipeline without any key, run: cursorish demo"""


def require_planner(cfg: Config) -> str:
    model = cfg.get_str("planner").strip()
    if not model:
        raise ConfigError(NO_PLANNER_MESSAGE.format(user=user_config_path()))
    return model
