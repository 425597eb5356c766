"""Celery worker and beat (docs/workers.md): ``celery -A workers.app worker`` and ``... beat``."""
