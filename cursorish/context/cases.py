"""Making localisation cases from any repository's history (held-out sets for `eval locate`).

`python -m cursorish.context.cases GIT_DIR OUT_DIR --name NAME [--count 50]` writes
`OUT_DIR/NAME.bundle` and `OUT_DIR/NAME.jsonl`: non-merge commits that changed one to three
source files (not tests, docs or examples), spread evenly over the history, as cases in the
format of the shared eval data (task = the commit message, gold = those files).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from cursorish.context.langs import language_of
from cursorish.context.rank import _NON_SOURCE


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=True
    ).stdout


def make_cases(git_dir: Path, out: Path, name: str, count: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    log = _git(git_dir, "log", "--no-merges", "--format=%x00%H %P", "--name-status", "HEAD")
    candidates = []
    for block in log.split("\0")[1:]:
        lines = block.strip().splitlines()
        shas = lines[0].split()
        if len(shas) != 2:
            continue
        changes = [line.split("\t") for line in lines[1:] if line.strip()]
        if not changes or any(c[0] not in ("M",) for c in changes):
            continue  # additions, deletions and renames: the gold must exist at the parent
        paths = [c[1] for c in changes]
        source = [p for p in paths if language_of(p) and not _NON_SOURCE.search(p)]
        if 1 <= len(source) <= 3:
            candidates.append((shas[0], shas[1], source))
    picked = candidates[:: max(1, len(candidates) // count)][:count]
    bundle = out / f"{name}.bundle"
    subprocess.run(
        ["git", "--git-dir", str(git_dir), "bundle", "create", str(bundle), "HEAD"],
        capture_output=True,
        check=True,
    )
    with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
        for sha, parent, gold in picked:
            task = _git(git_dir, "log", "-1", "--format=%B", sha).strip()
            files = len(_git(git_dir, "ls-tree", "-r", "--name-only", parent).splitlines())
            case = {
                "id": f"{name}-{sha[:10]}",
                "repo": name,
                "commit": sha,
                "parent": parent,
                "task": task,
                "gold": gold,
                "files_at_parent": files,
                "bundle": bundle.name,
            }
            fh.write(json.dumps(case) + "\n")
    return len(picked)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--count", type=int, default=50)
    ns = ap.parse_args(argv)
    n = make_cases(ns.git_dir, ns.out, ns.name, ns.count)
    print(f"{n} cases in {ns.out / (ns.name + '.jsonl')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
