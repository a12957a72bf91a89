"""Trust for a repository's own cursorish files: what they may widen, and the user's record.

A cloned repository ships `.cursorish/config.toml`, `.cursorish/worktrees.toml`, agent
profiles and MCP server lists. Values in them that widen what runs on the user's machine (the
command policy, allowlist entries, sandbox settings, setup commands, profile tools, MCP
servers, where the planner sends code) take effect only once the user has trusted the
repository, because otherwise cloning a repository and starting a task would hand the
repository's author code execution.

The record lives in `$CURSORISH_HOME/trust.json` (outside every worktree and denied to the
sandbox), keyed by the checkout's real path, with the sha256 of each trusted file's content:
a file whose content changed since it was trusted is untrusted again. Callers that parse a
file check the bytes they parsed (`content_trusted`) so a file cannot change between the
check and the read.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cursorish.errors import ConfigError
from cursorish.store.paths import cursorish_home

CONFIG_FILE = ".cursorish/config.toml"
WORKTREES_FILE = ".cursorish/worktrees.toml"
AGENTS_DIR = ".cursorish/agents"
MCP_FILES = (".mcp.json", ".cursorish/mcp.json")

# Config keys whose value from a repository file needs trust. `api_base`/`apply_api_base`
# decide where code and the user's API key are sent (so does `apply_remote_format`: a hosted
# format has its provider's endpoint); `apply_model` is a file loaded in-process.
WIDENING_CONFIG_KEYS = frozenset(
    {
        "command_policy",
        "command_allowlist",
        "api_base",
        "apply_api_base",
        "apply_model",
        "apply_remote_format",
    }
)
# A repository may always make itself stricter.
NARROWING_VALUES: Mapping[str, frozenset[str]] = {"command_policy": frozenset({"deny"})}
UNTRUSTED = "ignored (repository not trusted)"


def config_key_widens(key: str, value: Any) -> bool:
    """Whether `key = value` in a repository's config file needs the repository's trust."""
    if key in NARROWING_VALUES and str(value) in NARROWING_VALUES[key]:
        return False
    return key in WIDENING_CONFIG_KEYS or key.startswith("sandbox")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def real_key(repo_root: Path) -> str:
    return os.path.realpath(repo_root)


def trust_files(repo_root: Path) -> dict[str, bytes]:
    """The repository's cursorish files that exist, relative path -> content (sorted)."""
    names = [CONFIG_FILE, WORKTREES_FILE, *MCP_FILES]
    agents = repo_root / AGENTS_DIR
    if agents.is_dir():
        names += [f"{AGENTS_DIR}/{p.name}" for p in agents.glob("*.toml")]
    found: dict[str, bytes] = {}
    for rel in sorted(set(names)):
        path = repo_root / rel
        if path.is_file():
            with contextlib.suppress(OSError):  # unreadable: its loader reports it
                found[rel] = path.read_bytes()
    return found


@dataclass(frozen=True)
class TrustState:
    """A repository's cursorish files now (hashes) against what the user trusted."""

    repo: Path
    current: Mapping[str, str]
    recorded: Mapping[str, str] | None = None  # None: never trusted
    trusted_at: str | None = None

    def file_trusted(self, rel: str) -> bool:
        return self.recorded is not None and self.recorded.get(rel) == self.current.get(rel)

    @property
    def changed(self) -> tuple[str, ...]:
        """Files present now that the record does not cover with this content."""
        return tuple(rel for rel in self.current if not self.file_trusted(rel))

    @property
    def trusted(self) -> bool:
        return self.recorded is not None and not self.changed


# -- the record -----------------------------------------------------------------------------


def record_path() -> Path:
    return cursorish_home() / "trust.json"


def _load_record() -> dict[str, Any]:
    """The record's repos; a missing file is empty, a malformed one a ConfigError."""
    path = record_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"{path}: cannot read the trust record ({exc}); fix or remove it"
        ) from None
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, dict):
        raise ConfigError(f"{path}: not a cursorish trust record; fix or remove it")
    return repos


