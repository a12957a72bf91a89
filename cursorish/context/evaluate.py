"""What `cursorish eval locate` measures: how well the ranking puts a commit's files first,
given its message.

Each case names a git bundle, a parent commit, the task (the commit message) and the gold files.
Every bundle is cloned once (bare) and every case's tree is indexed straight from git's objects
(no checkout). The cases of a bundle run in the history order of their parents and the index
keeps one commit's blobs at a time, as it would for a checkout, so `index_s` of a later case is
what an incremental update between the two parents costs. A plain BM25 ranking (the same FTS5
index, no other signal) runs beside ours in the same run as the baseline.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.context.engine import ContextEngine
from cursorish.context.rank import Weights
from cursorish.errors import CursorishError, ExitCode

BASELINE = Weights(
    path=0.0,
    ident=0.0,
    graph=0.0,
    non_source=1.0,
    text_only=1.0,
    path_only=1.0,
    churn=0.0,
    churn_add=0.0,
    drop_common=False,
)


@dataclass
class CaseResult:
    id: str
    recall: dict[int, float]
    hit5: bool
    base_recall: dict[int, float]
    base_hit5: bool
    index_s: float
    query_ms: float
    top: list[str]


def load_cases(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CursorishError(f"cannot read {path}: {exc}", ExitCode.BAD_ARGS) from None
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            for key in ("id", "bundle", "parent", "task", "gold"):
                if key not in case:
                    raise ValueError(f"missing {key!r}")
        except (ValueError, TypeError) as exc:
            raise CursorishError(f"{path}:{number}: bad case: {exc}", ExitCode.BAD_ARGS) from None
        cases.append(case)
    return cases


def _recall(ranked: list[str], gold: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(gold)) / len(gold) if gold else 0.0


def run_cases(
    cases: list[dict[str, Any]],
    base_dir: Path,
    work: Path,
    weights: Weights | None = None,
    on_case: Any = None,
) -> list[CaseResult]:
    """Score every case. Cases run grouped by bundle, in the history order of their parents,
    with one commit's blobs in the index at a time (as in a checkout): the next case
    re-parses only what changed between the two parents."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        bundle = Path(case["bundle"])
        if not bundle.is_absolute():
            bundle = base_dir / bundle
        groups.setdefault(str(bundle.resolve()), []).append(case)
    results: list[CaseResult] = []
    for number, (bundle_path, group) in enumerate(groups.items()):
        git_dir = _clone(Path(bundle_path), work / f"repo{number}.git")
        engine = ContextEngine(work / f"repo{number}.db")
        times = _commit_times(git_dir, [c["parent"] for c in group])
        for case in sorted(group, key=lambda c: times.get(c["parent"], 0)):
            result = _run_case(engine, git_dir, case, weights)
            engine.prune()
            results.append(result)
            if on_case is not None:
                on_case(result)
    return results


def _clone(bundle: Path, git_dir: Path) -> Path:
    if not git_dir.exists():
        proc = subprocess.run(
            ["git", "clone", "--quiet", "--bare", str(bundle), str(git_dir)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise CursorishError(
                f"cannot clone bundle {bundle}: {proc.stderr.strip()}", ExitCode.BAD_ARGS
            )
    return git_dir


def _commit_times(git_dir: Path, shas: list[str]) -> dict[str, int]:
    """sha -> commit time ({} for what git cannot show)."""
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", "-s", "--format=%H %ct", *sorted(set(shas))],
        capture_output=True,
        text=True,
        check=False,
    )
    out: dict[str, int] = {}
    for line in proc.stdout.splitlines():
        sha, _, stamp = line.partition(" ")
        if stamp.isdigit():
            out[sha] = int(stamp)
    return out


def _run_case(
    engine: ContextEngine, git_dir: Path, case: dict[str, Any], weights: Weights | None
) -> CaseResult:
    try:
        view, stats = engine.sync_commit(git_dir, case["parent"])
    except subprocess.CalledProcessError as exc:
        raise CursorishError(
            f"case {case['id']}: cannot read commit {case['parent']}: "
            f"{(exc.stderr or b'').decode(errors='replace').strip()}",
            ExitCode.BAD_ARGS,
        ) from None
    started = time.perf_counter()
    ranked = [r.path for r in engine.rank(view, case["task"], weights)]
    query_ms = (time.perf_counter() - started) * 1000
    base = [r.path for r in engine.rank(view, case["task"], BASELINE)]
    gold = list(case["gold"])
    engine.index.drop_view(view)
    return CaseResult(
        id=case["id"],
        recall={k: _recall(ranked, gold, k) for k in (1, 5, 10)},
        hit5=set(gold) <= set(ranked[:5]),
        base_recall={k: _recall(base, gold, k) for k in (1, 5, 10)},
        base_hit5=set(gold) <= set(base[:5]),
        index_s=stats.seconds,
        query_ms=query_ms,
        top=ranked[:10],
    )


def summary(results: list[CaseResult]) -> dict[str, float]:
    n = len(results) or 1
    times = sorted(r.query_ms for r in results)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
    return {
        "cases": len(results),
        "recall@1": round(sum(r.recall[1] for r in results) / n, 3),
        "recall@5": round(sum(r.recall[5] for r in results) / n, 3),
        "recall@10": round(sum(r.recall[10] for r in results) / n, 3),
        "hit@5": round(sum(r.hit5 for r in results) / n, 3),
        "bm25_recall@1": round(sum(r.base_recall[1] for r in results) / n, 3),
        "bm25_recall@5": round(sum(r.base_recall[5] for r in results) / n, 3),
        "bm25_recall@10": round(sum(r.base_recall[10] for r in results) / n, 3),
        "bm25_hit@5": round(sum(r.base_hit5 for r in results) / n, 3),
        "query_p95_ms": round(p95, 1),
        "index_s": round(sum(r.index_s for r in results), 2),
    }
