"""The git runner's old private name, kept so that imports written before it became public
(cursorish/gitops/runner.py) still work; new code imports `cursorish.gitops.runner`."""

from __future__ import annotations

from cursorish.gitops.runner import NO_HOOKS, GitError, add_all, git_out, run_git, split_z

__all__ = ["NO_HOOKS", "GitError", "add_all", "git_out", "run_git", "split_z"]
