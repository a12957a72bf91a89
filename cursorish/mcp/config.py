"""Which MCP servers exist for a repository, read from the user's and the repository's files.

Sources, later ones overriding earlier ones by server name:

1. the user config `config.toml`, tables `[mcp_servers.NAME]`;
2. the user file `mcp.json` next to it (the `mcpServers` JSON format other tools use);
3. the repository's `.mcp.json`, then `.cursorish/mcp.json` (same format) - only when the
   user trusted that file's content (`cursorish trust`); otherwise each server in it is listed
   as ignored, with how to trust it, because starting a server is running the repository
   author's code.

An entry is either stdio (`command`, `args`, `env`, `cwd`) or streamable HTTP (`url`, `headers`,
`"type": "http"`). `${VAR}` and `${VAR:-default}` in those values are expanded from the
environment, as other tools do; a server that names an unset variable is kept with a problem
(shown by `cursorish mcp list`, never started) so one bad entry does not stop every agent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cursorish.errors import ConfigError

USER_TABLE = "mcp_servers"
USER_JSON = "mcp.json"
REPO_FILES = (".mcp.json", ".cursorish/mcp.json")  # the names core/trust.py hashes
DEFAULT_CALL_TIMEOUT_S = 60.0
DEFAULT_START_TIMEOUT_S = 30.0
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamablehttp"})
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class ServerSpec:
    """One configured MCP server."""

    name: str  # as configured
    transport: str  # "stdio" | "http"
    source: str  # the file it came from
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""  # stdio: relative to the agent's worktree
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S
    auto_approve: tuple[str, ...] = ()  # tool names (globs) allowed without asking
    network: bool = False  # stdio: the sandbox lets this server reach the network
    disabled: bool = False
    problem: str = ""  # why it cannot be started (it is still listed)

    @property
    def key(self) -> str:
        """The name in tool names: `key__tool` (only letters, digits, `_` and `-`)."""
        return server_key(self.name)

    def fingerprint(self) -> str:
        """A hash of what decides the server's tools (the listing cache's key; no secrets in
        clear)."""
        data = json.dumps(
            [
                self.transport,
                self.command,
                self.args,
                dict(self.env),
                self.cwd,
                self.url,
                dict(self.headers),
            ],
            sort_keys=True,
        )
        return hashlib.sha256(data.encode()).hexdigest()[:24]

    def describe(self) -> str:
        if self.transport == "http":
            return self.url
        return " ".join([self.command, *self.args])


@dataclass(frozen=True)
class Ignored:
    """A server of a repository file that does not take effect, and why."""

    name: str
    source: str
    why: str


@dataclass(frozen=True)
class McpConfig:
    servers: Mapping[str, ServerSpec] = field(default_factory=dict)  # by name
    ignored: tuple[Ignored, ...] = ()

    def usable(self) -> list[ServerSpec]:
        return [s for s in self.servers.values() if not s.disabled and not s.problem]

    def find(self, name: str) -> ServerSpec | None:
        """The server called `name` (as configured, or as its tool-name key)."""
        if name in self.servers:
            return self.servers[name]
        return next((s for s in self.servers.values() if s.key == name), None)


def server_key(name: str) -> str:
    key = _UNSAFE_NAME.sub("_", name).strip("_")
    while "__" in key:
        key = key.replace("__", "_")
    return key or "server"


def user_json_path() -> Path:
    from cursorish.config import user_config_path

    return user_config_path().parent / USER_JSON


def load_mcp_config(repo_root: Path | None, environ: Mapping[str, str] | None = None) -> McpConfig:
    """Every configured server for `repo_root` (None: the user's only)."""
    from cursorish.config import user_config_path

    env = os.environ if environ is None else environ
    servers: dict[str, ServerSpec] = {}
    ignored: list[Ignored] = []
    user_toml = user_config_path()
    for name, raw in _user_table(user_toml).items():
        servers[name] = parse_entry(name, raw, str(user_toml), env)
    user_json = user_json_path()
    for name, raw in _json_servers(user_json, _read(user_json)).items():
        servers[name] = parse_entry(name, raw, str(user_json), env)
    if repo_root is not None:
        from cursorish.core.trust import UNTRUSTED, content_trusted, how_to_trust

        for rel in REPO_FILES:
            path = repo_root / rel
            data = _read(path)
            if data is None:
                continue
            entries = _json_servers(path, data)
            if not content_trusted(repo_root, rel, data):
                why = f"{UNTRUSTED}; review it, then run: {how_to_trust(repo_root)}"
                ignored += [Ignored(name, str(path), why) for name in entries]
                continue
            for name, raw in entries.items():
                # As for commands, only the user opens the network: a repository's file never
                # does, trusted or not (the user's own entry of the same name may).
                spec = parse_entry(name, raw, str(path), env)
                servers[name] = dataclasses.replace(spec, network=False)
    _check_keys(servers)
    return McpConfig(servers, tuple(ignored))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def _user_table(path: Path) -> dict[str, Any]:
    data = _read(path)
    if data is None:
        return {}
    try:
        table = tomllib.loads(data.decode("utf-8")).get(USER_TABLE, {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        raise ConfigError(
            f"{path}: [{USER_TABLE}] must hold one table per server, e.g. "
            f'[{USER_TABLE}.time] command = "uvx" args = ["mcp-server-time"]'
        )
    return table


def _json_servers(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from None
    servers = doc.get("mcpServers", doc.get("servers")) if isinstance(doc, dict) else None
    if not isinstance(servers, dict) or not all(isinstance(v, dict) for v in servers.values()):
        raise ConfigError(
            f'{path}: expected {{"mcpServers": {{"NAME": {{"command": ..., "args": [...]}}}}}} '
            'or {"mcpServers": {"NAME": {"type": "http", "url": ...}}}'
        )
    return servers


def parse_entry(
    name: str, raw: Mapping[str, Any], source: str, env: Mapping[str, str]
) -> ServerSpec:
    """One server entry (JSON `mcpServers` or TOML table keys; camelCase or snake_case)."""
    where = f"{source}: server {name!r}"
    kind = str(raw.get("type") or raw.get("transport") or "").strip().lower()
    url = _text(raw.get("url"), where, "url")
    command = _text(raw.get("command"), where, "command")
    if kind == "sse":
        raise ConfigError(f"{where}: the SSE transport is not supported; use streamable HTTP")
    if kind in _HTTP_TYPES or (not kind and url and not command):
        transport = "http"
        if not url:
            raise ConfigError(f"{where}: an HTTP server needs a url")
    elif kind in ("", "stdio"):
        transport = "stdio"
        if not command:
            raise ConfigError(f"{where}: give a command (stdio) or a url (HTTP)")
    else:
        raise ConfigError(f"{where}: unknown type {kind!r} (stdio or http)")
    args = raw.get("args", [])
    if not isinstance(args, list):
        raise ConfigError(f"{where}: args must be a list of strings")
    missing: list[str] = []

    def expand(value: str) -> str:
        def one(m: re.Match[str]) -> str:
            if m.group(1) in env:
                return env[m.group(1)]
            if m.group(2) is not None:
                return m.group(2)
            missing.append(m.group(1))
            return ""

        return _VAR.sub(one, value)

    spec = ServerSpec(
        name=name,
        transport=transport,
        source=source,
        command=expand(command),
        args=tuple(expand(str(a)) for a in args),
        env={k: expand(v) for k, v in _str_map(raw.get("env"), where, "env").items()},
        cwd=expand(_text(raw.get("cwd"), where, "cwd")),
        url=expand(url),
        headers={k: expand(v) for k, v in _str_map(raw.get("headers"), where, "headers").items()},
        call_timeout_s=_seconds(raw, ("timeout_s", "timeout"), DEFAULT_CALL_TIMEOUT_S, where),
        start_timeout_s=_seconds(
            raw, ("start_timeout_s", "startupTimeout"), DEFAULT_START_TIMEOUT_S, where
        ),
        auto_approve=_names(raw, ("auto_approve", "autoApprove", "alwaysAllow"), where),
        network=bool(raw.get("network", False)),
        disabled=bool(raw.get("disabled", False)),
    )
    if missing:
        unset = ", ".join(f"${{{v}}}" for v in dict.fromkeys(missing))
        spec = _replace(spec, problem=f"{unset} not set in the environment")
    return spec


def _replace(spec: ServerSpec, **changes: Any) -> ServerSpec:
    from dataclasses import replace

    return replace(spec, **changes)


def _text(value: Any, where: str, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a string")
    return value


def _str_map(value: Any, where: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}


def _seconds(raw: Mapping[str, Any], keys: tuple[str, ...], default: float, where: str) -> float:
    for key in keys:
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{where}: {key} must be a positive number of seconds")
            # Some tools write milliseconds here; nobody means a 20-minute start-up.
            return float(value) / 1000 if value > 3600 else float(value)
    return default


def _names(raw: Mapping[str, Any], keys: tuple[str, ...], where: str) -> tuple[str, ...]:
    out: list[str] = []
    for key in keys:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise ConfigError(f"{where}: {key} must be a list of tool names")
        out += [str(v) for v in value]
    return tuple(out)


def _check_keys(servers: Mapping[str, ServerSpec]) -> None:
    seen: dict[str, str] = {}
    for name, spec in servers.items():
        other = seen.setdefault(spec.key, name)
        if other != name:
            raise ConfigError(
                f"MCP servers {other!r} and {name!r} both become {spec.key!r} in tool names; "
                "rename one of them"
            )
