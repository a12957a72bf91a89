"""Replaying a planner: the scripted OpenAI-compatible server and `cursorish demo` built on it.

`scripted_server` serves a recorded conversation to the real planner client (litellm over HTTP);
the tests, the benchmarks and the demo use it. `script` is the script it replays and how a
request picks its conversation, `wire` the pieces of OpenAI answers it sends. `demo` runs the
whole pipeline on a sample repository with that server as the planner. The engine never imports
this package.
"""

from __future__ import annotations
