"""The MCP server over the engine: tools, transports (HTTP on 127.0.0.1, stdio), tokens, client set-up.

Modules, one job each: `server` builds the MCPServer and its tool list; `tools` the five tools; `schemas`
their structured results; `coerce` the argument quirks clients send; `identity` who is calling;
`auth` tokens (keyring or a 0600 file, hashes in the database); `asgi` the Host/Origin/token guard;
`presence` which clients are connected right now (for the tray); `http_server` and `stdio` the two
transports; `client_config` per-client snippets and installs;
`resources` memory as resources, with change notifications to subscribers; `bridge` the light stdio
process that forwards to the folder's one server (`bridge_server` its listener, `runtime` the 0600 endpoint
file and locks, `shared_server` the background server the first stdio client starts).
The CLI's `serve`, `mcp` and `clients` commands are in hindsight_desktop/cli/.

Importing this package does not import the MCP SDK; the app starts the server with
`hindsight_desktop.mcp.http_server.HttpServer(engine, port, registry).start()`.
"""
