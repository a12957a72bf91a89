"""Command handlers behind `cursorish apply` and `cursorish eval apply` (a front end over the
apply engine; `cursorish bench apply` is in cursorish/bench/apply.py)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cursorish.apply.result import Merged


def normalise(text: str) -> list[str]:
    """Lines compared by the eval: trailing whitespace and surrounding blank lines stripped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def index_percentile(values: list[float], q: float) -> float:
    """The sorted value at index round(q * (n - 1)), 0.0 for no values: the percentile that
    `eval apply` and `bench apply` report."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _configure_model(args: argparse.Namespace, engine: str | None) -> str:
    """Configure the apply model as every other command does, and return the engine to use.

    The layers are those `cursorish config` shows for the current directory: the user's and the
    repository's config files (apply_model, apply_api_base, apply_remote_*; the repository's only
    where trusted), the CURSORISH_APPLY_* variables, then `--apply-model` / `--engine`. A forced
    deterministic engine reads none of it (it has no model to configure).
    """
    if engine == "deterministic":
        return engine
    from pathlib import Path

    from cursorish.config import load_config
    from cursorish.config.settings import configure_apply
    from cursorish.errors import CursorishError
    from cursorish.gitops.repo import open_repo

    try:
        root: Path | None = open_repo(Path(".")).root
    except CursorishError:
        root = None  # outside a repository: user-level configuration only
    flags = {"apply_model": getattr(args, "apply_model", None), "apply_engine": engine}
    cfg = load_config(root, {k: v for k, v in flags.items() if v})
    configure_apply(cfg)
    return cfg.get_str("apply_engine") or "auto"


def _load_cases(path: str) -> list[dict[str, Any]]:
    from cursorish.errors import CursorishError, ExitCode

    cases: list[dict[str, Any]] = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                case = json.loads(line)
                missing = {"id", "path", "original", "sketch", "expected"} - set(case)
                if missing:
                    raise CursorishError(
                        f"{path}:{number}: case lacks {', '.join(sorted(missing))}",
                        ExitCode.BAD_ARGS,
                    )
                cases.append(case)
    except OSError as error:
        raise CursorishError(f"cannot read {path}: {error.strerror}", ExitCode.BAD_ARGS) from None
    except (UnicodeDecodeError, json.JSONDecodeError, TypeError) as error:
        raise CursorishError(f"{path}: not a JSONL case file: {error}", ExitCode.BAD_ARGS) from None
    return cases


def cmd_eval_apply(args: argparse.Namespace) -> int:
    """Run every case of a JSONL eval file through the router and print outcomes and a summary."""
    from cursorish.apply.router import apply_sketch

    as_json = bool(getattr(args, "json", False))
    counts = {"exact": 0, "refused": 0, "wrong": 0}
    by_language: dict[str, dict[str, int]] = {}
    times: list[float] = []
    cases = _load_cases(args.cases)
    engine = _configure_model(args, getattr(args, "engine", None) or "deterministic")
    for case in cases:
        started = time.perf_counter()
        outcome = apply_sketch(
            case["original"],
            case["sketch"],
            path=case["path"],
            engine=engine,
            instruction=case.get("instruction"),
        )
        ms = (time.perf_counter() - started) * 1000
        times.append(ms)
        reason = ""
        if isinstance(outcome, Merged):
            ok = normalise(outcome.text) == normalise(case["expected"])
            result = "exact" if ok else "wrong"
        else:
            result = "refused"
            reason = outcome.reason
        counts[result] += 1
        language = by_language.setdefault(
            str(case.get("lang") or "?"), {"exact": 0, "refused": 0, "wrong": 0}
        )
        language[result] += 1
        fmt = outcome.sketch_format
        if as_json:
            record: dict[str, Any] = {"id": case["id"], "outcome": result, "ms": round(ms, 2)}
            record["format"] = fmt
            if reason:
                record["reason"] = reason
            print(json.dumps(record))
        else:
            short = (reason[:100] + "…") if len(reason) > 100 else reason
            print(f"{case['id']:<48} {result:<8} {ms:7.1f} ms  {fmt:<14} {short}")
    total = len(cases) or 1
    summary = {
        "cases": len(cases),
        "exact": counts["exact"],
        "refused": counts["refused"],
        "wrong": counts["wrong"],
        "exact_rate": round(counts["exact"] / total, 4),
        "wrong_rate": round(counts["wrong"] / total, 4),
        "p50_ms": round(index_percentile(times, 0.5), 2),
        "p95_ms": round(index_percentile(times, 0.95), 2),
        "languages": by_language,
    }
    if as_json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['cases']} cases: {summary['exact']} exact ({summary['exact_rate']:.1%}), "
            f"{summary['refused']} refused, {summary['wrong']} wrong "
            f"({summary['wrong_rate']:.1%}); "
            f"p50 {summary['p50_ms']} ms, p95 {summary['p95_ms']} ms"
        )
        for name, seen in sorted(by_language.items()):
            size = sum(seen.values()) or 1
            print(
                f"  {name:<12} {sum(seen.values()):>4} cases: {seen['exact'] / size:6.1%} exact, "
                f"{seen['refused'] / size:6.1%} refused, {seen['wrong'] / size:5.1%} wrong"
            )
    sys.stdout.flush()
    return 0


def _read_bytes(path: str, what: str) -> bytes:
    from cursorish.errors import CursorishError, ExitCode

    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError as error:
        raise CursorishError(f"{what} {path!r} does not exist", ExitCode.BAD_ARGS) from error
    except IsADirectoryError as error:
        raise CursorishError(f"{what} {path!r} is a directory", ExitCode.BAD_ARGS) from error
    except OSError as error:
        raise CursorishError(
            f"cannot read {what} {path!r}: {error.strerror}", ExitCode.BAD_ARGS
        ) from error


def cmd_apply(args: argparse.Namespace) -> int:
    """Merge a sketch into a file; print the result (or write it with -o); exit 3 on refusal."""
    import os

    from cursorish.apply.router import apply_sketch
    from cursorish.apply.textio import decode_source, encode_source, is_binary, write_atomic
    from cursorish.errors import CursorishError, ExitCode

    try:
        data = _read_bytes(args.original, "original file")
        sketch_data = _read_bytes(args.sketch, "sketch file")
    except CursorishError as error:
        print(f"cursorish apply: {error.message}", file=sys.stderr)
        return int(error.exit_code)
    if is_binary(data):
        print(
            f"cursorish apply: {args.original} is a binary file (it contains NUL bytes); "
            "refusing to merge into it",
            file=sys.stderr,
        )
        return int(ExitCode.APPLY_REFUSED)
    original = decode_source(data)
    sketch = sketch_data.decode("utf-8", "surrogateescape")
    path = getattr(args, "path", None) or os.path.basename(args.original)
    engine = _configure_model(args, getattr(args, "engine", None))
    outcome = apply_sketch(original, sketch, path=path, engine=engine)
    if not isinstance(outcome, Merged):
        print(f"cursorish apply: refused ({outcome.engine}): {outcome.reason}", file=sys.stderr)
        return int(ExitCode.APPLY_REFUSED)
    encoded = encode_source(outcome.text)
    output = getattr(args, "output", None)
    if output and output != "-":
        try:
            write_atomic(output, encoded)
        except OSError as error:
            print(f"cursorish apply: cannot write {output!r}: {error.strerror}", file=sys.stderr)
            return int(ExitCode.BAD_ARGS)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(encoded)
        sys.stdout.buffer.flush()
    return int(ExitCode.OK)
