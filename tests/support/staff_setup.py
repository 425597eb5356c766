"""Staff setup over the ASGI app: the small event created through the staff page, and its stages' ids as the
JSON API lists them.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.factories import SMALL_EVENT


def create_small_event(client: TestClient, csrf: str) -> int:
    answer = client.post("/staff/events", data={"csrf_token": csrf, "definition_text": SMALL_EVENT})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/staff/events/small-test-cup/setup?done=created"
    with client.app.state.uow_factory() as uow:  # type: ignore[attr-defined]
        event = uow.events.get_by_slug("small-test-cup")
        assert event is not None
        return event.id or 0


def stage_ids(client: TestClient, event_id: int) -> dict[str, int]:
    answer = client.get(f"/api/v1/staff/events/{event_id}")
    assert answer.status_code == 200, answer.text
    return {stage["key"]: stage["id"] for stage in answer.json()["stages"]}
