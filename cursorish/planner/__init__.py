"""The planner: a litellm client (streaming, tool calls, retries, errors meant for the user)."""
