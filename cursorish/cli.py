"""Command-line parsing only: every subcommand is dispatched to a handler in the package.

Handlers are imported lazily so that `cursorish --version` and `--help` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from cursorish import __version__
from cursorish.apply.engines import ENGINES
from cursorish.errors import CursorishError, ExitCode

# subcommand -> (module, function); the function takes the parsed Namespace, returns an exit code.
HANDLERS: dict[str, tuple[str, str]] = {
    "task": ("cursorish.run_cli", "cmd_task"),
    "demo": ("cursorish.replay.demo", "cmd_demo"),
    "config": ("cursorish.run_cli", "cmd_config"),
    "log": ("cursorish.run_cli", "cmd_log"),
    "apply": ("cursorish.apply_cli", "cmd_apply"),
    "eval apply": ("cursorish.apply_cli", "cmd_eval_apply"),
    "bench apply": ("cursorish.bench.apply", "cmd_bench_apply"),
    "bench spec": ("cursorish.bench.spec", "cmd_bench_spec"),
    "bench agents": ("cursorish.bench.agents", "cmd_bench_agents"),
    "bench sandbox": ("cursorish.bench.sandbox", "cmd_bench_sandbox"),
    "agents": ("cursorish.agents_cli", "run_agents_command"),
    "gc": ("cursorish.agents_cli", "run_gc_command"),
    "tui": ("cursorish.tui.launch", "cmd_tui"),
    "branches": ("cursorish.review_cli", "cmd_branches"),
    "review": ("cursorish.review_cli", "cmd_review"),
    "merge": ("cursorish.review_cli", "cmd_merge"),
    "compare": ("cursorish.review_cli", "cmd_compare"),
    "bench tui": ("cursorish.bench.tui", "cmd_bench_tui"),
    "context": ("cursorish.context_cli", "cmd_context"),
    "eval locate": ("cursorish.context_cli", "cmd_eval_locate"),
    "bench context": ("cursorish.bench.context", "cmd_bench_context"),
    "bench mcp": ("cursorish.bench.mcp", "cmd_bench_mcp"),
    "trust": ("cursorish.trust_cli", "cmd_trust"),
    "mcp": ("cursorish.mcp_cli", "cmd_mcp"),
    "chat": ("cursorish.chat_cli", "cmd_chat"),
}
SUBCOMMANDS = (
    "demo",
    "config",
    "log",
    "apply",
    "eval",
    "bench",
    "agents",
    "gc",
    "tui",
    "branches",
    "review",
    "merge",
    "compare",
    "trust",
    "mcp",
    "chat",
    "context",
)


def _number(kind: type[int] | type[float], least: float, inclusive: bool) -> Callable[[str], float]:
    """An argparse type: a finite number of `kind` at least (or above) `least`."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if kind is int else 'a number'}"
            ) from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < least or (value == least and not inclusive):
            raise argparse.ArgumentTypeError(
                f"{text} is too small: give {'at least' if inclusive else 'more than'} {least:g}"
            )
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


