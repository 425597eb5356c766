"""Shared test builders (factories.py) for every session's tests: SQLite in a tmp path or PostgreSQL."""
