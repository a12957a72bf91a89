"""The benchmarks behind `cursorish bench ...`, and what they generate to measure on.

One module per figure: `apply` (deterministic merge), `spec` (speculative edits vs greedy
decoding), `agents` (parallel agents on a scripted planner), `sandbox` (commands bare vs in
bubblewrap), `context` (index and search), `mcp` (an MCP server's cost), `tui` with
`tui_startup`, `tui_diff` and `tui_frames` (the app's responsiveness); `synthetic_models` and
`synthetic_bpe` write the random-weight GGUF models the spec bench and the tests run on;
`stats` the percentiles they report. The engine never imports this package (an import-linter
contract); the benches import the engine, the app and `cursorish.replay`.
"""

from __future__ import annotations
