"""Ranking the files of a view for a task: text match, named identifiers and files, the graph.

score(file) = prior(file) * (  w_bm25  * BM25(file) / max BM25
                             + w_path  * task words in the file's path
                             + w_ident * task identifiers the file defines
                             + w_graph * personalised PageRank )

- BM25 is SQLite FTS5's over the file's text (identifiers split on case and `_`); a file's
  score is its best chunk's.
- Path words count by how rare they are among the view's paths (a word in every path, such
  as the project's name, counts for nothing); the file's own name counts double.
- Identifiers the task names (`PoolLimits`, `get_env()`, anything in backticks or with an
  inner capital or `_`) boost the files that *define* them, split between those files.
- The graph has an edge from each file to the files defining what it references (tree-sitter
  tags). PageRank personalised on the best text matches spreads a little score to the files
  they depend on.
- The prior keeps tests, docs, examples and non-code text below the source they describe.
"""

from __future__ import annotations

import math
import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from cursorish.context.index import CodeIndex
from cursorish.context.parse import path_tokens, split_identifier, tokens

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "not",
        "no",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "without",
        "into",
        "onto",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "when",
        "where",
        "which",
        "who",
        "what",
        "why",
        "how",
        "if",
        "then",
        "else",
        "than",
        "so",
        "but",
        "do",
        "does",
        "did",
        "done",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "we",
        "you",
        "i",
        "he",
        "she",
        "they",
        "them",
        "our",
        "your",
        "my",
        "me",
        "us",
        "up",
        "down",
        "out",
        "over",
        "under",
        "about",
        "after",
        "before",
        "again",
        "also",
        "only",
        "just",
        "more",
        "most",
        "less",
        "some",
        "any",
        "all",
        "each",
        "every",
        "other",
        "such",
        "same",
        "own",
        "too",
        "very",
        "via",
        "per",
        "use",
        "used",
        "using",
        "make",
        "makes",
        "made",
        "add",
        "adds",
        "added",
        "remove",
        "removes",
        "removed",
        "fix",
        "fixes",
        "fixed",
        "update",
        "updates",
        "updated",
        "change",
        "changes",
        "changed",
        "support",
        "supports",
        "new",
        "old",
        "now",
        "get",
        "set",
        "allow",
        "allows",
        "issue",
        "issues",
        "pr",
        "merge",
        "merged",
        "branch",
        "main",
        "master",
        "bump",
        "version",
        "release",
        "readme",
        "docs",
        "doc",
        "test",
        "tests",
        "typo",
        "see",
        "e",
        "g",
        "ie",
        "etc",
        "co",
        "authored",
        "signed",
        "off",
        "by",
    ]
)

