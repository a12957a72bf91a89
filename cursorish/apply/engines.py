"""The names of the apply engines (`--engine`, `apply_engine`), in a module of their own so
that the argument parser can name them without importing the router."""

from __future__ import annotations

ENGINES = ("auto", "deterministic", "model")
