"""`--base REF`: the commit-ish a task starts from instead of the current HEAD.

Any name git resolves to a commit is accepted (a branch, a tag, `origin/feature`, a fetched
pull-request ref such as `refs/pull/7/head`, a sha); it is resolved once, when the task is
created, so the agent, review and merge all see the same commit however the ref moves later.
"""

from __future__ import annotations

import os
from pathlib import Path

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.runner import run_git


def resolve_base(repo_root: Path, ref: str) -> str:
    """The full sha of the commit `ref` names in the repository at `repo_root`."""
    name = ref.strip()
    if not name or name.startswith("-") or any(c in name for c in "\0\n"):
        raise CursorishError(f"--base {ref!r} is not a valid ref", ExitCode.BAD_ARGS)
    status, out, _ = run_git(
        repo_root,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{name}^{{commit}}",
        check=False,
    )
    if status != 0:
        raise CursorishError(
            f"--base {name}: no such commit in {repo_root} (give a branch, a tag, a remote "
            "branch such as origin/main, a fetched ref or a commit id)",
            ExitCode.BAD_ARGS,
        )
    return os.fsdecode(out).strip()
