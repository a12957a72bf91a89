"""Git operations: the user's repository, agent worktrees and branches, diffs.

Git is the source of truth for code state: an agent's worktree holds what it proposes,
the worktree's index what the user accepted, its branch what was committed.
"""
