"""`python -m cursorish` runs the CLI."""

from __future__ import annotations

from cursorish.cli import main

raise SystemExit(main())
