"""A thin layer over llama-cpp-python's low-level C API: load a GGUF, tokenize, batched decode.

Only the C functions are used (`llama_model_load_from_file`, `llama_init_from_model`,
`llama_batch_init`, `llama_decode`, `llama_get_logits_ith`, `llama_get_memory`,
`llama_memory_seq_rm`, `llama_memory_clear`), not the high-level `Llama` class: the decode loop
asks for logits only at the positions it verifies, which `Llama` cannot do without
`logits_all`. `llama_cpp` is imported lazily (it takes about a second).

Not thread-safe by itself: `backend.LocalApplyModel` serializes every use of a context.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cursorish.errors import CursorishError, ExitCode

_init_lock = threading.Lock()
_initialized = False
_log_callback: Any = None  # the ctypes callback must stay referenced while llama.cpp may call it
_recent_errors: deque[str] = deque(maxlen=20)


def llama() -> Any:
    """The `llama_cpp` module, with the backend initialized and its logging silenced."""
    global _initialized, _log_callback
    import llama_cpp

    if _initialized:
        return llama_cpp
    with _init_lock:
        if not _initialized:

            def on_log(level: int, text: bytes, _user: Any) -> None:
                # Nothing reaches stderr; errors are kept to quote when loading fails. (The
                # level numbers moved between ggml versions; 4 is ERROR in this one.)
                line = text.decode("utf-8", "replace").strip() if text else ""
                if line and (level == 4 or "error" in line or "failed" in line):
                    _recent_errors.append(line)

            _log_callback = llama_cpp.llama_log_callback(on_log)
            llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
            llama_cpp.llama_backend_init()
            _initialized = True
    return llama_cpp


def gpu_offload_supported() -> bool:
    return bool(llama().llama_supports_gpu_offload())


def cpu_has_amx() -> bool:
    """True on x86 CPUs with AMX (Linux only; elsewhere False)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("flags"):
                    return "amx_int8" in line.split()
    except OSError:
        pass
    return False


def default_extra_buffers() -> bool:
    """Whether to let llama.cpp use its extra CPU buffer types (AMX, repacked weights).

    In llama-cpp-python 0.3.36 the AMX q8_0 matmul (`ggml_backend_amx_mul_mat`) segfaults on
    the AMX-capable Xeon VMs we run on, so they are off where AMX is present.
    `CURSORISH_LLAMA_EXTRA_BUFFERS=1|0` overrides the guess.
    """
    forced = os.environ.get("CURSORISH_LLAMA_EXTRA_BUFFERS")
    if forced is not None:
        return forced.strip() not in ("0", "", "false", "no")
    return not cpu_has_amx()


