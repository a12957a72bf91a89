"""The engine: agent loop, tools, orchestration, events, budgets and policies. No UI here."""