_IDENT_LIKE = re.compile(
    r"`([^`]+)`|([A-Za-z_][A-Za-z0-9_]*(?:[A-Z_][A-Za-z0-9_]*)+)\b|([A-Za-z_][A-Za-z0-9_]*)\(\)"
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NON_SOURCE = re.compile(
    r"(^|/)(tests?|testing|spec|specs|__tests__|docs?|documentation|examples?|samples?|bench|"
    r"benches|benchmarks?|fixtures?|testdata|vendor|third_party|node_modules|dist|build)(/|$)"
    r"|(^|/)test_[^/]*$|_test\.[a-z]+$|\.test\.[a-z]+$|\.spec\.[a-z]+$|(^|/)conftest\.py$",
    re.IGNORECASE,
)


BM25_CANDIDATES = 300  # best chunks taken from FTS5 per query (per version in the index)


@dataclass
class Weights:
    bm25: float = 1.0
    path: float = 0.6
    ident: float = 1.0
    graph: float = 0.3
    non_source: float = 0.3
    text_only: float = 0.2
    path_only: float = 0.05
    churn: float = 0.5
    churn_add: float = 0.1
    drop_common: bool = True  # leave terms of half the chunks or more out of the FTS query


@dataclass
class Ranked:
    path: str
    score: float
    why: dict[str, float] = field(default_factory=dict)


@dataclass
class Query:
    terms: list[str]
    identifiers: list[str]


def parse_task(task: str) -> Query:
    """The search terms and the named identifiers of a task text."""
    text = re.sub(r"\(#\d+\)|#\d+|https?://\S+", " ", task)
    idents: list[str] = []
    for m in _IDENT_LIKE.finditer(text):
        raw = m.group(1) or m.group(2) or m.group(3) or ""
        for word in _WORD.findall(raw):
            if len(word) > 2 and word.lower() not in STOPWORDS and word not in idents:
                idents.append(word)
    terms = [t for t in tokens(text) if len(t) > 1 and t not in STOPWORDS and not t.isdigit()]
    return Query(terms, idents)


def fts_expression(terms: list[str]) -> str:
    unique = list(dict.fromkeys(terms))[:64]
    return " OR ".join(f'"{t}"' for t in unique)


@dataclass
class ViewData:
    """What ranking needs of a view that does not depend on the query (cached per version)."""

    files: dict[str, str]
    by_oid: dict[str, list[str]]
    path_index: dict[str, list[str]]  # path word -> paths holding it
    name_words: dict[str, frozenset[str]]  # path -> words of its file name
    prior: dict[str, float]  # path -> kind-of-file prior (tests, docs, text, binary)
    churn: dict[str, float]  # path -> change frequency in [0, 1]
    versions: float  # index chunks per file of the view (several commits in one index)
    most_changed: list[str]  # the 50 paths that changed most


_CACHE: dict[tuple[str, str, float, float, float], tuple[float, ViewData]] = {}
_CACHE_LOCK = threading.Lock()


def view_data(index: CodeIndex, view: str, w: Weights) -> ViewData | None:
    stamp = index.view_stamp(view)
    if stamp is None:
        return None
    key = (str(index.path), view, w.non_source, w.text_only, w.path_only)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    files = index.view_files(view)
    by_oid: dict[str, list[str]] = defaultdict(list)
    path_index: dict[str, list[str]] = defaultdict(list)
    name_words: dict[str, frozenset[str]] = {}
    for path, oid in files.items():
        by_oid[oid].append(path)
        for t in set(path_tokens(path)):
            path_index[t].append(path)
        name_words[path] = frozenset(path_tokens(path.rsplit("/", 1)[-1].rsplit(".", 1)[0]))
    info = index.blob_info(files.values())
    prior: dict[str, float] = {}
    for path, oid in files.items():
        value = 1.0
        how = info.get(oid, (None, 0, "path", 0))[2]
        if how == "text":
            value *= w.text_only
        elif how == "path":
            value *= w.path_only
        if _NON_SOURCE.search(path):
            value *= w.non_source
        prior[path] = value
    _head, counts = index.history(view)
    top = max((counts.get(p, 0) for p in files), default=0)
    churn = {}
    if top:
        norm = math.log1p(top)
        churn = {p: math.log1p(counts[p]) / norm for p in files if counts.get(p)}
    versions = max(1.0, index.chunk_count() / max(1, len(files)))
    most = sorted(churn, key=lambda p: (-churn[p] * prior[p], p))[:50]
    data = ViewData(files, dict(by_oid), dict(path_index), name_words, prior, churn, versions, most)
    with _CACHE_LOCK:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = (stamp, data)
    return data


def rank(index: CodeIndex, view: str, task: str, weights: Weights | None = None) -> list[Ranked]:
    """Every file of the view that matches anything, best first."""
    w = weights or Weights()
    base = view_data(index, view, w)
    if base is None or not base.files:
        return []
    files, by_oid = base.files, base.by_oid
    query = parse_task(task)
    scores: dict[str, dict[str, float]] = defaultdict(dict)

    # Text: the best chunks only (enough of them to cover this view when the index holds
    # several commits' versions of the same files).
    if query.terms:
        limit = int(BM25_CANDIDATES * base.versions)
        common = index.common_terms(set(query.terms)) if w.drop_common else set()
        terms = [t for t in query.terms if t not in common] or query.terms
        bm = index.bm25(fts_expression(terms), limit)
        best = max((s for o, s in bm.items() if o in by_oid), default=0.0)
        if best > 0:
            for oid, s in bm.items():
                for path in by_oid.get(oid, ()):
                    scores[path]["bm25"] = w.bm25 * s / best

    # Path words, weighted by rarity among the view's paths.
    term_set = set(query.terms)
    if term_set and w.path:
        n = len(files)
        gained: dict[str, float] = defaultdict(float)
        for t in term_set:
            holders = base.path_index.get(t)
            if not holders:
                continue
            idf = math.log(n / len(holders)) / math.log(n + 1)
            for path in holders:
                gained[path] += idf * (2.0 if t in base.name_words[path] else 1.0)
        for path, total in gained.items():
            scores[path]["path"] = w.path * total

    # Identifiers the task names: the files defining them.
    if query.identifiers and w.ident:
        wanted = {i.lower(): i for i in query.identifiers}
        defs: dict[str, set[str]] = defaultdict(set)
        names = set(query.identifiers) | {i.lower() for i in query.identifiers}
        names |= {i[:1].upper() + i[1:] for i in query.identifiers}
        for oid, name, *_ in index.symbols_named(names, role="def"):
            if name.lower() in wanted:
                for path in by_oid.get(oid, ()):
                    defs[name.lower()].add(path)
        for paths in defs.values():
            for path in paths:
                scores[path]["ident"] = scores[path].get("ident", 0.0) + w.ident / len(paths)

    # The graph, personalised on the best matches so far.
    if w.graph and scores:
        seeds = sorted(scores, key=lambda p: -sum(scores[p].values()))[:10]
        pr = _pagerank(index, files, by_oid, {p: sum(scores[p].values()) for p in seeds})
        top = max(pr.values(), default=0.0)
        if top > 0:
            for path, value in pr.items():
                if value / top > 0.01:
                    scores[path]["graph"] = w.graph * value / top

    # How often each file changed lately: a prior for what changes next. Files that match
    # nothing can only come in through it, so only the most changed of them are considered.
    if w.churn_add:
        for path, parts in scores.items():
            if path in base.churn:
                parts["churn"] = w.churn_add * base.churn[path]
        for path in base.most_changed:
            if path not in scores:
                scores[path]["churn"] = w.churn_add * base.churn[path]

    out: list[Ranked] = []
    for path, parts in scores.items():
        prior = base.prior[path]
        if w.churn:
            prior *= 1.0 + w.churn * base.churn.get(path, 0.0)
        why = dict(parts)
        if prior != 1.0:
            why["prior"] = prior
        out.append(Ranked(path, prior * sum(parts.values()), why))
    out.sort(key=lambda r: (-r.score, r.path))
    return out


def _pagerank(
    index: CodeIndex,
    files: dict[str, str],
    by_oid: dict[str, list[str]],
    personal: dict[str, float],
    *,
    damping: float = 0.85,
    rounds: int = 20,
) -> dict[str, float]:
    """PageRank over file -> defining-file edges, restarting at `personal`."""
    seed_oids = {files[p] for p in personal}
    # Only the neighbourhood of the seeds matters for a few rounds of a restart-heavy walk:
    # the seeds' references (out-edges) and who references the seeds' definitions (in-edges).
    refs = index.symbols_of(seed_oids, role="ref")
    ref_names = {r[1] for r in refs}
    defs = index.symbols_named(ref_names, role="def") if ref_names else []
    defined_in: dict[str, set[str]] = defaultdict(set)
    for oid, name, *_ in defs:
        for path in by_oid.get(oid, ()):
            defined_in[name].add(path)
    edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for oid, name, *_ in refs:
        targets = defined_in.get(name)
        if not targets or len(targets) > 5:
            continue  # a name defined everywhere (`new`, `get`) says nothing
        for src in by_oid.get(oid, ()):
            for dst in targets:
                if dst != src:
                    edges[src][dst] += 1.0 / len(targets)
    total = sum(personal.values()) or 1.0
    restart = {p: v / total for p, v in personal.items()}
    rank_ = dict(restart)
    for _ in range(rounds):
        nxt: dict[str, float] = defaultdict(float)
        for p, v in restart.items():
            nxt[p] += (1 - damping) * v
        for src, value in rank_.items():
            out = edges.get(src)
            if not out:
                nxt[src] += damping * value
                continue
            weight = sum(math.sqrt(c) for c in out.values())
            for dst, c in out.items():
                nxt[dst] += damping * value * math.sqrt(c) / weight
        rank_ = nxt
    return {p: v for p, v in rank_.items() if p not in personal}


def query_words(task: str) -> set[str]:
    """Lower-case words of a task, for highlighting snippet lines."""
    q = parse_task(task)
    out = set(q.terms)
    for ident in q.identifiers:
        out.update(split_identifier(ident))
    return out
