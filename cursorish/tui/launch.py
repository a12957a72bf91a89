"""`cursorish` / `cursorish tui`: check the repository and the configuration, then run the app.

Everything that can fail for a reason the user must fix (not a repository, a malformed
config file, an unknown profile, no terminal) fails here, before the app takes over the
screen, with the usual message and exit code. A missing planner does not stop the app: it
opens (agent branches can still be reviewed) and says how to configure one.

The command policy in the app is `ask` (the user answers each request to run a command)
unless `--commands` is given or the configuration says `deny`.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cursorish.errors import ConfigError, CursorishError, ExitCode

if TYPE_CHECKING:
    from cursorish.config import Config
    from cursorish.core.orchestrator import RunSettings
    from cursorish.tui.bridge import EngineSetup, TrustRequest

NO_PLANNER_NOTICE = (
    "No planner model is configured, so agents cannot start yet (agent branches can still "
    "be reviewed). Set one with --planner, CURSORISH_PLANNER or `planner = ...` in "
    "~/.config/cursorish/config.toml; `cursorish config` shows the details."
)


def tui_command_policy(cfg: Config) -> str:
    """`ask` in the app, unless a flag chose the policy or the configuration denies commands."""
    value = cfg.get_str("command_policy")
    if cfg.source("command_policy").startswith("--") or value == "deny":
        return value
    return "ask"


def settings_factory(cfg: Config, repo_root: Path) -> Callable[[str | None], RunSettings]:
    """profile name (None: the configured one) -> the run settings of an agent started in the
    app; raises CursorishError like `--task` would (no planner, unknown profile, ...)."""
    from cursorish.config.settings import build_settings

    policy = tui_command_policy(cfg)

    def build(profile: str | None) -> RunSettings:
        layered = copy.deepcopy(cfg)  # build_settings fills in values from the profile
        if profile:
            layered.override("profile", profile, "the app")
        return replace(build_settings(layered, repo_root, warn=_warn), command_policy=policy)

    return build


def _warn(line: str) -> None:
    """What the engine warns of while settings are built (the sandbox is off): on stderr,
    as the headless commands do."""
    print(line, file=sys.stderr)


@contextmanager
def app_setup(ns: argparse.Namespace) -> Iterator[EngineSetup]:
    """The repository, its configuration and its store as the app will use them; the store is
    created after every check of the configuration and closed when the block (the app) ends."""
    from cursorish.config import NO_PLANNER_MESSAGE
    from cursorish.config.settings import flags_from
    from cursorish.core.profiles import available_profiles
    from cursorish.core.repo_store import open_repo_store
    from cursorish.tui.bridge import EngineSetup

    with open_repo_store(ns.repo, flags_from(ns)) as opened:
        repo, cfg = opened.repo, opened.cfg
        settings_for = settings_factory(cfg, repo.root)
        notice = ""
        try:
            settings_for(None)
        except ConfigError as exc:
            if not exc.message.startswith(NO_PLANNER_MESSAGE.split("\n", 1)[0]):
                raise
            notice = NO_PLANNER_NOTICE
        if cfg.get_str("sandbox").strip().lower() == "off":  # every run says so, the app too
            from cursorish.core.sandbox import OFF_WARNING

            notice = "\n\n".join(x for x in (OFF_WARNING.removeprefix("cursorish: "), notice) if x)
        yield EngineSetup(
            trust=trust_request(ns, repo.root),
            repo=repo,
            store=opened.store,
            settings_for=settings_for,
            profiles=tuple(sorted(available_profiles(repo.root))),
            default_profile=cfg.get_str("profile"),
            notice=notice,
        )


def trust_request(ns: argparse.Namespace, root: Path) -> TrustRequest | None:
    """What the app asks when the repository's own files ask for more than they get."""
    from cursorish.core.trust import assess, trust_files, trust_repo
    from cursorish.tui.bridge import TrustRequest

    files = trust_files(root)  # the contents shown are the contents trusted
    ignored = assess(root, files).ignored
    if not ignored:
        return None

    def accept() -> Callable[[str | None], RunSettings]:
        from cursorish.config.layers import load_config
        from cursorish.config.settings import flags_from

        trust_repo(root, files)
        return settings_factory(load_config(root, flags_from(ns)), root)

    lines = tuple(f"{w.file}: {w.key} = {w.value}  ({w.why})" for w in ignored)
    return TrustRequest(repo=root, lines=lines, accept=accept)


def cmd_tui(ns: argparse.Namespace) -> int:
    with app_setup(ns) as setup:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise CursorishError(
                "the app needs a terminal; without one, run agents with --task and review "
                "with `cursorish review --list` / `--accept-all`",
                ExitCode.BAD_ARGS,
            )
        from cursorish.tui.app import CursorishApp

        app = CursorishApp(setup)
        code = app.run()
    return int(code or 0)
