"""Apply: turn a planner's sketch into the complete new file.

`deterministic` merges lazy sketches, SEARCH/REPLACE blocks, unified diffs and whole files
and refuses when unsure; `model` runs a local llama.cpp apply model with speculative edits;
`router` picks between them (`--engine auto|deterministic|model`).
"""

from __future__ import annotations
