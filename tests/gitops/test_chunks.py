"""Review chunks are change blocks, not git's hunks: each can be staged or reverted alone, by
git itself, and what git ends up with is exactly the base plus the chosen chunks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cursorish.gitops.hunks import FileDiff, Hunk, diff_files
from tests.conftest import create_repo, git

LINES = "".join(f"line {i}\n" for i in range(1, 21))


def _git_apply(root: Path, patch: bytes, *args: str) -> None:
    done = subprocess.run(
        ["git", "apply", *args, "-"], cwd=root, input=patch, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()


def _only(root: Path) -> FileDiff:
    files = diff_files(root)
    assert [f.path for f in files] == ["a.txt"]
    return files[0]


def _change(chunk: Hunk) -> tuple[int, int, list[str]]:
    """(old position of the change, lines removed, lines added) of a chunk."""
    changed = [ln for ln in chunk.lines if ln.kind != " "]
    removed = [ln for ln in changed if ln.kind == "-"]
    first = chunk.lines.index(changed[0])
    before = chunk.lines[first - 1].old_no if first else None
    at = before if before is not None else chunk.old_start - 1
    if removed:
        at = (removed[0].old_no or 1) - 1
    added = [ln.text + ("" if ln.no_newline else "\n") for ln in changed if ln.kind == "+"]
    return at, len(removed), added


def _base_plus(base: str, chunks: list[Hunk]) -> str:
    """The base with just these chunks applied, computed without git."""
    lines = base.splitlines(keepends=True)
    for at, removed, added in sorted((_change(c) for c in chunks), reverse=True):
        lines[at : at + removed] = added
    return "".join(lines)


def test_nearby_changes_are_separate_chunks_with_context(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    (root / "a.txt").write_text(LINES.replace("line 5\n", "five\n").replace("line 9\n", ""))
    first, second = _only(root).hunks  # git prints these as one hunk (3 lines apart)
    assert [ln.kind + ln.text for ln in first.lines] == [
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+five",
        " line 6",
        " line 7",
        " line 8",
    ]
    assert first.header.startswith("@@ -2,7 +2,7 @@")
    assert [ln.kind + ln.text for ln in second.lines] == [
        " line 6",
        " line 7",
        " line 8",
        "-line 9",
        " line 10",
        " line 11",
        " line 12",
    ]
    assert second.header == "@@ -6,7 +6,6 @@"
    assert (first.added, first.deleted, second.added, second.deleted) == (1, 1, 0, 1)


def test_one_line_apart_each_chunk_is_staged_and_reverted_alone(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    new = LINES.replace("line 5\n", "five\n").replace("line 7\n", "seven\nseven+\n")
    (root / "a.txt").write_text(new)
    first, second = _only(root).hunks
    _git_apply(root, _only(root).patch(second), "--cached")
    assert git(root, "show", ":a.txt") == LINES.replace("line 7\n", "seven\nseven+\n")
    (left,) = _only(root).hunks
    assert left.id == first.id  # the decided neighbour did not move its id
    _git_apply(root, _only(root).patch(left), "-R")
    assert (root / "a.txt").read_text() == git(root, "show", ":a.txt")


def test_whole_file_patch_is_git_own(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    (root / "a.txt").write_text(LINES.replace("line 5\n", "5\n").replace("line 7\n", "7\n"))
    f = _only(root)
    assert len(f.hunks) == 2
    _git_apply(root, f.patch(), "--cached")
    assert git(root, "diff") == ""


# -- property: any accepted set, any rejected set -------------------------------------------

_WORDS = st.sampled_from(["a", "b", "}", "", "x = 1", "return x"])
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["keep", "keep", "keep", "keep", "drop", "swap", "insert"]),
        st.lists(_WORDS, min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=40,
)


def _edit(base: list[str], ops: list[tuple[str, list[str]]]) -> list[str]:
    out: list[str] = []
    for i, line in enumerate(base):
        op, words = ops[i % len(ops)]
        if op == "keep":
            out.append(line)
        elif op == "swap":
            out += words
        elif op == "insert":
            out += [*words, line]
    return out


def _text(lines: list[str], eol: bool) -> str:
    return "\n".join(lines) + ("\n" if eol and lines else "")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_repo(tmp_path_factory.mktemp("chunks") / "r", {"a.txt": ""})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.integers(1, 30),
    ops=_OPS,
    eols=st.tuples(st.booleans(), st.booleans()),
    data=st.data(),
)
@example(
    size=12, ops=[("keep", ["a"]), ("swap", ["}"]), ("keep", ["a"])], eols=(True, False), data=None
)
def test_any_set_of_chunks_is_exactly_base_plus_those_chunks(
    scratch: Path,
    size: int,
    ops: list[tuple[str, list[str]]],
    eols: tuple[bool, bool],
    data: st.DataObject | None,
) -> None:
    root = scratch
    base_lines = [f"{i % 4 and 'line'} {i}" for i in range(size)]
    base = _text(base_lines, eols[0])
    new = _text(_edit(base_lines, ops), eols[1])
    (root / "a.txt").write_text(base)
    git(root, "add", "a.txt")  # the index is the base, the file the proposal
    (root / "a.txt").write_text(new)
    files = diff_files(root)
    if not files:
        assert base == new
        return
    chunks = list(files[0].hunks)
    assert len({c.id for c in chunks}) == len(chunks)
    # Every change block is its own chunk: no two runs of changed lines share one.
    for c in chunks:
        kinds = "".join(ln.kind for ln in c.lines).strip()
        assert " " not in kinds
    assert _base_plus(base, chunks) == new
    picks = (
        [True] * len(chunks)
        if data is None
        else data.draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)))
    )
    accepted = [c for c, pick in zip(chunks, picks, strict=True) if pick]
    rejected = [c for c, pick in zip(chunks, picks, strict=True) if not pick]
    order = accepted[::-1] if data is None else data.draw(st.permutations(accepted))
    # Accept one chunk at a time, as review does: list again, find it by id, stage it.
    for chunk in order:
        current = diff_files(root)[0]
        (now,) = [h for h in current.hunks if h.id == chunk.id]
        _git_apply(root, current.patch(now), "--cached")
    assert git(root, "show", ":a.txt") == _base_plus(base, accepted)
    left = diff_files(root)
    assert sorted(h.id for f in left for h in f.hunks) == sorted(c.id for c in rejected)
    # Reject the rest in the file: it becomes exactly what was accepted.
    for chunk in rejected:
        current = diff_files(root)[0]
        (now,) = [h for h in current.hunks if h.id == chunk.id]
        _git_apply(root, current.patch(now), "-R")
    assert (root / "a.txt").read_text() == _base_plus(base, accepted)
    assert git(root, "diff") == ""
