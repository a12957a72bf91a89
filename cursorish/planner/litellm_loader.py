"""The one place that imports litellm: lazily, quietly, and without touching the network.

litellm takes seconds to import, so cursorish pays for it only when a planner call
happens. Before the import we force the bundled model cost map (otherwise litellm fetches
one from GitHub at import time); after it we silence its banners, debug prints, loggers
and telemetry, and drop any callbacks so nothing is sent anywhere but to the planner.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from typing import Any

_lock = threading.Lock()
_module: Any = None

_LOGGERS = ("LiteLLM", "LiteLLM Proxy", "LiteLLM Router", "litellm")


def load_litellm() -> Any:
    """Import litellm once, configured for cursorish, and return the module."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            import litellm

            _quiet(litellm)
            _module = litellm
    return _module


# litellm builds a provider's request coroutine in a worker thread and awaits it afterwards: a
# planner call cancelled in between (the user's cancel, a worktree that failed to provision)
# leaves that coroutine unawaited, and Python would print a RuntimeWarning about it.
ABANDONED_CALL_WARNING = r"coroutine '\w+\.async_\w+' was never awaited"


def _quiet(litellm: Any) -> None:
    warnings.filterwarnings("ignore", message=ABANDONED_CALL_WARNING, category=RuntimeWarning)
    litellm.suppress_debug_info = True  # the "Give Feedback / Get Help" banner on errors
    litellm.set_verbose = False
    litellm.telemetry = False
    # No logging/observability callbacks: cursorish records usage itself, in SQLite.
    for name in ("callbacks", "success_callback", "failure_callback", "input_callback"):
        if isinstance(getattr(litellm, name, None), list):
            setattr(litellm, name, [])
    for name in ("_async_success_callback", "_async_failure_callback"):
        if isinstance(getattr(litellm, name, None), list):
            setattr(litellm, name, [])
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL)
        logger.propagate = False
