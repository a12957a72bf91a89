"""The code index on real git repositories: incremental updates, per-worktree views, a corrupt
file rebuilt, two processes indexing at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from cursorish.context.engine import ContextEngine, view_name
from cursorish.context.sources import blob_oid
from tests.conftest import create_repo, git

FILES = {
    "shop/cart.py": textwrap.dedent(
        '''\
        """The shopping cart."""


        class Cart:
            def add_item(self, sku, quantity):
                return apply_discount(sku, quantity)


        def apply_discount(sku, quantity):
            return quantity
        '''
    ),
    "shop/invoice.go": "package shop\n\nfunc RenderInvoice(total int) string {\n"
    '\treturn formatMoney(total)\n}\n\nfunc formatMoney(v int) string { return "" }\n',
    "web/app.ts": "export function startServer(port: number): void {\n  listen(port);\n}\n",
    "README.md": "# Shop\n\nA demo shop with a cart and invoices.\n",
    "logo.png": "\x89PNG\x00\x00binary",
}


def engine(tmp_path: Path) -> ContextEngine:
    return ContextEngine(tmp_path / "ctx" / "context.db")


def test_symbols_and_files_of_several_languages(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    e = engine(tmp_path)
    stats = e.sync_worktree(repo)
    assert stats.files == len(FILES) and stats.parsed == len(FILES)
    view = view_name(repo)
    defs = {(s.path, s.name, s.kind, s.scope) for s in e.find_symbol(view, "add_item")}
    assert ("shop/cart.py", "add_item", "function", "Cart") in defs
    go = e.find_symbol(view, "formatMoney")
    assert {(s.path, s.role) for s in go} == {
        ("shop/invoice.go", "def"),
        ("shop/invoice.go", "ref"),
    }
    assert [s.path for s in e.find_symbol(view, "startServer")] == ["web/app.ts"]
    info = e.index.blob_info(e.index.view_files(view).values())
    files = e.index.view_files(view)
    assert info[files["logo.png"]][2] == "path"  # binary: by path only
    assert info[files["README.md"]][2] == "text"
    assert info[files["shop/cart.py"]][0] == "python"


def test_incremental_edit_rename_delete(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    e = engine(tmp_path)
    e.sync_worktree(repo)
    view = view_name(repo)
    assert e.sync_worktree(repo).parsed == 0  # nothing changed: nothing parsed

    (repo / "shop" / "cart.py").write_text("def checkout_basket():\n    return 1\n")
    stats = e.sync_worktree(repo)
    assert stats.parsed == 1
    assert [s.path for s in e.find_symbol(view, "checkout_basket")] == ["shop/cart.py"]
    assert e.find_symbol(view, "apply_discount") == []
    assert e.search(view, "checkout basket")[0].path == "shop/cart.py"

    (repo / "billing").mkdir()
    git(repo, "mv", "shop/invoice.go", "billing/invoice.go")
    stats = e.sync_worktree(repo)
    assert stats.parsed == 0  # a rename keeps the blob: nothing to parse
    assert {s.path for s in e.find_symbol(view, "RenderInvoice")} == {"billing/invoice.go"}

    (repo / "web" / "app.ts").unlink()
    e.sync_worktree(repo)
    assert e.find_symbol(view, "startServer") == []
    assert "web/app.ts" not in e.index.view_files(view)

    # A watcher's report of one path is enough to update it.
    (repo / "shop" / "cart.py").write_text("def settle_order():\n    pass\n")
    stats = e.update_paths(repo, ["shop/cart.py"])
    assert stats.parsed == 1
    assert [s.path for s in e.find_symbol(view, "settle_order")] == ["shop/cart.py"]
    assert e.index.view_files(view)["shop/cart.py"] == blob_oid(
        (repo / "shop" / "cart.py").read_bytes()
    )


def test_an_agents_edits_stay_in_its_own_view(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    one, two = tmp_path / "agent1", tmp_path / "agent2"
    git(repo, "worktree", "add", "-q", "-b", "a1", str(one))
    git(repo, "worktree", "add", "-q", "-b", "a2", str(two))
    e = engine(tmp_path)
    e.sync_worktree(repo)
    assert e.sync_worktree(one).parsed == 0  # the same blobs: shared, not parsed again
    e.sync_worktree(two)
    (one / "shop" / "refunds.py").write_text("def issue_refund(order):\n    return order\n")
    e.sync_worktree(one)
    e.sync_worktree(two)
    e.sync_worktree(repo)
    assert [s.path for s in e.find_symbol(view_name(one), "issue_refund")] == ["shop/refunds.py"]
    assert e.find_symbol(view_name(two), "issue_refund") == []
    assert e.find_symbol(view_name(repo), "issue_refund") == []
    assert all(h.path != "shop/refunds.py" for h in e.search(view_name(two), "issue refund"))
    assert e.search(view_name(one), "issue refund")[0].path == "shop/refunds.py"


def test_a_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    db = tmp_path / "ctx" / "context.db"
    e = ContextEngine(db)
    e.sync_worktree(repo)
    e.index.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database at all" * 200)
    again = ContextEngine(db)
    assert again.index.rebuilt
    again.sync_worktree(repo)
    assert [s.path for s in again.find_symbol(view_name(repo), "RenderInvoice")] == [
        "shop/invoice.go"
    ]


def test_a_file_corrupted_while_open_is_rebuilt_on_next_use(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    db = tmp_path / "ctx" / "context.db"
    e = ContextEngine(db)
    e.sync_worktree(repo)
    e.index.close()
    data = bytearray(db.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the header's tail and the schema page
    db.write_bytes(bytes(data))
    hits = e.search(view_name(repo), "discount")  # nothing to find in a fresh index, no error
    assert hits == []
    e.sync_worktree(repo)
    assert e.search(view_name(repo), "discount")[0].path == "shop/cart.py"


_INDEXER = """
import sys
from pathlib import Path
from cursorish.context.engine import ContextEngine, view_name
e = ContextEngine(Path(sys.argv[1]))
e.sync_worktree(Path(sys.argv[2]))
print(len(e.index.view_files(view_name(Path(sys.argv[2])))))
"""


def test_two_processes_index_the_same_repository_at_once(tmp_path: Path) -> None:
    files = dict(FILES)
    for i in range(150):
        files[f"gen/mod{i}.py"] = f"def function_{i}(x):\n    return helper_{i}(x)\n"
    repo = create_repo(tmp_path / "repo", files)
    db = tmp_path / "ctx" / "context.db"
    db.parent.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _INDEXER, str(db), str(repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o[0].strip() for o in outs] == [str(len(files))] * 2
    e = ContextEngine(db)
    count = e.index.conn.execute("SELECT count(*) FROM blobs").fetchone()[0]
    assert count == len({blob_oid(t.encode()) for t in files.values()})  # each blob once
    assert [s.path for s in e.find_symbol(view_name(repo), "function_42")] == ["gen/mod42.py"]


def test_a_commit_view_reads_git_objects_without_checkout(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "shop" / "cart.py").write_text("def totally_new():\n    pass\n")
    git(repo, "commit", "-qam", "change cart")
    e = engine(tmp_path)
    view, stats = e.sync_commit(repo, first)
    assert stats.files == len(FILES)
    assert [s.path for s in e.find_symbol(view, "apply_discount") if s.role == "def"] == [
        "shop/cart.py"
    ]
    assert e.find_symbol(view, "totally_new") == []
    _head, counts = e.index.history(view)
    assert counts.get("shop/cart.py") == 1


def test_secret_files_are_never_indexed(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    (repo / ".env").write_text("API_TOKEN=supersecretvalue\n")
    e = engine(tmp_path)
    e.sync_worktree(repo)
    assert ".env" not in e.index.view_files(view_name(repo))
    assert e.search(view_name(repo), "supersecretvalue API_TOKEN") == []


def test_prune_forgets_what_no_view_maps(tmp_path: Path) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    agent = tmp_path / "agent"
    git(repo, "worktree", "add", "-q", "-b", "a1", str(agent))
    e = engine(tmp_path)
    e.sync_worktree(repo)
    (agent / "shop" / "refunds.py").write_text("def issue_refund(order):\n    return order\n")
    e.sync_worktree(agent)
    (repo / "README.md").write_text("# Shop, v2\n")
    e.sync_worktree(repo)  # the old README blob is mapped by the agent's view only
    assert e.prune() == 0
    git(repo, "worktree", "remove", "--force", str(agent))
    assert e.prune() == 2  # the agent's new file and the old README
    assert e.find_symbol(view_name(repo), "RenderInvoice")[0].path == "shop/invoice.go"
    readme = e.index.view_files(view_name(repo))["README.md"]
    assert e.index.text(readme) == "# Shop, v2\n"