COUNT = _number(int, 1, True)
AMOUNT = _number(float, 0, False)
DELAY = _number(float, 0, True)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("models and budgets (override config files and environment)")
    g.add_argument("--planner", metavar="MODEL", help="litellm model, e.g. openai/gpt-5")
    g.add_argument("--api-base", metavar="URL", help="OpenAI-compatible endpoint for the planner")
    g.add_argument("--apply-model", metavar="PATH", help="GGUF apply model for the model engine")
    g.add_argument("--engine", choices=ENGINES, dest="apply_engine", help="apply engine")
    g.add_argument("--profile", metavar="NAME", help="agent profile (agents/NAME.toml)")
    g.add_argument("--max-steps", type=COUNT, metavar="N", help="planner steps per agent")
    g.add_argument("--max-tokens", type=COUNT, metavar="N", help="tokens per agent")
    g.add_argument("--max-cost", type=AMOUNT, metavar="USD", dest="max_cost_usd")
    g.add_argument("--max-time", type=AMOUNT, metavar="SECONDS", dest="max_wall_s")
    g.add_argument("--concurrency", type=COUNT, metavar="N", help="agents at once (default 8)")
    g.add_argument(
        "--commands",
        choices=("allowlist", "ask", "deny", "allow"),
        dest="command_policy",
        help="run_command policy (default: allowlist headless, where ask means allowlist; "
        "ask in the app)",
    )
    g.add_argument(
        "--no-sandbox",
        action="store_const",
        const="off",
        dest="sandbox",
        help="run agents' commands WITHOUT the OS sandbox (dangerous; warned on every run)",
    )
    g.add_argument(
        "--sandbox-network",
        action="store_const",
        const=True,
        dest="sandbox_network",
        help="let sandboxed commands use the network",
    )


def _output_options(p: argparse.ArgumentParser) -> None:
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="JSON lines: events, then a summary")
    out.add_argument("--quiet", "-q", action="store_true", help="print only the summary")


def task_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cursorish",
        description="Run coding agents on a git repository; each works in its own worktree "
        "and branch.",
        epilog="with no arguments, opens the app (cursorish tui). commands: tui, demo, config, "
        "log, agents, branches, review, merge, compare, gc, apply, eval apply, "
        "bench apply|spec|agents|sandbox|tui|context, context, eval locate  "
        "(cursorish COMMAND --help)",
    )
    p.add_argument("--version", action="version", version=f"cursorish {__version__}")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--task", metavar="TEXT", help="what the agent should do")
    src.add_argument("--tasks", metavar="FILE", help="one task per line; one agent each")
    p.add_argument("--repo", metavar="PATH", default=".", help="repository (default: .)")
    p.add_argument("--agents", type=COUNT, default=1, metavar="N", help="best-of-N for --task")
    p.add_argument(
        "--base",
        metavar="REF",
        help="start from this commit-ish (branch, tag, origin/feature, a fetched PR ref) "
        "instead of HEAD; review and merge diff against it",
    )
    p.add_argument(
        "--plan",
        action="store_const",
        const=True,
        help="plan first: read and search only, print the plan and stop "
        "(then: cursorish chat AGENT --approve)",
    )
    p.add_argument(
        "--continue",
        dest="continue_agent",
        metavar="AGENT",
        help="send --task as a follow-up message to AGENT (like cursorish chat AGENT TEXT)",
    )
    _add_run_options(p)
    _output_options(p)
    return p


