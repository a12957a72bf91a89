"""The planner: a litellm client (streaming, tool calls, retries) and a scripted local server."""
