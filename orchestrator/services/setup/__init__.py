"""Setting an event up: its definition, stages and pools, and the pool draws."""
