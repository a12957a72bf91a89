"""What a sandboxed command sees of the repository's git metadata: exactly what git needs in
the agent's worktree, read-only, with a sanitised copy of the repository's config."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from pathlib import Path

from cursorish.core.sandbox.policy import SandboxError, hash_text


def _read_gitfile(path: Path) -> Path | None:
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text.removeprefix("gitdir:").strip())
    return Path(os.path.realpath(target if target.is_absolute() else path.parent / target))


def _common_dir(gitdir: Path) -> Path:
    try:
        rel = (gitdir / "commondir").read_text("utf-8").strip()
    except OSError:
        return gitdir
    p = Path(rel)
    return Path(os.path.realpath(p if p.is_absolute() else gitdir / p))


def _repo_common_dir(repo_root: Path) -> Path | None:
    dotgit = repo_root / ".git"
    if dotgit.is_dir():
        return Path(os.path.realpath(dotgit))
    gitdir = _read_gitfile(dotgit)
    return _common_dir(gitdir) if gitdir is not None else None


def git_layout(wt: Path, repo_root: Path | None) -> tuple[Path, Path] | None:
    """(the worktree's own git dir, the repository's common dir), or None for a plain dir."""
    gitdir = _read_gitfile(wt / ".git")
    if gitdir is None:
        return None
    common = _common_dir(gitdir)
    expected = _repo_common_dir(Path(os.path.realpath(repo_root))) if repo_root else None
    if (expected is not None and common != expected) or gitdir.parent != common / "worktrees":
        raise SandboxError(
            f"the worktree {wt} does not belong to the repository {repo_root or common} "
            f"(its .git points at {gitdir}); refusing to run commands in it"
        )
    return gitdir, common


def checkouts(layout: tuple[Path, Path] | None, wt: Path) -> list[Path]:
    """The repository's other checkouts: the main one and every other linked worktree."""
    if layout is None:
        return []
    gitdir, common = layout
    found: list[Path] = []
    if common.name == ".git":
        found.append(common.parent)
    with contextlib.suppress(OSError):
        for entry in (common / "worktrees").iterdir():
            if entry == gitdir:
                continue
            with contextlib.suppress(OSError):
                target = Path((entry / "gitdir").read_text("utf-8").strip())
                if target.name == ".git" and target.parent != wt:
                    found.append(Path(os.path.realpath(target.parent)))
    return found


def git_binds(gitdir: Path, common: Path) -> list[str]:
    """Read-only binds of exactly the git metadata a linked worktree needs."""
    binds: list[str] = []
    # Hide the whole common dir first (hooks, config, other worktrees' git dirs), then
    # re-expose the parts git reads.
    binds += ["--perms", "0755", "--tmpfs", str(common)]
    for name in ("objects", "refs", "packed-refs", "HEAD", "info", "shallow", "lfs"):
        part = common / name
        if part.exists():
            binds += ["--ro-bind", str(part), str(part)]
    binds += ["--ro-bind", str(gitdir), str(gitdir)]
    binds += ["--ro-bind", str(_sanitised_config(common)), str(common / "config")]
    return binds


_SAFE_CONFIG_PREFIXES = (
    "core.repositoryformatversion",
    "core.bare",
    "core.filemode",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "extensions.",
)


def _sanitised_config(common: Path) -> Path:
    """A copy of the repository's config with only the keys that define its format.

    The real one can hold credentials (remote URLs) and settings that run programs; the
    copy lives in cursorish's state and is rewritten when the original changes.
    """
    from cursorish.store.paths import cursorish_home

    src = common / "config"
    try:
        stat = src.stat()
        stamp = f"{stat.st_mtime_ns}-{stat.st_size}"
    except OSError:
        stamp = "none"
    out_dir = cursorish_home() / "sandbox"
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = hash_text(str(common))
    out = out_dir / f"gitconfig-{digest}-{stamp}"
    if out.exists():
        return out
    lines = ["[core]", "\trepositoryformatversion = 0", "\tbare = false"]
    if stamp != "none":
        proc = subprocess.run(
            ["git", "config", "--file", str(src), "--null", "--list"],
            capture_output=True,
            check=False,
        )
        entries: dict[str, str] = {}
        for item in proc.stdout.decode("utf-8", "replace").split("\0"):
            key, _, value = item.partition("\n")
            if key.lower().startswith(_SAFE_CONFIG_PREFIXES):
                entries[key.lower()] = value
        lines = []
        sections: dict[str, list[str]] = {}
        for key, value in entries.items():
            section, _, name = key.rpartition(".")
            sections.setdefault(section, []).append(f"\t{name} = {_quote(value)}")
        sections.setdefault("core", [])
        for section, body in sections.items():
            lines.append(f"[{section}]")
            lines.extend(body)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text("\n".join(lines) + "\n", "utf-8")
    os.replace(tmp, out)
    # Older copies, once no command that is starting can still be binding them.
    cutoff = time.time() - 60
    for old in out_dir.glob(f"gitconfig-{digest}-*"):
        with contextlib.suppress(OSError):
            if old != out and old.stat().st_mtime < cutoff:
                old.unlink()
    return out


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
