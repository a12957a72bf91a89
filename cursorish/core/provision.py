"""Provisioning a fresh agent worktree: copy the user's git-ignored local files, run a setup.

A new worktree has only what git tracks, so tests that need `.env` or a local config fail
there while they pass in the user's checkout. The files to copy are listed in the shipped
`worktrees/defaults.toml` plus the repository's `.cursorish/worktrees.toml` (lists merged,
`setup` replaced). Only files that exist, are git-ignored and are regular files inside the
checkout are copied; a symlink anywhere on the way (source or destination) is skipped, so
provisioning can never read or write outside the two trees.
"""

from __future__ import annotations

import glob as _glob
import os
import shutil
import subprocess
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from cursorish.core.command_runner import CommandResult, run_in_worktree
from cursorish.core.containment import resolve_in_worktree
from cursorish.core.local_files import record_local_files
from cursorish.core.resources import data_dir
from cursorish.core.sandbox import SandboxPolicy
from cursorish.core.trust import WORKTREES_FILE, content_trusted
from cursorish.errors import ConfigError, CursorishError
from cursorish.gitops.runner import split_z

KEYS = frozenset({"copy", "setup", "setup_timeout_s"})
MAX_COPY_BYTES = 50_000_000  # a local config, not a data set
SETUP_OUTPUT_CAP = 20_000
DEFAULT_SANDBOX = SandboxPolicy()


@dataclass(frozen=True)
class ProvisionSpec:
    copy: tuple[str, ...] = ()
    setup: str = ""
    setup_timeout_s: float = 600.0
    # The repository's setup command when it was ignored (repository not trusted).
    ignored_setup: str = ""


@dataclass
class ProvisionResult:
    copied: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)
    setup: CommandResult | None = None


class SetupFailed(CursorishError):
    """The worktree setup command failed or timed out; the message says which and shows output."""

    def __init__(self, message: str, result: ProvisionResult) -> None:
        super().__init__(message)
        self.result = result


def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read worktree provisioning: {exc}") from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}"
        )
    copy = data.get("copy", [])
    if not isinstance(copy, list) or not all(isinstance(c, str) for c in copy):
        raise ConfigError(f"{path}: copy must be a list of paths")
    if not isinstance(data.get("setup", ""), str):
        raise ConfigError(f"{path}: setup must be a string (a shell command)")
    return data


def load_spec(repo_root: Path, *, defaults: Path | None = None) -> ProvisionSpec:
    """The shipped defaults merged with the repository's `.cursorish/worktrees.toml`."""
    base = _read(defaults or data_dir("worktrees") / "defaults.toml")
    own_path = repo_root / WORKTREES_FILE
    own = _read(own_path)
    copy = list(dict.fromkeys([*base.get("copy", []), *own.get("copy", [])]))
    ignored = ""
    if str(own.get("setup", "")).strip() and not _trusted(repo_root, own_path):
        # A cloned repository's setup command would run on every task: only once trusted.
        ignored = str(own.pop("setup")).strip()
    setup = own["setup"] if "setup" in own else base.get("setup", "")
    timeout = own.get("setup_timeout_s", base.get("setup_timeout_s", 600))
    try:
        timeout_s = float(timeout)
    except (TypeError, ValueError):
        raise ConfigError(f"setup_timeout_s must be a number, got {timeout!r}") from None
    return ProvisionSpec(tuple(copy), str(setup).strip(), timeout_s, ignored)


def _trusted(repo_root: Path, path: Path) -> bool:
    try:
        return content_trusted(repo_root, WORKTREES_FILE, path.read_bytes())
    except OSError:
        return False