def command_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cursorish")
    p.add_argument("--version", action="version", version=f"cursorish {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the whole pipeline on a sample repo, no key needed")
    demo.add_argument("--dir", metavar="PATH", help="where to create the sample repo")
    demo.add_argument("--latency", type=DELAY, default=0.05, help="replayed planner latency (s)")
    _output_options(demo)

    cfg = sub.add_parser("config", help="print the effective configuration and its sources")
    cfg.add_argument("--repo", default=".", metavar="PATH")
    cfg.add_argument("--json", action="store_true")
    _add_run_options(cfg)

    log = sub.add_parser("log", help="show an agent's transcript from the store")
    log.add_argument("agent", nargs="?", help="agent id or prefix (default: the latest)")
    log.add_argument("--repo", default=".", metavar="PATH")
    log.add_argument("--json", action="store_true")
    log.add_argument("--full", action="store_true", help="do not shorten long tool results")

    ap = sub.add_parser("apply", help="merge a sketch into a file; print the result")
    ap.add_argument("original", help="the current file")
    ap.add_argument("sketch", help="the sketch file, or - for standard input")
    ap.add_argument("--path", help="file name for language detection (default: ORIGINAL)")
    ap.add_argument("--engine", choices=ENGINES, help="default: apply_engine of the config (auto)")
    ap.add_argument("--apply-model", metavar="PATH", help="GGUF apply model")
    ap.add_argument("-o", "--output", metavar="FILE", help="write atomically to FILE")

    ev = sub.add_parser("eval", help="evaluate an engine on a case file")
    ev_sub = ev.add_subparsers(dest="what", required=True, metavar="WHAT")
    eva = ev_sub.add_parser("apply", help="apply cases (JSONL)")
    eva.add_argument("cases", help="JSONL file of cases")
    eva.add_argument("--engine", choices=ENGINES, default="deterministic")
    eva.add_argument("--apply-model", metavar="PATH", help="GGUF apply model")
    eva.add_argument("--json", action="store_true")
    evl = ev_sub.add_parser("locate", help="code localisation cases (JSONL): recall@k, hit@5")
    evl.add_argument("cases", help="JSONL file of cases")
    evl.add_argument("--k", type=COUNT, default=10, help="files listed per case")
    evl.add_argument("--work", metavar="DIR", help="keep clones and indexes here (default: temp)")
    evl.add_argument("--json", action="store_true")

    bench = sub.add_parser("bench", help="benchmarks that print figures and ratios")
    b_sub = bench.add_subparsers(dest="what", required=True, metavar="WHAT")
    ba = b_sub.add_parser("apply", help="deterministic merge time by file size")
    ba.add_argument("--repeat", type=COUNT, default=30)
    ba.add_argument("--json", action="store_true")
    bs = b_sub.add_parser("spec", help="speculative edits vs vanilla greedy decoding")
    src = bs.add_mutually_exclusive_group()
    src.add_argument("--model", metavar="PATH", help="a real GGUF apply model")
    src.add_argument(
        "--synthetic",
        choices=("tiny", "bpe", "0.5b"),
        help="a generated random model (bpe: a byte-level BPE vocabulary trained on code)",
    )
    bs.add_argument("--cases", type=COUNT, default=6)
    bs.add_argument("--max-tokens", type=int, default=None)
    bs.add_argument("--json", action="store_true")
    bg = b_sub.add_parser("agents", help="parallel agents against a scripted planner")
    bg.add_argument("--agents", default="1,4,8", help="agent counts to run")
    bg.add_argument("--files", type=COUNT, default=5000, help="files in the generated repo")
    bg.add_argument("--latency", type=DELAY, default=0.2, help="planner latency per reply (s)")
    bg.add_argument("--repeat", type=COUNT, default=3, help="rounds; the best wall time counts")
    bg.add_argument(
        "--dir",
        metavar="DIR",
        help="where the repo and its worktrees go (default: the temp dir); "
        "use the filesystem your worktrees live on",
    )
    bg.add_argument("--json", action="store_true")
    bx = b_sub.add_parser("sandbox", help="time commands with and without the OS sandbox")
    bx.add_argument("--repeat", type=COUNT, default=20, help="runs of each small command")
    bx.add_argument("--tests", type=COUNT, default=200, help="tests in the generated suite")
    bx.add_argument("--json", action="store_true")
    bm = b_sub.add_parser("mcp", help="MCP server start, tool call and stop, bare vs sandboxed")
    bm.add_argument("--calls", type=COUNT, default=50, help="tool calls per run")
    bm.add_argument("--repeat", type=COUNT, default=3, help="runs of each; medians count")
    bm.add_argument("--json", action="store_true")
    bc = b_sub.add_parser("context", help="context index: cold, incremental, query, repo map")
    bc.add_argument("--files", type=COUNT, default=5000, help="files in the generated repo")
    bc.add_argument("--bundle", metavar="PATH", help="also a git bundle (default: httpx's)")
    bc.add_argument("--queries", type=COUNT, default=40, help="queries to time")
    bc.add_argument("--json", action="store_true")
    bt = b_sub.add_parser("tui", help="app start-up, key latency, big diff open")
    bt.add_argument("--agents", type=int, default=8, help="streaming agents during key presses")
    bt.add_argument("--diff-lines", type=int, default=5000, help="lines in the big diff")
    bt.add_argument("--keys", type=int, default=60, help="key presses to time")
    bt.add_argument("--json", action="store_true")

    ag = sub.add_parser("agents", help="list, cancel, resume or discard agents")
    ag.add_argument(
        "action", nargs="?", default="list", choices=("list", "cancel", "resume", "discard")
    )
    ag.add_argument("id", nargs="?", help="agent id or unique prefix")
    ag.add_argument("--repo", default=".", metavar="PATH")
    ag.add_argument("--json", action="store_true")
    _add_run_options(ag)

    tui = sub.add_parser("tui", help="the Textual app (what plain `cursorish` opens)")
    tui.add_argument("--repo", default=".", metavar="PATH")
    _add_run_options(tui)

    br = sub.add_parser("branches", help="agent branches: task, state, diffstat, decisions")
    br.add_argument("--repo", default=".", metavar="PATH")
    br.add_argument("--json", action="store_true")

    rv = sub.add_parser("review", help="review an agent branch hunk by hunk (app or headless)")
    rv.add_argument("branch", nargs="?", help="branch or agent id (default: the latest agent)")
    rv.add_argument("--repo", default=".", metavar="PATH")
    rv.add_argument("--list", action="store_true", help="print the hunks and their ids")
    rv.add_argument("--accept-all", action="store_true", help="accept every pending hunk")
    rv.add_argument("--accept", metavar="IDS", help="comma-separated hunk ids to accept")
    rv.add_argument("--reject", metavar="IDS", help="comma-separated hunk ids to reject")
    rv.add_argument("--reason", metavar="TEXT", help="why (with --reject): fed back to the agent")
    rv.add_argument("--commit", action="store_true", help="commit what is accepted afterwards")
    rv.add_argument("--json", action="store_true")

    mg = sub.add_parser("merge", help="bring what was accepted on BRANCH into your branch")
    mg.add_argument("branch", help="agent branch or agent id")
    mg.add_argument("--repo", default=".", metavar="PATH")
    mg.add_argument("--squash", action="store_true", help="one commit instead of a merge")
    mg.add_argument("--message", "-m", metavar="TEXT", help="commit message")

    cp = sub.add_parser("compare", help="two agents' results for the same task side by side")
    cp.add_argument("a", help="agent id or branch")
    cp.add_argument("b", help="agent id or branch")
    cp.add_argument("--repo", default=".", metavar="PATH")
    cp.add_argument("--text", action="store_true", help="print instead of opening the app")
    cp.add_argument("--json", action="store_true")

    ch = sub.add_parser("chat", help="send a follow-up message to an agent (or approve its plan)")
    ch.add_argument("agent", help="agent id or unique prefix")
    ch.add_argument(
        "message", nargs="?", help="what to say; @path attaches a file, @AGENT another agent's diff"
    )
    ch.add_argument("--approve", action="store_true", help="execute the agent's plan")
    ch.add_argument("--repo", default=".", metavar="PATH")
    _add_run_options(ch)
    _output_options(ch)

    tr = sub.add_parser("trust", help="let this repository's .cursorish files widen what runs")
    tr.add_argument("--repo", default=".", metavar="PATH")
    what = tr.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="the repositories you trust")
    what.add_argument("--revoke", action="store_true", help="forget the trust in this repository")
    what.add_argument(
        "--dry-run", action="store_true", help="show what it would enable; record nothing"
    )
    tr.add_argument("--json", action="store_true")

    mc = sub.add_parser("mcp", help="configured MCP servers and the tools each offers")
    mc.add_argument("action", choices=("list", "tools"), help="list servers, or one's tools")
    mc.add_argument("name", nargs="?", help="the server (for tools)")
    mc.add_argument("--repo", default=".", metavar="PATH")
    mc.add_argument("--json", action="store_true")

    cx = sub.add_parser("context", help="the files of the repository ranked for a query, and why")
    cx.add_argument("query", help="what you are looking for (a task, identifiers, words)")
    cx.add_argument("--repo", default=".", metavar="PATH")
    cx.add_argument("--k", type=COUNT, default=10, help="how many files")
    cx.add_argument("--json", action="store_true")

    gc = sub.add_parser("gc", help="remove discarded agents' worktrees/branches and orphans")
    gc.add_argument("--repo", default=".", metavar="PATH")
    gc.add_argument("--dry-run", action="store_true")
    return p


