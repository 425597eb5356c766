"""The job runtime: named, id-only jobs, how they are sent and run, and the periodic ticks (docs/workers.md)."""
