"""The Junqi platform server: accounts, lobby, tables, the WebSocket gateway, persistence."""
