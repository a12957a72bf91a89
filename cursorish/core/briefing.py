"""What a new agent's first planner turn gets: an overview of the repository's files, the
project instructions (CLAUDE.md, AGENTS.md, ...) and a repo map, all read from the base
commit's git objects, so that turn need not wait for the worktree's checkout."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from cursorish.core.profiles import PROJECT_INSTRUCTION_FILES, project_instructions
from cursorish.core.provision import ProvisionSpec, load_spec, local_files_to_copy
from cursorish.errors import CursorishError
from cursorish.gitops.trees import files_at, regular_files_at

# (repository overview, project instructions)
Briefing = tuple[str, str]


def repo_overview(files: list[str], limit: int = 200) -> str:
    shown = "\n".join(files[:limit])
    more = f"\n... and {len(files) - limit} more files" if len(files) > limit else ""
    return f"Repository files ({len(files)}):\n{shown}{more}"


def read_briefing(root: Path, base: str, provision_spec: ProvisionSpec | None = None) -> Briefing:
    """The repository overview and project instructions a new agent at `base` gets."""
    overview = repo_overview(files_at(root, base))
    texts = regular_files_at(root, base, PROJECT_INSTRUCTION_FILES)
    # A git-ignored instruction file (a personal CLAUDE.md) counts when provisioning
    # copies it into the worktree, as the agent then sees it there.
    local = [n for n in PROJECT_INSTRUCTION_FILES if n not in texts and (root / n).exists()]
    if local:
        with contextlib.suppress(CursorishError):  # a bad spec is reported by provisioning
            spec = provision_spec or load_spec(root)
            copied, _ = local_files_to_copy(root, spec.copy)
            for name in local:
                if name in copied:
                    texts[name] = (root / name).read_bytes()
    return overview, project_instructions(texts)


def repo_map_maker(
    repo_root: Path, base_commit: str, task: str, budget_tokens: int
) -> Callable[[], str] | None:
    """What makes a new agent's repo map, or None for a budget of 0. It reads the base commit
    from git's objects, so the first planner request need not wait for the worktree."""
    if budget_tokens <= 0:
        return None

    def make() -> str:
        from cursorish.context.agent_context import repo_map_for_commit

        return repo_map_for_commit(repo_root, base_commit, task, budget_tokens)

    return make
