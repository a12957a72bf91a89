"""MCP servers as agent tools: configuration, connections, the tool provider and the CLI.

`config` reads the servers (user config, `.mcp.json`, `.cursorish/mcp.json`); `hub` keeps one
agent's connections on a private event loop; `tools` offers their tools to the planner as
`server__tool`; `cli` is `cursorish mcp list|tools`. The `mcp` SDK is imported only when a
server is really started.
"""
