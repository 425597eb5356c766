"""Backup and restore of a whole event as one archive file (docs/backup.md)."""