def _entry(repo_root: Path) -> dict[str, Any] | None:
    """The record of `repo_root`; an unreadable record counts as no trust (fails closed)."""
    try:
        entry = _load_record().get(real_key(repo_root))
    except ConfigError:
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        return None
    return entry


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Serialise read-modify-write of the record between processes."""
    home = cursorish_home()
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "trust.json.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _save_record(repos: dict[str, Any]) -> None:
    path = record_path()
    fd, tmp = tempfile.mkstemp(prefix=".trust-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": 1, "repos": repos}, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # atomic: a crash leaves the old record, never half a file
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# -- the public API -------------------------------------------------------------------------


def repo_trust(repo_root: Path, files: Mapping[str, bytes] | None = None) -> TrustState:
    """The trust state of `repo_root` for its files now (or for the given contents)."""
    contents = trust_files(repo_root) if files is None else files
    entry = _entry(repo_root)
    return TrustState(
        repo=Path(real_key(repo_root)),
        current={rel: digest(data) for rel, data in contents.items()},
        recorded=dict(entry["files"]) if entry else None,
        trusted_at=str(entry.get("trusted_at")) if entry else None,
    )


def is_trusted(repo_root: Path) -> bool:
    """True when the user trusted this repository and none of its files changed since."""
    return repo_trust(repo_root).trusted


def content_trusted(repo_root: Path, rel: str, content: bytes) -> bool:
    """Whether the user trusted `rel` (a path from `trust_files`) with exactly this content."""
    entry = _entry(repo_root)
    return entry is not None and entry["files"].get(rel) == digest(content)


def trust_repo(repo_root: Path, files: Mapping[str, bytes] | None = None) -> TrustState:
    """Record trust in `repo_root`'s cursorish files as they are now (or as given: the exact
    contents the user was shown), replacing any earlier record of this repository."""
    contents = trust_files(repo_root) if files is None else files
    with _locked():
        repos = _load_record()
        repos[real_key(repo_root)] = {
            "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "files": {rel: digest(data) for rel, data in contents.items()},
        }
        _save_record(repos)
    return repo_trust(repo_root, contents)


def revoke(repo_root: Path) -> bool:
    """Forget the trust in `repo_root`; False when there was none."""
    with _locked():
        repos = _load_record()
        if repos.pop(real_key(repo_root), None) is None:
            return False
        _save_record(repos)
    return True


@dataclass(frozen=True)
class TrustRecord:
    repo: str
    trusted_at: str
    files: tuple[str, ...]


def trusted_repos() -> list[TrustRecord]:
    """Every repository in the record (malformed record: ConfigError)."""
    out = []
    for repo, entry in sorted(_load_record().items()):
        if isinstance(entry, dict) and isinstance(entry.get("files"), dict):
            out.append(TrustRecord(repo, str(entry.get("trusted_at", "")), tuple(entry["files"])))
    return out


def how_to_trust(repo_root: Path) -> str:
    return f"cursorish trust --repo {shlex.quote(real_key(repo_root))}"


# -- what the files would widen -------------------------------------------------------------


@dataclass(frozen=True)
class Widening:
    """One value of a repository file that needs trust."""

    file: str  # relative to the repository
    key: str
    value: str
    why: str = ""


@dataclass(frozen=True)
class Assessment:
    """What a repository's cursorish files would widen, and whether each file is trusted."""

    state: TrustState
    widenings: tuple[Widening, ...] = ()
    problems: tuple[str, ...] = field(default=())  # files that could not be parsed

    @property
    def ignored(self) -> tuple[Widening, ...]:
        """The widening values that do not take effect now (their file is not trusted)."""
        return tuple(w for w in self.widenings if not self.state.file_trusted(w.file))


def _toml(data: bytes) -> dict[str, Any]:
    return tomllib.loads(data.decode("utf-8"))