class LlamaModel:
    """A loaded GGUF model: vocabulary, metadata, and a factory for contexts."""

    def __init__(
        self,
        path: str | Path,
        *,
        n_gpu_layers: int | None = None,
        extra_buffers: bool | None = None,
    ) -> None:
        lib = llama()
        self.path = Path(path)
        if not self.path.is_file():
            raise CursorishError(f"apply model not found: {self.path}", ExitCode.CONFIG)
        with self.path.open("rb") as handle:
            magic = handle.read(4)
        if magic != b"GGUF":
            raise CursorishError(
                f"apply model {self.path} is not a GGUF file (it does not start with 'GGUF')",
                ExitCode.CONFIG,
            )
        if n_gpu_layers is None:
            n_gpu_layers = -1 if lib.llama_supports_gpu_offload() else 0
        self.n_gpu_layers = n_gpu_layers
        params = lib.llama_model_default_params()
        params.n_gpu_layers = n_gpu_layers
        params.use_extra_bufts = default_extra_buffers() if extra_buffers is None else extra_buffers
        _recent_errors.clear()
        model = lib.llama_model_load_from_file(str(self.path).encode("utf-8"), params)
        if not model:
            detail = "; ".join(_recent_errors) or "llama.cpp gave no reason"
            raise CursorishError(
                f"cannot load apply model {self.path}: corrupt or unsupported GGUF ({detail})",
                ExitCode.CONFIG,
            )
        self._lib = lib
        self.model = model
        self.vocab = lib.llama_model_get_vocab(model)
        self.n_vocab = int(lib.llama_vocab_n_tokens(self.vocab))
        self.n_ctx_train = int(lib.llama_model_n_ctx_train(model))
        self.n_layer = int(lib.llama_model_n_layer(model))
        self.bos = int(lib.llama_vocab_bos(self.vocab))
        self.eos = int(lib.llama_vocab_eos(self.vocab))
        self._pieces: dict[int, bytes] = {}
        # Tokenizing may happen on any agent's thread while another one decodes; llama.cpp
        # does not promise its vocabulary calls are thread-safe, so they take turns.
        self._vocab_lock = threading.Lock()

    def close(self) -> None:
        if getattr(self, "model", None):
            self._lib.llama_model_free(self.model)
            self.model = None

    def __del__(self) -> None:
        # At interpreter shutdown the library may already be gone.
        with contextlib.suppress(Exception):
            self.close()

    def meta(self, key: str) -> str | None:
        buf = ctypes.create_string_buffer(4096)
        n = self._lib.llama_model_meta_val_str(self.model, key.encode("utf-8"), buf, len(buf))
        if n < 0:
            return None
        return buf.value.decode("utf-8", "replace")

    def tokenize(self, text: str, *, add_bos: bool = False, special: bool = False) -> list[int]:
        with self._vocab_lock:
            return self._tokenize(text, add_bos=add_bos, special=special)

    def _tokenize(self, text: str, *, add_bos: bool, special: bool) -> list[int]:
        data = text.encode("utf-8", "surrogateescape")
        capacity = len(data) + 8
        out = (self._lib.llama_token * capacity)()
        n = self._lib.llama_tokenize(self.vocab, data, len(data), out, capacity, add_bos, special)
        if n < 0:
            capacity = -n
            out = (self._lib.llama_token * capacity)()
            n = self._lib.llama_tokenize(
                self.vocab, data, len(data), out, capacity, add_bos, special
            )
        return list(out[:n])

    def token_bytes(self, token: int) -> bytes:
        """The bytes a token stands for (control tokens render as nothing)."""
        piece = self._pieces.get(token)
        if piece is not None:
            return piece
        with self._vocab_lock:
            buf = ctypes.create_string_buffer(64)
            n = self._lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
            if n < 0:
                buf = ctypes.create_string_buffer(-n)
                n = self._lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
            piece = buf.raw[:n]
            self._pieces[token] = piece
        return piece

    def is_eog(self, token: int) -> bool:
        return bool(self._lib.llama_vocab_is_eog(self.vocab, token))

    def eog_tokens(self) -> frozenset[int]:
        return frozenset(t for t in range(self.n_vocab) if self.is_eog(t))