def parse(argv: Sequence[str]) -> tuple[str, argparse.Namespace]:
    """Return the handler key and the parsed arguments."""
    if not argv:  # plain `cursorish` opens the app on the current repository
        argv = ["tui"]
    if argv[0] in SUBCOMMANDS:
        ns = command_parser().parse_args(argv)
        key = ns.command if ns.command not in ("eval", "bench") else f"{ns.command} {ns.what}"
        return key, ns
    parser = task_parser()
    ns = parser.parse_args(argv)
    if not ns.task and not ns.tasks:
        parser.print_help(sys.stderr)
        parser.exit(int(ExitCode.BAD_ARGS), "\ncursorish: give --task TEXT or --tasks FILE\n")
    if ns.agents < 1 or ns.agents > 64:
        parser.error("--agents must be between 1 and 64")
    if ns.tasks and ns.agents != 1:
        parser.error("--agents applies to --task, not --tasks")
    if ns.continue_agent is not None:
        if not ns.task or ns.agents != 1 or ns.base or ns.plan:
            parser.error(
                "--continue AGENT takes one --task TEXT (the message), without "
                "--agents, --base or --plan"
            )
        return "chat", ns
    return "task", ns


# `review` and `compare` open the app's review screens when stdout is a terminal: the dispatcher
# makes that choice and hands the headless front end an opener, so it never imports the TUI.
REVIEW_APP_COMMANDS = ("review", "compare")