def printable(text: str) -> str:
    """`text` with control characters escaped: repository files may hold terminal escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    text = printable(text)
    return text if len(text) <= 120 else text[:117] + "..."


def builtin_profile_tools(name: str) -> tuple[str, ...] | None:
    """The tools of the shipped profile `name`, or None when there is no such profile."""
    from cursorish.core.resources import data_dir

    path = data_dir("agents") / f"{name}.toml"
    try:
        tools = _toml(path.read_bytes()).get("tools")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return tuple(str(t) for t in tools) if isinstance(tools, list) else None


def untrusted_profile_tools(name: str, tools: tuple[str, ...]) -> tuple[str, ...]:
    """The tools an untrusted repository profile `name` keeps: never more than the shipped
    profile of that name has, and never a tool that starts processes."""
    from cursorish.core.tools import REGISTRY

    builtin = builtin_profile_tools(name)
    power = {t.name for t in REGISTRY.tools() if t.starts_processes}
    return tuple(t for t in tools if t not in power and (builtin is None or t in builtin))


def _config_widenings(rel: str, data: dict[str, Any]) -> list[Widening]:
    return [
        Widening(rel, printable(key), _short(value), "widens what runs or where code goes")
        for key, value in data.items()
        if config_key_widens(key, value)
    ]


def _profile_widenings(
    rel: str, data: dict[str, Any], all_tools: tuple[str, ...]
) -> list[Widening]:
    raw = data.get("tools", all_tools)
    tools = tuple(str(t) for t in raw) if isinstance(raw, list) else all_tools
    name = Path(rel).stem
    kept = untrusted_profile_tools(name, tools)
    extra = [t for t in tools if t not in kept and t != "finish"]
    out = []
    if extra:
        out.append(Widening(rel, "tools", _short(extra), "tools beyond what is allowed untrusted"))
    for key, value in data.items():
        if key.startswith("sandbox") or key in WIDENING_CONFIG_KEYS:
            out.append(Widening(rel, printable(key), _short(value), "widens what runs"))
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and mcp.get("allow"):
        out.append(Widening(rel, "mcp.allow", _short(mcp["allow"]), "offers MCP tools"))
    return out


def _mcp_widenings(rel: str, data: Any) -> list[Widening]:
    servers = data.get("mcpServers", data.get("servers", {})) if isinstance(data, dict) else {}
    if not isinstance(servers, dict):
        return []
    out = []
    for name, spec in servers.items():
        shown = spec
        if isinstance(spec, dict):
            shown = spec.get("command") or spec.get("url") or spec
            if spec.get("args"):
                shown = f"{shown} {' '.join(str(a) for a in spec['args'])}"
        key = printable(f"mcpServers.{name}")
        out.append(Widening(rel, key, _short(shown), "starts an MCP server"))
    return out


def assess(repo_root: Path, files: Mapping[str, bytes] | None = None) -> Assessment:
    """What `repo_root`'s cursorish files (now, or the given contents) would widen."""
    from cursorish.core.tools import REGISTRY

    contents = trust_files(repo_root) if files is None else files
    widenings: list[Widening] = []
    problems: list[str] = []
    for rel, data in contents.items():
        try:
            if rel == CONFIG_FILE:
                widenings += _config_widenings(rel, _toml(data))
            elif rel == WORKTREES_FILE:
                setup = _toml(data).get("setup", "")
                if str(setup).strip():
                    widenings.append(Widening(rel, "setup", _short(setup), "runs on every task"))
            elif rel.startswith(AGENTS_DIR + "/"):
                widenings += _profile_widenings(rel, _toml(data), REGISTRY.names())
            elif rel in MCP_FILES:
                widenings += _mcp_widenings(rel, json.loads(data.decode("utf-8")))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{rel}: {exc}")
    return Assessment(repo_trust(repo_root, contents), tuple(widenings), tuple(problems))


def notice(repo_root: Path) -> str | None:
    """One line naming the values ignored because the repository is not trusted, or None."""
    ignored = assess(repo_root).ignored
    if not ignored:
        return None
    names = ", ".join(dict.fromkeys(f"{w.key} ({w.file})" for w in ignored))
    return (
        f"cursorish: ignoring {names}: this repository's files are not trusted; "
        f"review them, then run: {how_to_trust(repo_root)}"
    )
