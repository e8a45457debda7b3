"""What several test modules share: app shells and seeds (app.py), MCP servers and clients (mcp.py)."""
