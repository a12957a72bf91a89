"""`cursorish context QUERY`: the ranked files of the current checkout for a query, and why."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cursorish.errors import CursorishError, ExitCode


def cmd_context(args: argparse.Namespace) -> int:
    from cursorish.context.engine import ContextEngine, view_name
    from cursorish.gitops.repo import open_repo

    query = str(args.query).strip()
    if not query:
        raise CursorishError("give a non-empty query", ExitCode.BAD_ARGS)
    k = int(getattr(args, "k", 10) or 10)
    if k < 1:
        raise CursorishError("--k must be at least 1", ExitCode.BAD_ARGS)
    repo = open_repo(Path(args.repo).expanduser())
    engine = ContextEngine.for_repo(repo.root)
    stats = engine.sync_worktree(repo.root)
    hits = engine.search(view_name(repo.root), query, k)
    if args.json:
        print(
            json.dumps(
                {
                    "query": query,
                    "files": stats.files,
                    "index_ms": round(stats.seconds * 1000, 1),
                    "results": [
                        {
                            "path": h.path,
                            "score": round(h.score, 4),
                            "why": {n: round(v, 4) for n, v in h.why.items()},
                            "lines": [{"line": n, "text": t} for n, t in h.lines],
                        }
                        for h in hits
                    ],
                }
            )
        )
        return 0
    if not hits:
        print(f"no file matches {query!r} ({stats.files} files indexed)")
        return 0
    for rank_no, h in enumerate(hits, 1):
        why = ", ".join(f"{n} {v:.2f}" for n, v in h.why.items())
        print(f"{rank_no:>2}. {h.path}  {h.score:.3f}  ({why})")
        for number, text in h.lines:
            print(f"      {number:>5}: {text.strip()[:120]}")
    print(
        f"({stats.files} files indexed, {stats.parsed} parsed now, {stats.seconds * 1000:.0f} ms)"
    )
    return 0
