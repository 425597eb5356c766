"""The game server: pairing rounds there, linking players' accounts, ingesting and importing results."""