class LlamaEngine:
    """One llama.cpp context with one sequence; implements `speculative.Engine`."""

    def __init__(
        self,
        model: LlamaModel,
        *,
        n_ctx: int,
        n_batch: int = 512,
        n_threads: int | None = None,
        min_rows: int = 2,
        flash_attn: bool | None = None,
    ) -> None:
        lib = model._lib
        self._lib = lib
        self.model = model
        threads = n_threads or max(1, os.cpu_count() or 1)
        params = lib.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = n_batch
        params.n_ubatch = n_batch  # a verify batch must be one ubatch: one forward pass
        params.n_seq_max = 1
        params.n_threads = threads
        params.n_threads_batch = threads
        params.no_perf = True
        # Flash attention off: llama.cpp's CPU flash-attention kernel gives different logits
        # for the same position depending on the batch, which breaks speculative == vanilla.
        params.flash_attn_type = 0 if flash_attn is None or not flash_attn else 1
        ctx = lib.llama_init_from_model(model.model, params)
        if not ctx:
            detail = "; ".join(_recent_errors) or "llama.cpp gave no reason"
            raise CursorishError(f"cannot create a llama.cpp context ({detail})", ExitCode.CONFIG)
        self.ctx = ctx
        self.n_ctx = int(lib.llama_n_ctx(ctx))
        self.n_batch = n_batch
        self.min_rows = min_rows
        self._memory = lib.llama_get_memory(ctx)
        self._batch = lib.llama_batch_init(n_batch, 0, 1)
        self._cached: list[int] = []  # the tokens in the KV cache, by position
        self.n_vocab = model.n_vocab

    def close(self) -> None:
        if getattr(self, "ctx", None):
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self.ctx)
            self.ctx = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def token_bytes(self, token: int) -> bytes:
        return self.model.token_bytes(token)

    def _decode(self, tokens: Sequence[int], start_pos: int, want_logits: Sequence[bool]) -> None:
        if start_pos + len(tokens) > self.n_ctx:
            raise CursorishError(
                f"the apply model ran out of context ({self.n_ctx} tokens)", ExitCode.APPLY_REFUSED
            )
        batch = self._batch
        batch.n_tokens = len(tokens)
        for i, (token, want) in enumerate(zip(tokens, want_logits, strict=True)):
            batch.token[i] = token
            batch.pos[i] = start_pos + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = want
        rc = self._lib.llama_decode(self.ctx, batch)
        if rc != 0:
            self._lib.llama_memory_clear(self._memory, True)
            self._cached = []
            raise CursorishError(f"llama_decode failed (code {rc})", ExitCode.INTERNAL)
        del self._cached[start_pos:]
        self._cached.extend(tokens)

    def _argmax(self, i: int) -> int:
        ptr = self._lib.llama_get_logits_ith(self.ctx, i)
        logits = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))
        return int(np.argmax(logits))  # first index among equal maxima, in both decode loops

    def eval_prompt(self, tokens: Sequence[int]) -> int:
        """Evaluate a prompt, reusing the cached prefix it shares with the previous one.

        At least the last two prompt tokens are always evaluated again, and no chunk is a
        single row, so the first answer token is computed the same way whether or not a
        prefix was cached (see `decode_argmax` on one-row batches).
        """
        if len(tokens) < 2:
            raise ValueError("a prompt needs at least two tokens")
        keep = 0
        limit = min(len(self._cached), len(tokens) - 2)
        while keep < limit and self._cached[keep] == tokens[keep]:
            keep += 1
        if keep == 0:
            self._lib.llama_memory_clear(self._memory, True)
            self._cached = []
        else:
            self.truncate(keep)
        pos = keep
        last = -1
        while pos < len(tokens):
            size = min(self.n_batch, len(tokens) - pos)
            if len(tokens) - (pos + size) == 1:
                size -= 1  # leave two rows for the last chunk, never one
            chunk = tokens[pos : pos + size]
            want = [False] * len(chunk)
            if pos + size == len(tokens):
                want[-1] = True
                last = len(chunk) - 1
            self._decode(chunk, pos, want)
            pos += size
        return self._argmax(last)

    def decode_argmax(self, tokens: Sequence[int], start_pos: int) -> list[int]:
        """Decode `tokens` in one batch with logits for every row; the argmax after each.

        A single token is padded to two rows (the pad is dropped from the cache afterwards):
        llama.cpp's CPU kernels compute a one-row batch differently from a wider one (q8_0:
        logits differ by ~0.05; f16 ~2e-3; f32 ~3e-6), while every batch of two or more
        rows gives bit-identical logits per position. Padding puts the plain greedy loop and
        the speculative verifier on the same arithmetic, so their argmax sequences agree.
        """
        n = len(tokens)
        rows = list(tokens)
        if n < self.min_rows:
            rows += [tokens[-1]] * (self.min_rows - n)
        self._decode(rows, start_pos, [True] * len(rows))
        result = [self._argmax(i) for i in range(n)]
        if len(rows) > n:
            self.truncate(start_pos + n)
        return result

    def copy_state_from(self, other: LlamaEngine) -> None:
        """Make this context's cache a byte copy of `other`'s (same model, one sequence)."""
        lib = self._lib
        size = int(lib.llama_state_seq_get_size(other.ctx, 0))
        buffer = (ctypes.c_uint8 * size)()
        written = int(lib.llama_state_seq_get_data(other.ctx, buffer, size, 0))
        lib.llama_memory_clear(self._memory, True)
        self._cached = []
        if written <= 0 or int(lib.llama_state_seq_set_data(self.ctx, buffer, written, 0)) <= 0:
            raise CursorishError("could not copy a llama.cpp context's state", ExitCode.INTERNAL)
        self._cached = list(other._cached)

    def truncate(self, n_keep: int) -> None:
        self._lib.llama_memory_seq_rm(self._memory, 0, n_keep, -1)
        del self._cached[n_keep:]
