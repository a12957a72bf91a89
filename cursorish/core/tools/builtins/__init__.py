"""The built-in tools, one module each; every module defines `TOOL` (core/tools/base.Tool) and
the registry finds it by importing the package's modules (core/tools/registry.py)."""
