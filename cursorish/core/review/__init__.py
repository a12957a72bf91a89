"""The review engine: what the user names is resolved (resolve.py), a branch is decided hunk
by hunk in a worktree of its own (session.py; whole-file pseudo-hunks and patches in
patches.py), agent branches are listed (branches.py), two
agents' results are compared (compare.py), and the merge policy says what may be merged
(merge_policy.py). No UI here: `cursorish review/branches/merge/compare` (review_cli.py) and
the app's diff viewer (tui/review_*.py) are front ends over it.
"""

from __future__ import annotations

from cursorish.core.review.resolve import agent_of_branch, base_of, resolve_branch
from cursorish.core.review.session import (
    ACCEPTED,
    PENDING,
    REJECTED,
    Decision,
    ReviewFile,
    ReviewSession,
    is_whole_file,
)

__all__ = [
    "ACCEPTED",
    "PENDING",
    "REJECTED",
    "Decision",
    "ReviewFile",
    "ReviewSession",
    "agent_of_branch",
    "base_of",
    "is_whole_file",
    "resolve_branch",
]
