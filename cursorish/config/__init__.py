"""Configuration: the keys (keys.py), their layers and sources (layers.py), and the settings
of a run built from them (settings.py), shared by every front end.

The layered `Config` is imported from here; `build_settings` and its helpers from
`cursorish.config.settings`.
"""

from __future__ import annotations

from cursorish.config.layers import (
    NO_PLANNER_MESSAGE,
    Config,
    load_config,
    repo_config_path,
    require_planner,
    user_config_path,
)

__all__ = [
    "NO_PLANNER_MESSAGE",
    "Config",
    "load_config",
    "repo_config_path",
    "require_planner",
    "user_config_path",
]
