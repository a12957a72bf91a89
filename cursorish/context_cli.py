"""`cursorish context QUERY`: the ranked files of the current checkout for a query, and why;
`cursorish eval locate`: the ranking scored on cases (context/evaluate.py), printed."""

from __future__ import annotations

import argparse
import json
import tempfile
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


def cmd_eval_locate(args: argparse.Namespace) -> int:
    from cursorish.context.evaluate import CaseResult, load_cases, run_cases, summary

    path = Path(args.cases).expanduser()
    cases = load_cases(path)
    as_json = bool(getattr(args, "json", False))

    def show(r: CaseResult) -> None:
        if as_json:
            print(
                json.dumps(
                    {
                        "id": r.id,
                        "recall@1": r.recall[1],
                        "recall@5": r.recall[5],
                        "recall@10": r.recall[10],
                        "hit@5": r.hit5,
                        "bm25_recall@5": r.base_recall[5],
                        "index_s": round(r.index_s, 3),
                        "query_ms": round(r.query_ms, 1),
                        "top": r.top[: getattr(args, "k", 10)],
                    }
                ),
                flush=True,
            )
        else:
            print(
                f"{r.id:<40} r@1 {r.recall[1]:.2f} r@5 {r.recall[5]:.2f} r@10 {r.recall[10]:.2f} "
                f"hit@5 {int(r.hit5)}  bm25 r@5 {r.base_recall[5]:.2f}  "
                f"index {r.index_s:.2f}s query {r.query_ms:.0f}ms",
                flush=True,
            )

    work_arg = getattr(args, "work", None)
    if work_arg:
        work = Path(work_arg)
        work.mkdir(parents=True, exist_ok=True)
        results = run_cases(cases, path.parent, work, on_case=show)
    else:
        with tempfile.TemporaryDirectory(prefix="cursorish-locate-") as tmp:
            results = run_cases(cases, path.parent, Path(tmp), on_case=show)
    s = summary(results)
    if as_json:
        print(json.dumps({"summary": s}))
    else:
        print("summary " + " ".join(f"{k}={v}" for k, v in s.items()))
    return 0