def _candidates(source_root: Path, names: tuple[str, ...]) -> list[str]:
    """Relative names to consider: plain entries as given, glob entries expanded."""
    out: list[str] = []
    for name in names:
        pure = PurePosixPath(name.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            continue  # reported below as not inside the checkout
        if any(ch in name for ch in "*?["):
            for hit in sorted(_glob.glob(name, root_dir=source_root, recursive=True)):
                out.append(PurePosixPath(hit).as_posix())
        else:
            out.append(pure.as_posix())
    return list(dict.fromkeys(out))


def _no_symlink_on_the_way(root: Path, rel: str) -> bool:
    current = root
    for part in PurePosixPath(rel).parts:
        current = current / part
        if current.is_symlink():
            return False
    return True


def ignored_by_git(repo_root: Path, names: list[str]) -> set[str]:
    """The subset of `names` that git ignores in `repo_root` (tracked files never are)."""
    if not names:
        return set()
    # check-ignore exits 1 when none is ignored; -z (NUL-separated names) needs --stdin.
    done = subprocess.run(
        ["git", "--no-optional-locks", "check-ignore", "-z", "--stdin"],
        cwd=repo_root,
        input=b"\0".join(os.fsencode(n) for n in names),
        capture_output=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise CursorishError(f"git check-ignore failed: {done.stderr.decode().strip()}")
    return set(split_z(done.stdout))


def local_files_to_copy(
    source_root: Path, names: tuple[str, ...]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The listed files of `source_root` that may be copied, and the others with the reason.

    A file qualifies when it is git-ignored and a regular file inside the checkout, with no
    symlink on the way and not over the size limit.
    """
    chosen: list[str] = []
    skipped: list[tuple[str, str]] = []
    for name in names:
        pure = PurePosixPath(name.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts:
            skipped.append((name, "not a path inside the checkout"))
    candidates = _candidates(source_root, names)
    present = [c for c in candidates if os.path.lexists(source_root / c)]
    ignored = ignored_by_git(source_root, present)
    real_root = Path(os.path.realpath(source_root))
    for rel in present:
        src = source_root / rel
        if not _no_symlink_on_the_way(source_root, rel):
            skipped.append((rel, "a symlink (not followed)"))
        elif not src.is_file():
            skipped.append((rel, "not a regular file"))
        elif real_root not in Path(os.path.realpath(src)).parents:
            skipped.append((rel, "outside the checkout"))
        elif rel not in ignored:
            skipped.append((rel, "not git-ignored (tracked files are already in the worktree)"))
        elif src.stat().st_size > MAX_COPY_BYTES:
            skipped.append((rel, f"larger than {MAX_COPY_BYTES} bytes"))
        else:
            chosen.append(rel)
    return chosen, skipped


def copy_ignored_files(
    source_root: Path, dest_root: Path, names: tuple[str, ...]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Copy each listed file that is git-ignored and a regular file inside `source_root`."""
    copied: list[str] = []
    copied_before: list[str] = []
    chosen, skipped = local_files_to_copy(source_root, names)
    for rel in chosen:
        try:
            target = resolve_in_worktree(dest_root, rel)
        except CursorishError as exc:
            skipped.append((rel, exc.message))
            continue
        if target.exists() or target.is_symlink():
            skipped.append((rel, "already exists in the worktree"))
            if _same_content(source_root / rel, target):
                copied_before.append(rel)  # a resumed agent: copied the first time
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _no_symlink_on_the_way(dest_root, rel):  # mkdir cannot add one, but be sure
            skipped.append((rel, "a symlink in the worktree is on the way"))
            continue
        shutil.copy2(source_root / rel, target, follow_symlinks=False)
        copied.append(rel)
    # Before the planner can read them: these are the user's secrets (core/local_files.py).
    record_local_files(dest_root, [*copied, *copied_before])
    return copied, skipped


def _same_content(a: Path, b: Path) -> bool:
    try:
        return not b.is_symlink() and b.is_file() and a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def run_setup(
    dest: Path,
    command: str,
    timeout_s: float,
    cancel: threading.Event | None = None,
    *,
    sandbox: SandboxPolicy | None = DEFAULT_SANDBOX,
    repo_root: Path | None = None,
) -> CommandResult:
    """Run the setup command with bash in the worktree's sandbox (own process group, timeout).

    Setup is the repository's code like any test run: it gets the agent's sandbox (network
    included only when the policy has it, e.g. to install dependencies).
    """
    return run_in_worktree(
        ["bash", "-c", command],
        dest,
        timeout_s=timeout_s,
        cancel=cancel,
        output_cap=SETUP_OUTPUT_CAP,
        sandbox=sandbox,
        repo_root=repo_root,
    )


def run_setup_step(
    dest: Path,
    spec: ProvisionSpec,
    result: ProvisionResult,
    cancel: threading.Event | None = None,
    *,
    sandbox: SandboxPolicy | None = DEFAULT_SANDBOX,
    repo_root: Path | None = None,
) -> None:
    """Run the spec's setup command (if any) into `result.setup`; SetupFailed if it fails."""
    if not spec.setup:
        return
    done = run_setup(
        dest, spec.setup, spec.setup_timeout_s, cancel, sandbox=sandbox, repo_root=repo_root
    )
    result.setup = done
    if done.exit_code == 0:
        return
    if done.timed_out:
        why = f"timed out after {spec.setup_timeout_s:.0f}s"
    elif done.cancelled:
        why = "was cancelled"
    else:
        why = f"exited with code {done.exit_code}"
    tail = done.output.strip()[-1500:]
    raise SetupFailed(
        f"worktree setup command {spec.setup!r} {why}"
        + (f"; its output ends with:\n{tail}" if tail else " (no output)"),
        result,
    )


def provision(
    source_root: Path,
    dest: Path,
    spec: ProvisionSpec,
    cancel: threading.Event | None = None,
    *,
    sandbox: SandboxPolicy | None = DEFAULT_SANDBOX,
) -> ProvisionResult:
    """Copy local files and run setup; raises SetupFailed (result attached) when setup fails."""
    result = ProvisionResult()
    result.copied, result.skipped = copy_ignored_files(source_root, dest, spec.copy)
    run_setup_step(dest, spec, result, cancel, sandbox=sandbox, repo_root=source_root)
    return result
