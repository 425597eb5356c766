"""A Swiss stage run by the server (docs/swiss.md, "The server"): its state read from the database, its
rounds paired for review and published, and the staff operations on its teams."""
