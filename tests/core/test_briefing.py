"""A new agent's briefing, read from the base commit in a real repository: the file overview,
the project instructions (a git-ignored one only when provisioning copies it), the repo map."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cursorish.core.briefing import read_briefing, repo_map_maker, repo_overview
from cursorish.core.provision import ProvisionSpec
from tests.conftest import git

MakeRepo = Callable[..., Path]


def test_overview_lists_files_up_to_the_limit() -> None:
    files = [f"f{i}.py" for i in range(5)]
    assert repo_overview(files) == "Repository files (5):\n" + "\n".join(files)
    short = repo_overview(files, limit=2)
    assert short == "Repository files (5):\nf0.py\nf1.py\n... and 3 more files"


def _committed(tmp_path: Path, make_repo: MakeRepo, files: dict[str, str]) -> tuple[Path, str]:
    root = make_repo(tmp_path, files)
    return root, git(root, "rev-parse", "HEAD").strip()


def test_briefing_reads_the_base_commit_not_the_checkout(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root, base = _committed(tmp_path, make_repo, {"AGENTS.md": "Use tabs.\n", "src/a.py": "x\n"})
    (root / "AGENTS.md").write_text("Uncommitted advice.\n")
    (root / "new.py").write_text("untracked\n")
    overview, instructions = read_briefing(root, base)
    assert overview == "Repository files (2):\nAGENTS.md\nsrc/a.py"
    assert instructions == "## AGENTS.md\nUse tabs."


def test_an_ignored_instruction_file_counts_only_when_provisioning_copies_it(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root, base = _committed(
        tmp_path, make_repo, {".gitignore": "CLAUDE.md\n", "AGENTS.md": "Shared.\n"}
    )
    (root / "CLAUDE.md").write_text("Personal.\n")
    _, not_copied = read_briefing(root, base, ProvisionSpec(copy=()))
    assert not_copied == "## AGENTS.md\nShared."
    _, copied = read_briefing(root, base, ProvisionSpec(copy=("CLAUDE.md",)))
    assert copied == "## AGENTS.md\nShared.\n\n## CLAUDE.md\nPersonal."


def test_no_repo_map_for_a_budget_of_zero(tmp_path: Path) -> None:
    assert repo_map_maker(tmp_path, "HEAD", "task", 0) is None
    assert callable(repo_map_maker(tmp_path, "HEAD", "task", 100))
