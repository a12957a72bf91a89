"""Exit codes and the one exception type the CLI turns into a message and an exit code.

Every failure a user can cause (bad input, missing config, API trouble) is raised as a
`CursorishError` with a precise message; the CLI prints it without a traceback.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1  # a bug: reported with a short message and the log location
    BAD_ARGS = 2  # argparse's own code for usage errors
    APPLY_REFUSED = 3  # the apply engine could not place the edit safely
    NOT_A_REPO = 4  # --repo is not a git repository (or has no commits)
    PLANNER_FAILED = 5  # planner/API failure: auth, network, 5xx after retries
    BUDGET_EXHAUSTED = 6  # steps/tokens/cost/time budget ran out
    AGENT_GAVE_UP = 7  # the agent finished without a usable change
    CONFIG = 8  # no planner configured, malformed config file
    WORKTREE = 9  # an agent's worktree could not be created or its setup command failed
    INTERRUPTED = 130  # Ctrl-C / SIGTERM


class CursorishError(Exception):
    """An error with a message meant for the user and the exit code that goes with it."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.INTERNAL) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class NotARepoError(CursorishError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.NOT_A_REPO)


class ConfigError(CursorishError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.CONFIG)


class PathEscapeError(CursorishError):
    """A path named by an agent or a user resolves outside the worktree (or into .git)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.BAD_ARGS)
