"""The model apply engine: a local GGUF apply model on llama.cpp, decoded with speculative edits.

- `backend.LocalApplyModel` / `backend.load_local_model`: load a GGUF once, share it between
  agents, `apply(original, sketch, path=...)` -> `Merged | Refused`;
- `speculative`: the greedy decode loop (speculative and plain), on `lowlevel.LlamaEngine`;
- `remote.RemoteApplyModel`: the same contract over an OpenAI-compatible endpoint (litellm);
- `prompts`: the prompt formats (FastApply ChatML, Morph) and answer parsing.

Nothing here imports `llama_cpp` or `litellm` at module import time.
"""

from __future__ import annotations
