"""Layered configuration: defaults < user TOML < repo TOML < environment < command-line flags.

Every value remembers where it came from so `cursorish config` can say so. Secrets (API keys)
are never stored in the effective config's printable form: they are reported as set/unset.
The repository's layer passes a gate first: keys that widen what runs need the user's trust
(core/trust.py), and some keys only the user may set at all.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cursorish.config.keys import (
    PROVIDER_KEY_VARS,
    SETTINGS,
    SETTINGS_BY_KEY,
    TABLES,
    USER_ONLY_KEYS,
    coerce,
    show,
)
from cursorish.errors import ConfigError


@dataclass
class _Entry:
    value: Any
    source: str  # "default", a file, "$VARIABLE", "--flag", or who overrode it


def _defaults() -> dict[str, _Entry]:
    return {s.key: _Entry(s.default, "default") for s in SETTINGS}


@dataclass
class Config:
    """The effective configuration: per key, a value of the key's type and where it came from.

    A value changes only through `override`, which checks its type and records its source,
    so `cursorish config` can always say why a value is what it is."""

    _entries: dict[str, _Entry] = field(default_factory=_defaults)
    files: list[Path] = field(default_factory=list)
    # Values of a repository file that did not take effect: (key, shown value, file, why).
    ignored: list[tuple[str, str, str, str]] = field(default_factory=list)

    def override(self, key: str, raw: Any, source: str) -> None:
        """Set `key` from `raw` (checked and converted to the key's type; a ConfigError names
        `source`), remembering `source` as where the value came from."""
        self._entries[key] = _Entry(coerce(SETTINGS_BY_KEY[key], raw, source), source)

    def __getitem__(self, key: str) -> Any:
        return self._entries[key].value

    def source(self, key: str) -> str:
        return self._entries[key].source

    def is_default(self, key: str) -> bool:
        return self._entries[key].source == "default"

    @property
    def values(self) -> Mapping[str, Any]:
        """Read-only: key -> value."""
        return MappingProxyType({k: e.value for k, e in self._entries.items()})

    @property
    def sources(self) -> Mapping[str, str]:
        """Read-only: key -> where its value came from."""
        return MappingProxyType({k: e.source for k, e in self._entries.items()})

    def get_str(self, key: str) -> str:
        return str(self[key])

    def get_int(self, key: str) -> int:
        return int(self[key])

    def get_float(self, key: str) -> float:
        return float(self[key])

    def get_bool(self, key: str) -> bool:
        return bool(self[key])

    def get_list(self, key: str) -> tuple[str, ...]:
        return tuple(str(v) for v in self[key])

    def printable(self) -> list[tuple[str, str, str]]:
        """(key, value, source) rows with secrets masked."""
        rows = []
        for s in SETTINGS:
            value = self[s.key]
            shown = ("set" if value else "not set") if s.secret else show(value)
            rows.append((s.key, shown, self.source(s.key)))
        for var in PROVIDER_KEY_VARS:
            rows.append((var, "set" if os.environ.get(var) else "not set", "environment"))
        return rows


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cursorish" / "config.toml"


def repo_config_path(repo_root: Path) -> Path:
    return repo_root / ".cursorish" / "config.toml"


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
            shown = printable(show(raw))
            cfg.ignored.append((key, shown, str(path), "ignored (user config only)"))
            continue
        if config_key_widens(key, raw):
            if trusted is None:
                try:
                    trusted = content_trusted(repo_root, CONFIG_FILE, path.read_bytes())
                except OSError:
                    trusted = False
            if not trusted:
                cfg.ignored.append((key, printable(show(raw)), str(path), UNTRUSTED))
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
            cfg.override(key, raw, origin)
    for s in SETTINGS:
        if s.env and env.get(s.env, "") != "":
            cfg.override(s.key, env[s.env], f"${s.env}")
    for key, raw in (flags or {}).items():
        if raw is None:
            continue
        cfg.override(key, raw, f"--{key.replace('_', '-')}")
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