def _review_app() -> ModuleType:
    return importlib.import_module("cursorish.tui.review_app")


def _handler(key: str) -> Callable[[argparse.Namespace], int]:
    module, name = HANDLERS[key]
    fn: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), name)
    return fn


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        key, ns = parse(args)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return int(exc.code) if isinstance(exc.code, int) else int(ExitCode.BAD_ARGS)
    bad = _not_utf8(ns)
    if bad:
        print(f"cursorish: {bad}", file=sys.stderr)
        return int(ExitCode.BAD_ARGS)
    if key in REVIEW_APP_COMMANDS:
        ns.open_app = _review_app if sys.stdout.isatty() else None
    try:
        return _handler(key)(ns)
    except CursorishError as exc:
        print(f"cursorish: {exc.message}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("cursorish: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as exc:
        where = _save_crash_report(exc)
        print(f"cursorish: internal error: {exc!r} (details in {where})", file=sys.stderr)
        return int(ExitCode.INTERNAL)


# Options whose text is stored and shown (paths, in the other options, may be any bytes).
TEXT_OPTIONS = ("task", "reason", "message")


def _not_utf8(ns: argparse.Namespace) -> str:
    """Why a text option is not UTF-8 (its bytes kept as surrogates by Python), or ""."""
    for key in TEXT_OPTIONS:
        value = getattr(ns, key, None)
        if not isinstance(value, str):
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            byte = ord(value[exc.start]) - 0xDC00
            return (
                f"--{key} is not UTF-8 text (byte {byte:#04x} at character {exc.start}); "
                "check the terminal's or the script's encoding"
            )
    return ""


def _save_crash_report(exc: BaseException) -> str:
    from cursorish.core.crashes import save_crash_report

    return save_crash_report(exc)


if __name__ == "__main__":
    raise SystemExit(main())
