"""The repo map: the files ranked highest for a task, each with its key signatures, in a budget.

It goes into an agent's first message so the planner starts knowing where to look. Tokens are
estimated at four characters each (the map is prose-free code lines, close to that ratio).
"""

from __future__ import annotations

from cursorish.context.engine import ContextEngine
from cursorish.context.parse import split_identifier
from cursorish.context.rank import query_words

DEFAULT_BUDGET_TOKENS = 1500
MAX_DEFS_PER_FILE = 12
MAX_LINE_CHARS = 110
_KINDS = frozenset(
    [
        "class",
        "function",
        "method",
        "struct",
        "enum",
        "trait",
        "interface",
        "type",
        "module",
        "macro",
        "constant",
    ]
)


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def repo_map(
    engine: ContextEngine, view: str, task: str, budget_tokens: int = DEFAULT_BUDGET_TOKENS
) -> str:
    """The map as text, or "" when the view is empty or the budget is too small for a line."""
    if budget_tokens <= 0:
        return ""
    ranked = engine.rank(view, task)
    files = engine.index.view_files(view)
    if not ranked:
        # Nothing matched the task: the files that change most, then the rest by name.
        _head, counts = engine.index.history(view)
        order = sorted(files, key=lambda p: (-counts.get(p, 0), p))
        paths = order[:30]
    else:
        paths = [r.path for r in ranked[:30]]
    words = query_words(task)
    header = "Repository map (the files most relevant to the task, with key definitions):\n"
    out = [header]
    used = estimate_tokens(header)
    defs_by_oid: dict[str, list[tuple[str, str, int]]] = {}
    oids = [files[p] for p in paths if p in files]
    for oid, name, kind, _role, _scope, line, _end in engine.index.symbols_of(oids, role="def"):
        if kind in _KINDS:
            defs_by_oid.setdefault(oid, []).append((name, kind, line))
    for path in paths:
        oid = files.get(path)
        if oid is None:
            continue
        block = [path + "\n"]
        defs = defs_by_oid.get(oid, [])
        if defs:
            text = engine.index.text(oid) or ""
            lines = text.splitlines()
            # Definitions the task's words name first, then the file's order.
            defs.sort(key=lambda d: (not (set(split_identifier(d[0])) & words), d[2]))
            chosen = sorted(defs[:MAX_DEFS_PER_FILE], key=lambda d: d[2])
            for _name, _kind, line in chosen:
                if 0 < line <= len(lines):
                    sig = lines[line - 1].rstrip()[:MAX_LINE_CHARS]
                    block.append(f"{line:>5}│{sig}\n")
        cost = estimate_tokens("".join(block))
        if used + cost > budget_tokens:
            if used + estimate_tokens(block[0]) <= budget_tokens:
                out.append(block[0])  # at least the file's name
                used += estimate_tokens(block[0])
            continue
        out.append("".join(block))
        used += cost
    return "".join(out) if len(out) > 1 else ""
