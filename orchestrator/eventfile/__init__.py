"""Reading and checking the event YAML file (docs/event-file.md); the model it builds is domain/event.py."""

from orchestrator.eventfile.problems import EventDefinitionError, Problem
from orchestrator.eventfile.reader import MAX_LINEUP_DEADLINE_MINUTES, parse_event

__all__ = ["MAX_LINEUP_DEADLINE_MINUTES", "EventDefinitionError", "Problem", "parse_event"]
