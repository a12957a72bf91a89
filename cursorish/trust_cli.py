"""`cursorish trust`: show what a repository's own cursorish files would widen, and trust them.

Plain `cursorish trust` prints each value that needs trust and records the trust in exactly the
file contents it printed; `--dry-run` only prints; `--revoke` forgets; `--list` shows every
trusted repository and whether its files changed since.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cursorish.core.trust import (
    Assessment,
    assess,
    printable,
    repo_trust,
    revoke,
    trust_files,
    trust_repo,
    trusted_repos,
)


def cmd_trust(ns: argparse.Namespace) -> int:
    if ns.list:
        return _list(ns.json)
    from cursorish.gitops.repo import open_repo

    root = open_repo(Path(ns.repo).expanduser()).root
    if ns.revoke:
        done = revoke(root)
        if ns.json:
            print(json.dumps({"repo": str(root), "revoked": done}))
        else:
            print(f"trust revoked for {root}" if done else f"{root} was not trusted")
        return 0
    files = trust_files(root)  # the exact bytes shown are the bytes trusted
    before = assess(root, files)
    if not ns.dry_run:
        trust_repo(root, files)
    if ns.json:
        print(json.dumps(_as_json(root, before, recorded=not ns.dry_run), indent=2))
        return 0
    _print(root, before, dry_run=ns.dry_run)
    return 0


def _as_json(root: Path, a: Assessment, *, recorded: bool) -> dict[str, Any]:
    return {
        "repo": str(root),
        "files": dict(a.state.current),
        "was_trusted": a.state.trusted,
        "trusted": recorded or a.state.trusted,
        "widenings": [
            {"file": w.file, "key": w.key, "value": w.value, "why": w.why} for w in a.widenings
        ],
        "problems": list(a.problems),
    }


def _print(root: Path, a: Assessment, *, dry_run: bool) -> None:
    print(f"repository {root}")
    if not a.state.current:
        print("  no .cursorish files, .mcp.json or agent profiles: nothing widens what runs")
    elif not a.widenings:
        print("  its files widen nothing (no policy, allowlist, sandbox, setup, tools or servers)")
    else:
        print("  trusting it lets these values take effect:")
        width = max(len(w.key) for w in a.widenings)
        for file in dict.fromkeys(w.file for w in a.widenings):
            print(f"  {file}")
            for w in (w for w in a.widenings if w.file == file):
                print(f"    {w.key:<{width}}  {w.value}  ({w.why})")
    for problem in a.problems:
        print(f"  cannot parse {printable(problem)} (its loader will report it)")
    if dry_run:
        state = "trusted" if a.state.trusted else "not trusted"
        print(f"\n{state}; nothing recorded (--dry-run)")
        return
    if a.state.trusted:
        print("\nalready trusted, files unchanged")
        return
    print(
        f"\ntrusted ({len(a.state.current)} file(s)); a change to any of them needs "
        "`cursorish trust` again"
    )


def _list(as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for rec in trusted_repos():
        path = Path(rec.repo)
        changed = list(repo_trust(path).changed) if path.is_dir() else []
        rows.append(
            {
                "repo": rec.repo,
                "trusted_at": rec.trusted_at,
                "files": list(rec.files),
                "exists": path.is_dir(),
                "changed": changed,
            }
        )
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no trusted repositories")
    for row in rows:
        state = (
            "gone"
            if not row["exists"]
            else f"changed since: {', '.join(row['changed'])}"
            if row["changed"]
            else "unchanged"
        )
        print(f"{printable(row['repo'])}  trusted {row['trusted_at']}  {state}")
    return 0
