"""Staff operations on the individual results: the board-prize lots (docs/board-prizes.md)."""
